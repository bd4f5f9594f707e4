"""``crawlmath schedule``: optimal crawl frequencies, the lower bound C* and
the cost of a policy (Coffman–Liu–Weber 1997)."""
from __future__ import annotations

import math
import sys

from ..numeric.errors import SolverError
from ..numeric.tolerance import FLOAT_REL
from ._common import inputs, integer, print_json, require_finite_output

# rates, weights, h, frequencies, a few work arrays: float64 per page (the
# golden cycle has its own cost model, numeric.scheduling.golden_estimate)
BYTES_PER_PAGE = 200
# --json of a golden cycle prints the sequence, one "      12,\n" line per access
# (7 bytes each for N < 100), through json's pure-Python indenting encoder:
# measured 1.4-2.8 us and ~25 B of chunks per access (benchmarks/estimates.py).
JSON_BYTES_PER_ACCESS = 48
JSON_SECONDS_PER_ACCESS = 2.0e-6

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
            if not (math.isfinite(v) and v >= sys.float_info.min):  # subnormals underflow the float route
                raise InvalidInput(name, f"entries must be finite and >= {sys.float_info.min:.3g} (normal doubles)",
                                   value=v, entry=i)
            out.append(v)
        return out

    return parse


def add_arguments(p):
    """Register the options of ``crawlmath schedule`` on the argparse parser ``p``."""
    p.add_argument("--rates", required=True, help="page change rates mu_i, comma-separated")
    p.add_argument("--access", required=True, help="access time X: det:T, exp:RATE, gamma:SHAPE,RATE, uniform:A,B, hyperexp:p1,r1,p2,r2")
    p.add_argument("--weights", help="cost weights c_i (default: the rates, c0 = 1)")
    p.add_argument("--policy", choices=("optimal", "randomized", "golden"), default="optimal",
                   help="optimal: the lower bound of Thm 3.4 (or its KKT optimum); randomized: Thm 4.1; golden: gamma(k, N) of §5")
    p.add_argument("--k", type=integer("--k"), help="golden policy: cycle length F_k (default: smallest k with F_k >= 64 N and every page accessed)")
    p.add_argument("--json", action="store_true",
                   help="print a JSON object {frequencies, lower_bound, cost, policy[, sequence], inputs}")


# units of the arguments echoed under "inputs" (Coffman–Liu–Weber §2: rates per unit time)
UNITS = {"rates": "1/time (page change rates mu_i)", "weights": "cost per unit time per stale page (c_i)",
         "access": "distribution of the access time X (time)", "k": "index of the Fibonacci cycle length F_k"}


def check_access(access, text: str) -> None:
    """E[X] and nu = 1/E[X] must be normal doubles: the float route divides by both."""
    import sys

    from ..numeric.errors import InvalidInput

    mean = access.mean
    if not (sys.float_info.min <= mean <= 1 / sys.float_info.min):
        raise InvalidInput("--access", f"E[X] = {mean!r} and 1/E[X] must be normal doubles "
                                       f"(between {sys.float_info.min:.3g} and {1 / sys.float_info.min:.3g})", value=text)


def check_weight_scale(problem) -> None:
    """The float route forms sum c_i and the multipliers c_i nu/mu_i (Thm 3.4, (8));
    they must be finite.  The frequencies do not depend on a common factor of
    the c_i and the costs scale with it, so the user can divide it out.

    >>> import numpy as np
    >>> from types import SimpleNamespace as P
    >>> try:
    ...     check_weight_scale(P(weights=np.array([1e308, 1e308]), rates=np.array([1.0, 2.0]), nu=1.0))
    ... except Exception as exc:
    ...     print(exc)
    --weights: sum c_i or c_i nu/mu_i overflows float64; the frequencies do not change when every c_i is divided by the same factor and the costs scale with it: divide the weights by a common factor
    """
    import numpy as np

    from ..numeric.errors import InvalidInput

    with np.errstate(over="ignore"):
        finite = np.isfinite(problem.weights.sum()) and np.all(np.isfinite(problem.weights * problem.nu / problem.rates))
    if not finite:
        raise InvalidInput("--weights", "sum c_i or c_i nu/mu_i overflows float64; the frequencies do not change when "
                                        "every c_i is divided by the same factor and the costs scale with it: divide "
                                        "the weights by a common factor")


def make_problem(s, rates, access, weights, text: str):
    """The validated problem; an h_i = E exp(-mu_i X) that rounds to 0 or 1 in
    float64 is blamed on the page's rate against --access, not on h."""
    from ..numeric.errors import InvalidInput

    try:
        return s.make_problem(rates, access, weights)
    except InvalidInput as exc:
        if not exc.argument.startswith("h("):
            raise
        raise InvalidInput("--rates", f"h_i = E exp(-mu_i X) = {exc.value!r} for --access {text}: it must lie "
                                      "strictly in (0, 1) in float64, so mu_i E[X] is too small or too large",
                           value=rates[exc.entry], entry=exc.entry) from None


def run(args) -> int:
    """``crawlmath schedule``: optimal frequencies and lower bound C* (Coffman et al. 1997, Thms 3.3/3.4) and the cost
    of the requested policy (optimal, randomized, golden-ratio); returns exit code 0.
    """
    from ..numeric import scheduling as s
    from ..numeric.scheduling import parse_access
    from ..numeric.errors import InvalidInput, TooLarge
    from ..numeric.validate import require_memory

    rates = _vector("--rates")(args.rates)
    weights = None if args.weights is None else _vector("--weights")(args.weights)
    require_memory(BYTES_PER_PAGE * len(rates), "--rates", f"{len(rates)} pages", value=len(rates))
    access = parse_access(args.access)
    check_access(access, args.access)
    if weights is not None and len(weights) != len(rates):
        raise InvalidInput("--weights", f"must have one entry per rate ({len(rates)})", value=len(weights))
    if args.k is not None and not 1 <= args.k <= s.MAX_K:
        cls = TooLarge if args.k > s.MAX_K else InvalidInput
        raise cls("--k", f"must lie in 1..{s.MAX_K} (F_{s.MAX_K} = {s.fibonacci(s.MAX_K)} accesses per cycle)",
                  value=args.k)
    problem = make_problem(s, rates, access, weights, args.access)
    check_weight_scale(problem)
    lb = s.optimal_frequencies(problem)
    out = {"policy": args.policy, "lower_bound": lb.lower_bound, "lower_bound_method": lb.method, "kkt_residual": lb.residual}
    if args.policy == "optimal":
        out.update(frequencies=lb.frequencies.tolist(), cost=lb.lower_bound)
    elif args.policy == "randomized":
        rnd = s.randomized_optimal(problem)
        out.update(frequencies=rnd.frequencies.tolist(), cost=rnd.lower_bound, method=rnd.method, closed_form_valid=rnd.valid_closed_form)
    else:
        k = args.k if args.k is not None else s.default_k(lb.frequencies)
        F = s.fibonacci(k)
        extra = (JSON_BYTES_PER_ACCESS * F, JSON_SECONDS_PER_ACCESS * F) if args.json else (0.0, 0.0)
        s.require_golden_budget(k, "--k", extra=extra, what=" printed as JSON" if args.json else "")
        try:
            sched = s.golden_schedule(lb.frequencies, k)
        except InvalidInput as exc:
            if exc.argument != "k":
                raise
            raise InvalidInput("--k", exc.rule, value=k) from None
        cost = s.cyclic_cost(sched.sequence, problem)
        out.update(frequencies=cost.frequencies.tolist(), cost=cost.cost, k=sched.k, cycle_length=sched.F,
                   counts=sched.counts.tolist(), sequence=sched.sequence + 1, method=cost.method)
    require_finite_output(out)
    if not out["cost"] >= lb.lower_bound * (1 - FLOAT_REL):
        raise SolverError(f"cost of the {args.policy} policy {out['cost']!r} is below the lower bound C* = "
                          f"{lb.lower_bound!r} (Theorem 3.4): the float route lost accuracy")
    if args.json:
        echo = inputs(args, UNITS)
        echo.update(rates=rates, weights=weights)  # the parsed vectors, not the text
        print_json({**out, "inputs": echo})
        return 0
    print(f"policy {args.policy}; access {args.access} (E[X] = {problem.mean:.6g}); N = {problem.N}")
    print(f"{'page':>4} {'mu_i':>10} {'c_i':>10} {'h_i':>10} {'frequency':>10}")
    for i, f in enumerate(out["frequencies"]):
        print(f"{i + 1:>4} {problem.rates[i]:>10.6g} {problem.weights[i]:>10.6g} {problem.h[i]:>10.6g} {f:>10.6g}")
    print(f"lower bound C* = {lb.lower_bound:.10g}  ({lb.method}, KKT residual {lb.residual:.2g})")
    print(f"cost of policy = {out['cost']:.10g}  (ratio to C* {out['cost'] / lb.lower_bound:.6f})")
    if args.policy == "golden":
        seq = out["sequence"]
        shown = " ".join(map(str, seq[:60].tolist())) + (" ..." if len(seq) > 60 else "")
        print(f"golden cycle (k = {out['k']}, F_k = {out['cycle_length']}): {shown}")
    return 0
