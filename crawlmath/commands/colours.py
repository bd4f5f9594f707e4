"""``crawlmath colours``: colours in the BUbiNG workbench (Buijsrogge 2014, Ch. 3–8)."""
from __future__ import annotations

import math

from ._common import integer, print_json

NAME = "colours"
HELP = "Expected colours in the BUbiNG workbench: (3.1), mean field KC/(K+C-1), exact chain, simulation, offline strategies."
EXAMPLE = """
crawlmath colours --K 100 --C 1000                       # (3.1), mean field, P_new
crawlmath colours --K 20 --C 20 --exact --json           # exact chain on occupancy partitions
crawlmath colours --K 1000 --C 100000 --exact product    # exact stationary values at any size (product form)
crawlmath colours --K 1000 --C 100000 --dist powerlaw:1.1 --simulate 1000000 --seed 1 --strategy mice:10
"""


def add_arguments(p):
    p.add_argument("--K", type=integer("--K"), required=True, help="positions in the workbench (online structure)")
    p.add_argument("--C", type=integer("--C"), required=True, help="number of colours (hosts)")
    p.add_argument("--dist", default="uniform",
                   help="uniform | geometric:MEAN | normal:MU,SIGMA | poisson:MEAN | powerlaw:GAMMA (Ch. 5)")
    p.add_argument("--exact", nargs="?", const="chain", choices=("chain", "product"), default=None,
                   help="exact stationary values: 'chain' solves the Markov chain (refused when too large), "
                        "'product' uses the product form (any size)")
    p.add_argument("--simulate", type=integer("--simulate"), metavar="STEPS", help="simulate STEPS steps after the fill")
    p.add_argument("--seed", type=integer("--seed"), default=0)
    p.add_argument("--strategy", default="none",
                   help="none | neutral | greedy | randomized:R | mice:BETA | recommended[:DELTA] (Ch. 7-8)")
    p.add_argument("--json", action="store_true", help="print JSON")


def parse_dist(text: str):
    from ..numeric.errors import InvalidInput

    kind, _, rest = text.partition(":")
    want = {"uniform": 0, "geometric": 1, "normal": 2, "poisson": 1, "powerlaw": 1}
    if kind not in want:
        raise InvalidInput("--dist", f"must be one of {', '.join(want)}", value=text)
    params = [s for s in rest.split(",") if s] if rest else []
    if len(params) != want[kind]:
        raise InvalidInput("--dist", f"{kind} takes {want[kind]} parameter(s)", value=text)
    out = []
    for n, s in enumerate(params):
        try:
            v = float(s)
        except ValueError:
            raise InvalidInput("--dist", "parameters must be numbers", value=s, entry=n) from None
        if not math.isfinite(v):
            raise InvalidInput("--dist", "parameters must be finite", value=s, entry=n)
        out.append(v)
    return kind, tuple(out)


def parse_strategy(text: str):
    from ..numeric.errors import InvalidInput

    kind, _, rest = text.partition(":")
    kw = {}
    try:
        if kind == "mice":
            kw["beta"] = float(rest) if rest else 1.0
        elif kind == "randomized":
            kw["r"] = float(rest) if rest else 0.5
        elif kind == "recommended":
            kw["delta"] = int(rest) if rest else 5
        elif kind not in ("none", "neutral", "greedy") or rest:
            raise InvalidInput("--strategy", "must be none | neutral | greedy | randomized:R | mice:BETA | "
                               "recommended[:DELTA]", value=text)
    except ValueError:
        raise InvalidInput("--strategy", "parameter must be a number", value=text) from None
    return kind, kw


def run(args) -> int:
    from ..numeric import colours as nc
    from ..numeric.colours_sim import simulate
    from ..numeric.validate import require_int

    K = require_int(args.K, "--K", minimum=1)
    C = require_int(args.C, "--C", minimum=1)
    kind, params = parse_dist(args.dist)
    strategy, kw = parse_strategy(args.strategy)
    if args.simulate is not None:
        require_int(args.simulate, "--simulate", minimum=1)
        require_int(args.seed, "--seed", minimum=0)
    p = nc.colour_distribution(kind, C, *params)
    out = {"K": K, "C": C, "dist": args.dist, "initial_expected": nc.initial_expected(p, K)}
    if kind == "uniform":
        mf = nc.mean_field(K, C)
        out["mean_field"] = mf.colours
        out["p_new"] = mf.p_new
    else:
        out["mean_field"] = None  # Theorem 4.2.1 is for uniform colours only
        out["p_new"] = None
    if args.exact == "chain":
        if kind == "uniform":
            r = nc.exact_uniform(K, C)
        else:
            r = nc.exact_general(p, K)
        out["exact"] = {"colours": r.colours, "p_new": r.p_new, "states": r.states, "method": r.method,
                        "residual": r.residual}
    elif args.exact == "product":
        r = nc.exact_stationary(p, K)
        out["exact"] = {"colours": r.colours, "p_new": r.p_new, "method": r.method, "digits": r.digits}
    if args.exact and out["p_new"] is None:
        out["p_new"] = out["exact"]["p_new"]
    if args.simulate is not None:
        s = simulate(p, K, args.simulate, args.seed, strategy, **kw)
        out["simulated"] = {"mean": s.mean, "stderr": s.stderr, "p_new": s.p_new_mean, "steps": s.steps,
                            "seed": s.seed, "strategy": args.strategy, "elephants": s.elephants,
                            "source_draws": s.source_draws, "stopped_at": s.stopped_at,
                            "method": "batch means over the second half (20 batches); " + s.method}
    if args.json:
        print_json(out)
        return 0
    print(f"K = {K}, C = {C}, colours {args.dist}")
    print(f"expected colours at t = K (3.1):      {out['initial_expected']:.6f}")
    if out["mean_field"] is not None:
        print(f"mean field KC/(K+C-1) (Thm 4.2.1):   {out['mean_field']:.6f}   P_new {out['p_new']:.6f}")
    if "exact" in out:
        e = out["exact"]
        print(f"exact stationary ({e['method']}):  {e['colours']:.10f}   P_new {e['p_new']:.10f}"
              + (f"   ({e['states']} states)" if "states" in e else ""))
    if "simulated" in out:
        s = out["simulated"]
        print(f"simulated ({s['strategy']}, {s['steps']} steps, seed {s['seed']}): {s['mean']:.4f} ± {s['stderr']:.4f}"
              f"   P_new {s['p_new']:.4f}" + (f"   elephants {s['elephants']}" if s["elephants"] else ""))
    return 0
