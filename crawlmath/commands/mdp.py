"""``crawlmath mdp``: the optimal dynamic crawler-activation policy (Liu–Nain §1.2.2)."""
from __future__ import annotations

from ._common import integer, json_safe, number, print_json

NAME = "mdp"
HELP = "Solve the dynamic crawler-activation MDP (Liu–Nain §1.2.2): optimal cost, crawler counts, switching curves."
EXAMPLE = """
crawlmath mdp --lam 0.1 --mu 1 --K 5 --N 16 --gamma 1            # Fig 1.5: cost 0.20907
crawlmath mdp --lam 0.05 --mu 1 --K 15 --N auto --gamma 2.4 --json # Table 1.3 row, N unrestricted
crawlmath mdp --lam 0.1 --mu 1 --K 5 --N 16 --gamma 2 --method rvi --tau 0.99999
crawlmath mdp --lam 0.1 --mu 1 --K 5 --N 16 --gamma 1.4 --digits 35  # gain to 35 digits, two routes
"""


def _N(text: str):
    if text.strip().lower() == "auto":
        return "auto"
    return integer("--N")(text)


_N.__name__ = "--N (an integer or 'auto')"


def add_arguments(p):
    p.add_argument("--lam", type=number("--lam"), required=True, help="page rate λ of one active crawler")
    p.add_argument("--mu", type=number("--mu"), default=1.0, help="indexing rate μ (default 1)")
    p.add_argument("--K", type=integer("--K"), required=True, help="buffer size K >= 2 (including the page in service)")
    p.add_argument("--N", type=_N, required=True, help="available crawlers N >= 1, or 'auto' (large enough not to bind)")
    p.add_argument("--gamma", type=number("--gamma"), required=True, help="weight γ > 0 of the starvation probability")
    p.add_argument("--method", choices=("exact", "rvi"), default="exact",
                   help="exact: policy iteration (default); rvi: relative value iteration of Prop. 6")
    p.add_argument("--tau", type=number("--tau"), default=0.99999, help="τ in (0,1) of Prop. 6 (rvi only; default 0.99999)")
    p.add_argument("--digits", type=integer("--digits"), default=None,
                   help="also give the gain to D significant digits (mixed-precision refinement, cross-checked exactly when small)")
    p.add_argument("--json", action="store_true", help="print one JSON object")


def run(args) -> int:
    from ..numeric import mdp as M
    from ..numeric.errors import InvalidInput
    from ..numeric.validate import require_int, require_open_unit, require_positive

    for name in ("lam", "mu", "gamma"):
        require_positive(getattr(args, name), f"--{name}")
    require_int(args.K, "--K", minimum=2)
    if args.N != "auto":
        require_int(args.N, "--N", minimum=1)
    require_open_unit(args.tau, "--tau")
    if args.digits is not None and not 1 <= args.digits <= 1000:
        raise InvalidInput("--digits", "must lie in 1..1000", value=args.digits)

    rep = M.analyse(args.lam, args.mu, args.K, args.gamma, args.N, method=args.method, tau=args.tau)
    out = rep.as_json()
    if args.method == "rvi":
        out["tau"] = args.tau
        out["reference_state"] = list(rep.rvi.reference)
    hp = None
    if args.digits:
        hp = _high_precision(M, rep, args.digits)
        out["gain_hp"] = hp
    if args.json:
        print_json({k: json_safe(v) for k, v in out.items()})
        return 0
    print(f"lam={rep.lam:g} mu={rep.mu:g} K={rep.K} gamma={rep.gamma:g} N={rep.N}{' (auto)' if args.N == 'auto' else ''}")
    print(f"gain C_d          {rep.gain:.10g}   ({rep.method}, {rep.iterations} iterations, residual {rep.residual:.1e})")
    print(f"gain bounds       [{rep.gain_bounds[0]:.10g}, {rep.gain_bounds[1]:.10g}]  (min/max of T(h) - h)")
    print(f"starvation, loss  {rep.starvation:.6g}, {rep.loss_rate:.6g}")
    print(f"N_min, N-bar, N_max  {rep.n_min}, {rep.n_mean:.2f}, {rep.n_max}   (largest r visited: {rep.n_max_recurrent})")
    print(f"switching curve   {'monotone' if rep.monotone else 'NOT a monotone switching curve'}")
    print(f"  f0(r), r=0..N   {rep.f0}")
    print(f"  f1(r), r=0..N   {rep.f1}")
    if hp:
        print(f"gain ({hp['digits']} digits)  {hp['value']}   [{hp['method']}]")
    return 0


def _high_precision(M, rep, digits: int) -> dict:
    import mpmath

    from ..numeric.errors import TooLarge
    from ..numeric.tolerance import digits_agreed

    sol = rep.solution
    a = M.gain_hp(sol.mdp, sol.policy, dps=digits + 5)
    with mpmath.workdps(digits + 5):
        value = mpmath.nstr(a.gain, digits)
        method, agreed = a.method, None
        try:
            b = M.gain_exact(sol.mdp, sol.policy)
            bm = mpmath.mpf(b.gain.numerator) / b.gain.denominator
            agreed = digits_agreed(a.gain, bm)
            value = mpmath.nstr(bm, digits)
            method = f"{b.method}; refinement agrees to {min(agreed, digits + 5):.0f} digits"
        except TooLarge:
            method += " (recurrent class too large for the exact cross-check)"
    return {"value": value, "digits": digits, "method": method}
