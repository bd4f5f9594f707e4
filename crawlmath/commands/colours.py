"""``crawlmath colours``: colours in the BUbiNG workbench (Buijsrogge 2014, Ch. 3–8)."""
from __future__ import annotations

import dataclasses

import math

from ._common import Progress, add_progress_option, inputs, integer, print_json, progress_wanted, require_finite_output

BYTES_PER_COLOUR = 48  # p and a few float64 work arrays per entry

NAME = "colours"
HELP = "Expected colours in the BUbiNG workbench: (3.1), mean field KC/(K+C-1), exact chain, simulation, offline strategies."
EXAMPLE = """
crawlmath colours --K 100 --C 1000                       # (3.1), mean field, P_new
crawlmath colours --K 20 --C 20 --exact --json           # exact chain on occupancy partitions
crawlmath colours --K 1000 --C 100000 --exact product    # exact stationary values at any size (product form)
crawlmath colours --K 1000 --C 100000 --dist powerlaw:1.1 --exact product --json   # c^-gamma in balls, gamma = 11/10 exactly
crawlmath colours --K 1000 --C 100000 --dist powerlaw:1.1 --simulate 1000000 --seed 1 --strategy mice:10
"""


def add_arguments(p):
    """Register the options of ``crawlmath colours`` on the argparse parser ``p``."""
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
                   help="none | neutral | greedy-neutral | greedy-neutral-offline | greedy-greedy | greedy | greedy-a | randomized[:R] | "
                        "randomized-a[:R] | randomized-b[:R] | combined[:R] | mice[:BETA] | mice-delta[:DELTA] | "
                        "recommended[:DELTA] (Algorithms 1-12 of Ch. 7-8; numeric/colours/_sim.py)")
    add_progress_option(p)
    p.add_argument("--json", action="store_true", help="print JSON (the inputs echoed under \"inputs\")")


# units of the arguments echoed under "inputs" (Buijsrogge 2014, Ch. 3)
UNITS = {"K": "positions (balls in the workbench)", "C": "colours (hosts)", "simulate": "steps after the fill"}


def parse_dist(text: str):
    """Parse ``--dist KIND[:P,...]`` into (kind, float parameters, the parameters' text); uniform takes no
    parameter, geometric, poisson and powerlaw one, normal two.  InvalidInput names ``--dist``.  The text
    is what the exact product form reads (``powerlaw:1.1`` means γ = 11/10 exactly).
    """
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
    return kind, tuple(out), tuple(params)


def parse_strategy(text: str):
    """Parse ``--strategy NAME[:PARAM]`` into (name, keyword arguments for the simulator), PARAM being β, δ or r
    as the strategy takes; InvalidInput names ``--strategy``.
    """
    from ..numeric.colours import STRATEGY_NAMES
    from ..numeric.errors import InvalidInput

    kind, _, rest = text.partition(":")
    # the strategy's one parameter: mice:BETA, mice-delta:DELTA, recommended:DELTA, randomized*:R, combined:R
    param = {"mice": ("beta", float), "mice-delta": ("delta", int), "recommended": ("delta", int),
             "randomized": ("r", float), "randomized-a": ("r", float), "randomized-b": ("r", float),
             "combined": ("r", float)}
    if kind not in STRATEGY_NAMES or (rest and kind not in param):
        raise InvalidInput("--strategy", f"must be one of {', '.join(STRATEGY_NAMES)}, with :PARAM for "
                           "mice:BETA, mice-delta:DELTA, recommended:DELTA, randomized[-a|-b]:R, combined:R", value=text)
    kw = {}
    if rest:
        name, cast = param[kind]
        try:
            kw[name] = cast(rest)
        except ValueError:
            raise InvalidInput("--strategy", f"{name} must be a number", value=text) from None
    return kind, kw


def run(args) -> int:
    """``crawlmath colours``: expected colours online by (3.1), the mean field KC/(K+C−1), the exact chain or product
    form (``--exact``) and a seeded simulation (``--simulate``); returns exit code 0.
    """
    from ..numeric import colours as nc
    from ..numeric.colours import MAX_SEED, MIN_STEPS, simulate
    from ..numeric.errors import InvalidInput
    from ..numeric.markov import outward_text
    from ..numeric.validate import require_int, require_memory

    K = require_int(args.K, "--K", minimum=1)
    C = require_int(args.C, "--C", minimum=1)
    kind, params, texts = parse_dist(args.dist)
    strategy, kw = parse_strategy(args.strategy)
    if args.simulate is not None:
        require_int(args.simulate, "--simulate", minimum=MIN_STEPS)
        if not 0 <= args.seed <= MAX_SEED:
            raise InvalidInput("--seed", "must lie in [0, 2**64)", value=args.seed)
    if args.exact == "product":  # its least work (K²/2 ball products, one power per colour), before p is built
        nc.require_product_form_budget(C, K, C)
    elif args.exact == "chain":
        nc.require_chain_states(K, C)
    # p and the few float64 work arrays of length C that building it needs
    require_memory(BYTES_PER_COLOUR * C, "--C", f"C = {C} colours ({BYTES_PER_COLOUR} bytes each)", value=C)
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
        if kind == "uniform" and nc.partition_count(K, C) <= nc.CERTIFIED_PARTITIONS:
            r = nc.certified_uniform(K, C)
        elif kind == "uniform":  # past the certified route's cap: a float64 solve, and it says so
            r = nc.exact_uniform(K, C)
            r = dataclasses.replace(r, method=f"float64 sparse LU on the {r.states}-state partition chain, not "
                                    f"certified (above {nc.CERTIFIED_PARTITIONS} states); --exact product gives a "
                                    "certified E[S]")
        else:
            r = nc.exact_general(p, K)
        out["exact"] = {"colours": r.colours, "p_new": r.p_new, "states": r.states, "method": r.method}
        if r.digits is None:  # the float64 solve of the uniform chain
            out["exact"]["residual"] = r.residual
        else:  # certified: p_c = 1/C exactly, or p as colour_distribution gives it, each float read as its shortest decimal
            out["exact"].update(digits=r.digits, inputs=r.inputs,
                                model=r.model if kind == "uniform" else
                                f"{kind} p_c as float64 values (Ch. 5), each read as its shortest decimal",
                                bounds=[outward_text(b, r.digits + 3, up) for b, up in zip(r.colours_bounds, (False, True))])
    elif args.exact == "product":
        r = nc.exact_stationary(nc.colour_law_of(kind, C, *texts), K)  # the law from the exact parameters
        out["exact"] = {"colours": r.colours, "p_new": r.p_new, "method": r.method, "digits": r.digits,
                        "radius": r.radius, "enclosure": r.colours_ball.str(r.digits, radius=True),
                        "inputs": r.inputs, "model": r.model}
    if args.exact and out["p_new"] is None:
        out["p_new"] = out["exact"]["p_new"]
    if args.simulate is not None:
        total = K + args.simulate  # the steps simulate() reports: the fill and the run
        with Progress("colours: simulate", enabled=progress_wanted(args), unit="step", total=total) as progress:
            s = simulate(p, K, args.simulate, args.seed, strategy, progress=progress, **kw)
        out["simulated"] = {"mean": s.mean, "stderr": s.stderr, "p_new": s.p_new_mean, "steps": s.steps,
                            "seed": s.seed, "strategy": args.strategy, "elephants": s.elephants,
                            "source_draws": s.source_draws, "stopped_at": s.stopped_at,
                            "method": s.method}
    require_finite_output(out)
    if args.json:
        print_json({**out, "inputs": inputs(args, UNITS)})
        return 0
    print(f"K = {K}, C = {C}, colours {args.dist}")
    print(f"expected colours at t = K (3.1):      {out['initial_expected']:.6f}")
    if out["mean_field"] is not None:
        print(f"mean field KC/(K+C-1) (Thm 4.2.1):   {out['mean_field']:.6f}   P_new {out['p_new']:.6f}")
    if "exact" in out:
        e = out["exact"]
        print(f"exact stationary ({e['method']}):  {e['colours']:.10f}   P_new {e['p_new']:.10f}"
              + (f"   ({e['states']} states)" if "states" in e else ""))
        if "bounds" in e:
            print(f"  E[S] in [{e['bounds'][0]}, {e['bounds'][1]}]")
        if "model" in e:
            print(f"  {e['digits']} digits for the model: {e['model']}")
    if "simulated" in out:
        s = out["simulated"]
        level = ("no second-half average: the run stopped at t = " + str(s["stopped_at"]) if s["mean"] is None
                 else f"{s['mean']:.4f} ± {s['stderr']:.4f}   P_new {s['p_new']:.4f}")
        print(f"simulated ({s['strategy']}, {s['steps']} steps, seed {s['seed']}): {level}"
              + (f"   elephants {s['elephants']}" if s["elephants"] else "")
              + (f"   (stopped at t = {s['stopped_at']})" if s["stopped_at"] >= 0 and s["mean"] is not None else ""))
    return 0
