"""``crawlmath schedule``: optimal crawl frequencies, the lower bound C* and
the cost of a policy (Coffman–Liu–Weber 1997)."""
from __future__ import annotations

import math

from ._common import integer, print_json

NAME = "schedule"
HELP = "Crawler scheduling (Coffman–Liu–Weber): frequencies, lower bound C* and the cost of the optimal/randomized/golden policy."
EXAMPLE = """
crawlmath schedule --rates 0.5,1,2 --access exp:1
crawlmath schedule --rates 0.5,1,2 --access gamma:2,2 --policy randomized --json
crawlmath schedule --rates 0.5,1,2,4 --access det:1 --policy golden --k 12 --json
crawlmath schedule --rates 0.5,1,2 --weights 1,3,1 --access uniform:0,2
"""


def _vector(name: str):
    def parse(text: str) -> list[float]:
        from ..numeric.errors import InvalidInput

        out = []
        for i, part in enumerate(text.split(",")):
            try:
                v = float(part)
            except ValueError:
                raise InvalidInput(name, "must be comma-separated numbers", value=part, entry=i) from None
            if not (math.isfinite(v) and v > 0):
                raise InvalidInput(name, "entries must be finite and > 0", value=v, entry=i)
            out.append(v)
        return out

    return parse


def add_arguments(p):
    p.add_argument("--rates", required=True, help="page change rates mu_i, comma-separated")
    p.add_argument("--access", required=True, help="access time X: det:T, exp:RATE, gamma:SHAPE,RATE, uniform:A,B, hyperexp:p1,r1,p2,r2")
    p.add_argument("--weights", help="cost weights c_i (default: the rates, c0 = 1)")
    p.add_argument("--policy", choices=("optimal", "randomized", "golden"), default="optimal",
                   help="optimal: the lower bound of Thm 3.4 (or its KKT optimum); randomized: Thm 4.1; golden: gamma(k, N) of §5")
    p.add_argument("--k", type=integer("--k"), help="golden policy: cycle length F_k (default: smallest k with F_k >= 64 N and every page accessed)")
    p.add_argument("--json", action="store_true", help="print a JSON object {frequencies, lower_bound, cost, policy[, sequence]}")


def run(args) -> int:
    from ..numeric import scheduling as s
    from ..numeric.access_time import parse_access
    from ..numeric.errors import InvalidInput

    rates = _vector("--rates")(args.rates)
    weights = None if args.weights is None else _vector("--weights")(args.weights)
    access = parse_access(args.access)
    if weights is not None and len(weights) != len(rates):
        raise InvalidInput("--weights", f"must have one entry per rate ({len(rates)})", value=len(weights))
    problem = s.make_problem(rates, access, weights)
    lb = s.optimal_frequencies(problem)
    out = {"policy": args.policy, "lower_bound": lb.lower_bound, "lower_bound_method": lb.method, "kkt_residual": lb.residual}
    if args.policy == "optimal":
        out.update(frequencies=lb.frequencies.tolist(), cost=lb.lower_bound)
    elif args.policy == "randomized":
        rnd = s.randomized_optimal(problem)
        out.update(frequencies=rnd.frequencies.tolist(), cost=rnd.lower_bound, method=rnd.method, closed_form_valid=rnd.valid_closed_form)
    else:
        if args.k is not None and args.k > s.MAX_K:
            from ..numeric.errors import TooLarge

            raise TooLarge("--k", f"must be <= {s.MAX_K}", value=args.k)
        k = args.k if args.k is not None else s.default_k(lb.frequencies)
        sched = s.golden_schedule(lb.frequencies, k)
        cost = s.cyclic_cost(sched.sequence, problem)
        out.update(frequencies=cost.frequencies.tolist(), cost=cost.cost, k=sched.k, cycle_length=sched.F,
                   counts=sched.counts.tolist(), sequence=(sched.sequence + 1).tolist(), method=cost.method)
    if args.json:
        print_json(out)
        return 0
    print(f"policy {args.policy}; access {args.access} (E[X] = {problem.mean:.6g}); N = {problem.N}")
    print(f"{'page':>4} {'mu_i':>10} {'c_i':>10} {'h_i':>10} {'frequency':>10}")
    for i, f in enumerate(out["frequencies"]):
        print(f"{i + 1:>4} {problem.rates[i]:>10.6g} {problem.weights[i]:>10.6g} {problem.h[i]:>10.6g} {f:>10.6g}")
    print(f"lower bound C* = {lb.lower_bound:.10g}  ({lb.method}, KKT residual {lb.residual:.2g})")
    print(f"cost of policy = {out['cost']:.10g}  (ratio to C* {out['cost'] / lb.lower_bound:.6f})")
    if args.policy == "golden":
        seq = out["sequence"]
        shown = " ".join(map(str, seq[:60])) + (" ..." if len(seq) > 60 else "")
        print(f"golden cycle (k = {out['k']}, F_k = {out['cycle_length']}): {shown}")
    return 0
