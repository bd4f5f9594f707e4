"""``crawlmath bmap``: the BMAP/PH/1/K crawler with PH obsolescence and
threshold control of the robots (Avrachenkov et al., seed 000)."""
from __future__ import annotations

import contextlib
import math
import threading
import time

from ._common import Progress, add_progress_option, inputs, integer, print_json, progress_wanted

NAME = "bmap"
HELP = "BMAP/PH/1/K with PH obsolescence (Avrachenkov et al.): measures and cost J under a threshold policy, or the optimal thresholds."
EXAMPLE = """
crawlmath bmap avrachenkov-example.json --modes 3,1 --thresholds 2          # Table 1, highlighted row (J = 63.54)
crawlmath bmap avrachenkov-example.json --optimize --json                   # every mode set, as Table 1
crawlmath bmap avrachenkov-real.json --modes 4,1 --optimize                 # Table 5, modes 1,4
crawlmath bmap avrachenkov-example.json --K 30 --modes 3,1 --thresholds 3   # Table 2, K = 30: 4.3e9 states lumped to 122
crawlmath bmap avrachenkov-example.json --K 16 --modes 3,1 --thresholds 3 --no-reduce   # 262142 states, matrix-free solver
"""


def add_arguments(p):
    """Register the options of ``crawlmath bmap`` on the argparse parser ``p``."""
    p.add_argument("model", metavar="MODEL", help="model file (JSON or TOML); bare names are looked up among the shipped models "
                                                  "(avrachenkov-example.json, avrachenkov-real.json, ...)")
    p.add_argument("--K", type=integer("--K"), help="override the capacity K of the model file")
    p.add_argument("--modes", help="robot counts in use, comma separated (e.g. 3,1); used in decreasing order as the queue grows")
    p.add_argument("--thresholds", help="j_1,...,j_{n-1}: mode r serves j_{r-1}+1 <= i <= j_r pages (j_0 = -1, j_n = K)")
    p.add_argument("--optimize", action="store_true", help="enumerate thresholds (all mode sets unless --modes) and report the optimum")
    p.add_argument("--convention", choices=("paper", "strict", "nonstrict"), default="paper",
                   help="threshold ranges searched by --optimize (paper: 0 <= j_1 <= ... <= K; reproduces Tables 1 and 5)")
    p.add_argument("--solver", choices=("auto", "sparse", "block", "qbd", "structured"), default="auto",
                   help="stationary solver (auto: sparse LU up to 1500 states, then matrix-free)")
    p.add_argument("--no-reduce", action="store_true",
                   help="build the chain on the PH representations as given (default: exactly lumped service and obsolescence "
                        "phases, same measures, far fewer states; e.g. the example's obsolescence is Exp(0.2), so R = 2 -> 1)")
    add_progress_option(p)
    p.add_argument("--json", action="store_true", help="print JSON (the inputs echoed under \"inputs\")")


# units of the arguments echoed under "inputs" (Avrachenkov et al. §2)
UNITS = {"K": "pages (buffer capacity)", "modes": "robots per mode", "thresholds": "pages (queue lengths j_r)"}


def _ints(text: str | None, name: str) -> tuple[int, ...] | None:
    from ..numeric.errors import InvalidInput

    if text is None:
        return None
    if not text.strip():
        if name == "--modes":  # an empty list of modes is not "no --modes": refuse it rather than guess
            raise InvalidInput(name, "must list at least one robot count (e.g. 3,1)", value=text)
        return ()  # --thresholds '': no thresholds (a single mode)
    out = []
    for n, part in enumerate(x.strip() for x in text.split(",")):
        if not part:
            raise InvalidInput(name, "must be comma-separated integers (an entry is empty)", value=text, entry=n)
        try:
            out.append(int(part))
        except ValueError:
            raise InvalidInput(name, "must be comma-separated integers", value=text, entry=n) from None
    return tuple(out)


def _inputs(args, model, modes, thresholds) -> dict:
    """The arguments as parsed; ``modes``/``thresholds`` as used (a model
    file's ``modes`` when --modes is absent), ``K`` as the model's capacity."""
    echo = inputs(args, UNITS)
    echo.update(K=model.K, modes=None if modes is None else list(modes),
                thresholds=None if thresholds is None else list(thresholds))
    return echo


def _optimize(bm, model, modes, args) -> list:
    """`bmap_model.optimize_all` one mode set at a time (the same shared
    cache of solves), so a progress bar can follow the sets."""
    sets = bm.all_mode_sets(model.N) if modes is None else [tuple(sorted(set(modes), reverse=True))]
    cache: dict = {}
    out = []
    with Progress("bmap: mode sets", enabled=progress_wanted(args), unit="set", total=len(sets)) as progress:
        for i, m in enumerate(sets):
            out.append(bm.optimize(model, m, args.convention, args.solver, cache))
            progress(i + 1, len(sets), ",".join(map(str, m)))
    return out


def _row(m, modes, thresholds, model) -> dict:
    d = m.as_json()
    d.update({"modes": list(modes), "thresholds": list(thresholds), "levels": list(m.levels), "v": m.v, "seconds": m.seconds,
              "full_states": model.full_states, "reduction": model.reduction()})
    return d


def evaluations(model, modes, args) -> float:
    """Policies a run evaluates (an upper bound: optimize shares solves)."""
    if not args.optimize:
        return 1.0
    sizes = [len(modes)] if modes else range(1, model.N + 1)
    total = 0.0
    for n in sizes:
        sets = 1 if modes else math.comb(model.N, n)
        if n == 1:
            cands = 1
        elif args.convention == "strict":
            cands = math.comb(model.K, n - 1)
        else:
            cands = math.comb(model.K + (2 if args.convention == "nonstrict" else 1) + n - 2, n - 1)
        total += float(sets) * float(cands)
    return total


@contextlib.contextmanager
def _ticking(args, model):
    """While one policy is solved: with --progress, a bar of the seconds elapsed against the cost model's estimate,
    redrawn every second from a background thread (the solvers report nothing while they run)."""
    if not progress_wanted(args):
        yield
        return
    from ..numeric.bmap import estimate_cost

    total = max(1, math.ceil(estimate_cost(model, 1, args.solver)[0]))
    done = threading.Event()
    with Progress("bmap: solving (seconds, against the estimate)", unit="s", total=total) as bar:
        def tick():
            t0 = time.monotonic()
            while not done.wait(1.0):
                elapsed = int(time.monotonic() - t0)
                bar(min(elapsed, total - 1), total, f"{elapsed} s of ~{total} s estimated")

        thread = threading.Thread(target=tick, daemon=True)
        thread.start()
        try:
            yield
        finally:
            done.set()
            thread.join()
            bar(total, total)


def check_cost(model, modes, args) -> None:
    """Refuse (TooLarge) before building any generator: `bmap_model.require_cost` for the states after lumping and the
    number of solves --optimize needs."""
    from ..numeric.bmap import require_cost

    n = evaluations(model, modes, args)
    blame, value = ("--K", args.K) if args.K is not None else ("MODEL", f"K = {model.K} in the model file")
    require_cost(model, n, args.solver, argument="--optimize" if n > 1 else blame, value=value)


def run(args) -> int:
    """``crawlmath bmap``: load the model, then print the measures and cost J (eq. 2) under the given thresholds,
    or the optimal thresholds with ``--optimize``; returns exit code 0 (errors are raised).
    """
    from ..numeric import bmap as bm
    from ..numeric.bmap import load_model, read_spec
    from ..numeric.errors import InvalidInput

    model = load_model(args.model, K=args.K, reduce=not args.no_reduce)
    modes = _ints(args.modes, "--modes")
    if modes is None:
        modes = tuple(read_spec(args.model).get("modes", ())) or None
    thresholds = _ints(args.thresholds, "--thresholds")
    if modes is not None:
        for n, r in enumerate(modes):
            if not 1 <= r <= model.N:
                raise InvalidInput("--modes", f"robot counts must lie in 1..{model.N}", value=r, entry=n)
        if len(set(modes)) != len(modes):
            raise InvalidInput("--modes", "must not repeat a mode", value=args.modes)
    check_cost(model, modes, args)
    if args.optimize:
        if thresholds is not None:
            raise InvalidInput("--thresholds", "cannot be combined with --optimize", value=args.thresholds)
        res = _optimize(bm, model, modes, args)
        rows = [_row(o.measures, o.modes, o.thresholds, model) for o in res]
        best = min(rows, key=lambda r: r["cost"])
        if args.json:
            print_json({"optimum": best, "by_modes": rows, "convention": args.convention,
                        "inputs": _inputs(args, model, modes, thresholds)})
        else:
            print(f"{'modes':>10} {'thresholds':>12} {'J':>12}")
            for r in rows:
                print(f"{','.join(map(str, r['modes'])):>10} {','.join(map(str, r['thresholds'])) or '-':>12} {r['cost']:12.6f}")
            print(f"optimum: modes {best['modes']} thresholds {best['thresholds']} J = {best['cost']:.6f} "
                  f"({best['states']} states, convention {args.convention})")
            print(f"chain: {model.reduction()}")
        return 0
    modes = modes or (model.N,)
    thresholds = thresholds if thresholds is not None else ()
    pol = bm.Policy(modes, thresholds)
    with _ticking(args, model):
        m = bm.evaluate(model, pol, args.solver)
    row = _row(m, modes, thresholds, model)
    if args.json:
        print_json({**row, "inputs": _inputs(args, model, modes, thresholds)})
    else:
        for key in ("cost", "lam", "p_loss", "p_obs", "p_success", "p_star", "n_act", "v1", "v2", "v", "states", "reduction", "method",
                    "residual", "seconds"):
            print(f"{key:>10}  {row[key]}")
    return 0
