"""``crawlmath static``: the optimal number of always-active crawlers (Liu–Nain §1.2.1)."""
from __future__ import annotations

import math

from ._common import integer, json_safe, number, print_json

NAME = "static"
HELP = "Optimal static crawler count N(gamma, K) for the M/M/1/K model (Liu–Nain 2005, §1.2.1, Prop. 1)."
EXAMPLE = """
crawlmath static --lam 0.01 --mu 1 --gamma 0.5 --K 10
crawlmath static --lam 0.05 --mu 1 --gamma 2.4 --K 15 --digits 40 --json
crawlmath static --lam 0.01 --mu 1 --gamma 1.2 --K inf
"""


def add_arguments(p):
    p.add_argument("--lam", required=True, help="page rate of one crawler, lambda > 0")
    p.add_argument("--mu", required=True, help="indexing rate, mu > 0")
    p.add_argument("--gamma", required=True, help="weight of starvation against loss, gamma > 0")
    p.add_argument("--K", required=True, type=integer("--K", allow_inf=True), help="buffer size, integer >= 2, or 'inf'")
    p.add_argument("--digits", type=integer("--digits"), default=None,
                   help="compute in mpmath with this many significant digits (inputs read as exact decimals) "
                        "and prove an enclosure of rho with python-flint ball arithmetic")
    p.add_argument("--json", action="store_true", help="print JSON with keys rho_opt, N_opt, cost_opt, N_approx, gamma_K")


def run(args) -> int:
    from ..numeric.errors import InvalidInput
    from ..numeric.static_mm1k import static_optimum

    values = {name: number(f"--{name}")(getattr(args, name)) for name in ("lam", "mu", "gamma")}
    for name, v in values.items():
        if v <= 0:
            raise InvalidInput(f"--{name}", "must be > 0", value=getattr(args, name))
    if args.K != math.inf and args.K < 2:
        raise InvalidInput("--K", "must be >= 2", value=args.K)
    if args.digits is None:
        opt = static_optimum(values["lam"], values["mu"], values["gamma"], args.K)
    else:
        if args.digits < 5:
            raise InvalidInput("--digits", "must be >= 5", value=args.digits)
        opt = static_optimum(args.lam, args.mu, args.gamma, args.K, digits=args.digits)
    out = opt.as_json()
    if args.json:
        print_json({k: json_safe(v) for k, v in out.items()})
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
