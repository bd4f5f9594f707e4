"""``crawlmath bmap``: the BMAP/PH/1/K crawler with PH obsolescence and
threshold control of the robots (Avrachenkov et al., seed 000)."""
from __future__ import annotations

from ._common import integer, print_json

NAME = "bmap"
HELP = "BMAP/PH/1/K with PH obsolescence (Avrachenkov et al.): measures and cost J under a threshold policy, or the optimal thresholds."
EXAMPLE = """
crawlmath bmap avrachenkov-example.json --modes 3,1 --thresholds 2          # Table 1, highlighted row (J = 63.54)
crawlmath bmap avrachenkov-example.json --optimize --json                   # every mode set, as Table 1
crawlmath bmap avrachenkov-real.json --modes 4,1 --optimize                 # Table 5, modes 1,4
crawlmath bmap avrachenkov-example.json --K 16 --modes 3,1 --thresholds 3   # 262142 states, matrix-free solver
"""


def add_arguments(p):
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
    p.add_argument("--json", action="store_true", help="print JSON")


def _ints(text: str | None, name: str) -> tuple[int, ...] | None:
    from ..numeric.errors import InvalidInput

    if text is None:
        return None
    out = []
    for n, part in enumerate(x.strip() for x in text.split(",")):
        if not part:
            continue
        try:
            out.append(int(part))
        except ValueError:
            raise InvalidInput(name, "must be comma-separated integers", value=text, entry=n) from None
    return tuple(out)


def _row(m, modes, thresholds) -> dict:
    d = m.as_json()
    d.update({"modes": list(modes), "thresholds": list(thresholds), "levels": list(m.levels), "v": m.v, "seconds": m.seconds})
    return d


def run(args) -> int:
    from ..numeric import bmap_model as bm
    from ..numeric.bmap_io import load_model, read_spec
    from ..numeric.errors import InvalidInput

    model = load_model(args.model, K=args.K)
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
    if args.optimize:
        if thresholds is not None:
            raise InvalidInput("--thresholds", "cannot be combined with --optimize", value=args.thresholds)
        sets = [modes] if modes else None
        res = bm.optimize_all(model, sets, convention=args.convention, solver=args.solver)
        rows = [_row(o.measures, o.modes, o.thresholds) for o in res.values()]
        best = min(rows, key=lambda r: r["cost"])
        if args.json:
            print_json({"optimum": best, "by_modes": rows, "convention": args.convention})
        else:
            print(f"{'modes':>10} {'thresholds':>12} {'J':>12}")
            for r in rows:
                print(f"{','.join(map(str, r['modes'])):>10} {','.join(map(str, r['thresholds'])) or '-':>12} {r['cost']:12.6f}")
            print(f"optimum: modes {best['modes']} thresholds {best['thresholds']} J = {best['cost']:.6f} "
                  f"({best['states']} states, convention {args.convention})")
        return 0
    modes = modes or (model.N,)
    thresholds = thresholds if thresholds is not None else ()
    pol = bm.Policy(modes, thresholds)
    m = bm.evaluate(model, pol, args.solver)
    row = _row(m, modes, thresholds)
    if args.json:
        print_json(row)
    else:
        for key in ("cost", "lam", "p_loss", "p_obs", "p_success", "p_star", "n_act", "v1", "v2", "v", "states", "method", "residual", "seconds"):
            print(f"{key:>10}  {row[key]}")
    return 0
