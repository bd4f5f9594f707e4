"""``crawlmath static``: the optimal number of always-active crawlers (Liu–Nain §1.2.1)."""
from __future__ import annotations

import math

from ._common import inputs, integer, number, print_json

NAME = "static"
HELP = "Optimal static crawler count N(gamma, K) for the M/M/1/K model (Liu–Nain 2005, §1.2.1, Prop. 1)."
EXAMPLE = """
crawlmath static --lam 0.01 --mu 1 --gamma 0.5 --K 10
crawlmath static --lam 0.05 --mu 1 --gamma 2.4 --K 15 --digits 40 --json
crawlmath static --lam 0.01 --mu 1 --gamma 1.2 --K inf
"""


def add_arguments(p):
    """Register the options of ``crawlmath static`` on the argparse parser ``p``."""
    p.add_argument("--lam", required=True, help="page rate of one crawler, lambda > 0")
    p.add_argument("--mu", required=True, help="indexing rate, mu > 0")
    p.add_argument("--gamma", required=True, help="weight of starvation against loss, gamma > 0")
    p.add_argument("--K", required=True, type=integer("--K", allow_inf=True), help="buffer size, integer >= 2, or 'inf'")
    p.add_argument("--digits", type=integer("--digits"), default=None,
                   help="compute in mpmath with this many significant digits (inputs read as exact decimals) "
                        "and prove an enclosure of rho with python-flint ball arithmetic")
    p.add_argument("--json", action="store_true",
                   help="print JSON with keys rho_opt, N_opt, cost_opt, N_approx, gamma_K, method, digits, inputs")


# units of the arguments echoed under "inputs" (Liu–Nain §1.2.1: rates per unit time)
UNITS = {"lam": "1/time (pages fetched per unit time by one crawler)", "mu": "1/time (pages indexed per unit time)",
         "gamma": "dimensionless (weight of starvation against loss)", "K": "pages (buffer size)",
         "digits": "significant decimal digits"}


# Cost model of the --digits route, measured on this code (2 shared cores, mpmath's
# pure-Python backend) with a safety factor of ~1.5: the mpmath route evaluates a
# K-term sum of powers ~50 times plus a ball-arithmetic proof, ~K log2 K
# multiplications whose cost grows like digits^1.55 up to ~10^4 digits and
# like digits^2.3 beyond (K = 10: 2.6 s at 10^4 digits, 14 s at 2 10^4, 69 s at 4 10^4).
# The float route's cost model is the solver's own (numeric/static/_mm1k.py: FLOAT_BYTES_PER_K, FLOAT_SECONDS_PER_K),
# one model for the CLI and the API; benchmarks/estimates.py prints it against measured runs.


def mp_seconds(K, digits: int) -> float:
    """Estimated seconds of the --digits route (K = inf costs like K = 2)."""
    k = 2 if K == math.inf else K
    d = float(digits)
    return 1.5 * k * math.log2(k + 2) * (3e-4 + 9e-8 * d**1.55 + 5e-11 * d**2.3)


def check_cost(K, digits) -> None:
    """Refuse (TooLarge) before any allocation when the estimate exceeds the limits."""
    from ..numeric.static._mm1k import FLOAT_BYTES_PER_K, FLOAT_SECONDS_PER_K  # lazy: keeps `--help` free of numpy
    from ..numeric.validate import require_memory, require_seconds

    if digits is not None:
        require_seconds(mp_seconds(K, digits), "--K" if K != math.inf and K > 1000 else "--digits",
                        f"K = {K} at {digits} digits", value=K if K != math.inf and K > 1000 else digits)
    elif K != math.inf:
        require_memory(FLOAT_BYTES_PER_K * K, "--K", f"K = {K} in float64 ({FLOAT_BYTES_PER_K} bytes per K)", value=K)
        require_seconds(FLOAT_SECONDS_PER_K * K, "--K", f"K = {K} in float64", value=K)


FLOAT_HINT = "in float64; use --digits D (e.g. 30) for the high-precision route"


def check_float_range(values: dict, hint: str = FLOAT_HINT) -> None:
    """The float64 route needs normal numbers and an exactly countable N:
    lam, mu, gamma >= the smallest normal double, mu/lam <= 2**53 (N = rho mu/lam
    is an integer), gamma/mu a normal double.  Outside, --digits works."""
    import sys

    from ..numeric.errors import InvalidInput

    tiny = sys.float_info.min
    for name, v in values.items():
        if v < tiny:
            raise InvalidInput(f"--{name}", f"must be >= {tiny:.3g} (a normal double) {hint}", value=v)
    if not values["mu"] / values["lam"] <= 2.0**53:
        raise InvalidInput("--lam", f"mu/lam must be <= 2**53 so that N is an exact integer {hint}",
                           value=values["lam"])
    ratio = values["gamma"] / values["mu"]
    if not tiny <= ratio <= sys.float_info.max:
        raise InvalidInput("--gamma", f"gamma/mu must be a normal double {hint}", value=values["gamma"])


def run(args) -> int:
    """``crawlmath static``: the optimal static crawler count N(γ, K) of the M/M/1/K model (Liu–Nain 2005, §1.2.1,
    Prop. 1), optionally to ``--digits``; returns exit code 0.
    """
    from ..numeric.errors import InvalidInput, SolverError
    from ..numeric.static import static_optimum

    from ._common import require_finite_output

    values = {name: number(f"--{name}")(getattr(args, name)) for name in ("lam", "mu", "gamma")}
    for name, v in values.items():
        if v <= 0:
            raise InvalidInput(f"--{name}", "must be > 0", value=getattr(args, name))
    if args.K != math.inf and args.K < 2:
        raise InvalidInput("--K", "must be >= 2", value=args.K)
    if args.digits is not None and args.digits < 5:
        raise InvalidInput("--digits", "must be >= 5", value=args.digits)
    check_cost(args.K, args.digits)
    if args.digits is None:
        check_float_range(values)
        try:
            opt = static_optimum(values["lam"], values["mu"], values["gamma"], args.K)
        except SolverError as exc:
            raise SolverError(f"float64 route: {exc}; rerun with --digits D (e.g. 30)") from None
    else:
        opt = static_optimum(args.lam, args.mu, args.gamma, args.K, digits=args.digits)
    out = opt.as_json()
    require_finite_output(out)
    if args.json:
        echo = inputs(args, UNITS)
        if args.digits is None:  # the float route computed with the parsed floats; --digits with the exact decimals
            echo.update(values)
        print_json({**out, "inputs": echo})
        return 0
    k = "inf" if args.K == math.inf else args.K
    print(f"M/M/1/K static crawler count, lambda={args.lam} mu={args.mu} gamma={args.gamma} K={k}")
    print(f"  gamma(K) = mu(K+2)/K     {out['gamma_K']}")
    print(f"  rho(gamma, K)            {out['rho_opt']}")
    print(f"  N(gamma, K)   (Prop. 1)  {out['N_opt']}")
    print(f"  cost C_s      (1.4)      {out['cost_opt']}")
    print(f"  large-K rule  (1.12)     {out['N_approx']}")
    if "rho_enclosure" in out:
        print(f"  rho proved in            [{out['rho_enclosure'][0]}, {out['rho_enclosure'][1]}]")
    print(f"  method                   {out['method']}")
    return 0
