"""``crawlmath mdp``: the optimal dynamic crawler-activation policy (Liu–Nain §1.2.2)."""
from __future__ import annotations

from ._common import inputs, integer, number, print_json, require_finite_output

NAME = "mdp"
HELP = "Solve the dynamic crawler-activation MDP (Liu–Nain §1.2.2): optimal cost, crawler counts, switching curves."
EXAMPLE = """
crawlmath mdp --lam 0.1 --mu 1 --K 5 --N 16 --gamma 1            # Fig 1.5: cost 0.20907
crawlmath mdp --lam 0.05 --mu 1 --K 15 --N auto --gamma 2.4 --json # Table 1.3 row, N unrestricted
crawlmath mdp --lam 0.1 --mu 1 --K 5 --N 16 --gamma 2 --method rvi            # Fig 1.7: 256 iterations
crawlmath mdp --lam 0.1 --mu 1 --K 5 --N 16 --gamma 2 --method rvi --reference 0,16,2 --h0 cost
crawlmath mdp --lam 0.1 --mu 1 --K 5 --N 16 --gamma 1.4 --digits 35  # gain to 35 digits, two routes
"""


def _N(text: str):
    if text.strip().lower() == "auto":
        return "auto"
    return integer("--N")(text)


_N.__name__ = "--N (an integer or 'auto')"


def _state(text: str) -> tuple[int, int, int]:
    parts = text.split(",")
    if len(parts) != 3:
        raise ValueError(text)
    return tuple(integer("--reference")(t) for t in parts)


_state.__name__ = "--reference (a state q,r,s)"


def add_arguments(p):
    """Register the options of ``crawlmath mdp`` on the argparse parser ``p``."""
    p.add_argument("--lam", type=number("--lam"), required=True, help="page rate λ of one active crawler")
    p.add_argument("--mu", type=number("--mu"), default=1.0, help="indexing rate μ (default 1)")
    p.add_argument("--K", type=integer("--K"), required=True, help="buffer size K >= 2 (including the page in service)")
    p.add_argument("--N", type=_N, required=True, help="available crawlers N >= 1, or 'auto' (large enough not to bind)")
    p.add_argument("--gamma", type=number("--gamma"), required=True, help="weight γ > 0 of the starvation probability")
    p.add_argument("--method", choices=("exact", "rvi"), default="exact",
                   help="exact: policy iteration (default); rvi: relative value iteration of Prop. 6")
    p.add_argument("--tau", type=number("--tau"), default=0.99999, help="τ in (0,1) of Prop. 6 (rvi only; default 0.99999)")
    p.add_argument("--reference", type=_state, default=None, metavar="Q,R,S",
                   help="x̂ of Prop. 6 (rvi only; default 1,1,1, the reading that reproduces the paper's counts and C_d)")
    p.add_argument("--h0", choices=("zero", "cost"), default="zero",
                   help="h_0 of Prop. 6 (rvi only): zero (default) or the one-step cost c")
    p.add_argument("--digits", type=integer("--digits"), default=None,
                   help="also give the gain to D significant digits (mixed-precision refinement, cross-checked exactly when small)")
    p.add_argument("--json", action="store_true", help="print one JSON object (the inputs echoed under \"inputs\")")


# units of the arguments echoed under "inputs" (Liu–Nain §1.2.2)
UNITS = {"lam": "1/time (pages fetched per unit time by one active crawler)", "mu": "1/time (pages indexed per unit time)",
         "K": "pages (buffer size)", "N": "crawlers", "gamma": "dimensionless (weight of starvation)",
         "tau": "dimensionless (step of Prop. 6)", "reference": "state (q, r, s)", "digits": "significant decimal digits"}


def run(args) -> int:
    """``crawlmath mdp``: solve the crawler-activation MDP of Liu–Nain §1.2.2 (policy iteration or RVI, optionally the
    gain to ``--digits``) and print the cost, crawler counts and switching curves; returns exit code 0.
    """
    from ..numeric import mdp as M
    from ..numeric.errors import InvalidInput, TooLarge
    from ..numeric.validate import require_int, require_open_unit, require_positive
    from .static import check_float_range

    for name in ("lam", "mu", "gamma"):
        require_positive(getattr(args, name), f"--{name}")
    check_float_range({name: getattr(args, name) for name in ("lam", "mu", "gamma")},
                      hint="(the MDP is built and solved in float64)")
    require_int(args.K, "--K", minimum=2)
    if args.N != "auto":
        require_int(args.N, "--N", minimum=1)
    require_open_unit(args.tau, "--tau")
    if args.method == "rvi" and not args.tau > M.RVI_STOP:
        # Prop. 6 moves h by tau (T(h) - h - g): with tau <= the stopping threshold
        # max|dh/h| < 1e-5 can hold at the first step and certifies nothing.
        raise InvalidInput("--tau", f"must be > {M.RVI_STOP:g} (the stopping threshold of Prop. 6) for rvi",
                           value=args.tau)
    if args.method != "rvi" and (args.reference is not None or args.h0 != "zero"):
        raise InvalidInput("--reference" if args.reference is not None else "--h0", "applies to --method rvi only")
    if args.digits is not None and not 1 <= args.digits <= 1000:
        raise InvalidInput("--digits", "must lie in 1..1000", value=args.digits)
    check_cost(M, args.K, args.N, args.digits)
    try:
        rep = M.analyse(args.lam, args.mu, args.K, args.gamma, args.N, method=args.method, tau=args.tau,
                        reference=args.reference, h0=args.h0)
    except TooLarge as exc:
        if args.N != "auto":
            raise
        raise TooLarge("--N", f"auto: the N that does not bind is too large: {exc}", value="auto") from None
    out = rep.as_json()
    if args.method == "rvi":
        out["tau"] = args.tau
        out["reference_state"] = list(rep.rvi.reference)
        out["h0"] = rep.rvi.h0
        out["evaluations_of_T"] = rep.rvi.evaluations
    hp = None
    if args.digits:
        hp = _high_precision(M, rep, args.digits)
        out["gain_hp"] = hp
    require_finite_output(out)
    if args.json:
        print_json({**out, "inputs": inputs(args, UNITS)})
        return 0
    print(f"lam={rep.lam:g} mu={rep.mu:g} K={rep.K} gamma={rep.gamma:g} N={rep.N}{' (auto)' if args.N == 'auto' else ''}")
    print(f"gain C_d          {rep.gain:.10g}   ({rep.method}, {rep.iterations} iterations, residual {rep.residual:.1e})")
    if rep.rvi:
        print(f"RVI reading       x̂={rep.rvi.reference}, h_0={rep.rvi.h0}, τ={rep.rvi.tau:g}: stop at k={rep.rvi.iterations} "
              f"(Figs 1.5-1.7 print k), {rep.rvi.evaluations} evaluations of T (Table 1.2 prints this); C_d = T(h_k)(x̂)")
    print(f"gain bounds       [{rep.gain_bounds[0]:.10g}, {rep.gain_bounds[1]:.10g}]  (min/max of T(h) - h)")
    print(f"starvation, loss  {rep.starvation:.6g}, {rep.loss_rate:.6g}")
    print(f"N_min, N-bar, N_max  {rep.n_min}, {rep.n_mean:.2f}, {rep.n_max}   (largest r visited: {rep.n_max_recurrent})")
    print(f"switching curve   {'monotone' if rep.monotone else 'NOT a monotone switching curve'}")
    print(f"  f0(r), r=0..N   {rep.f0}")
    print(f"  f1(r), r=0..N   {rep.f1}")
    if hp:
        print(f"gain ({hp['digits']} digits)  {hp['value']}   [{hp['method']}]")
    return 0


# Measured on this code (2 shared cores): policy iteration needs ~1.8 KB and
# ~3e-5 s per state (K = 200, N = 1000: 603k states, 1.0 GiB, 20 s); the
# high-precision refinement gains >= 12 digits per step and costs ~6e-5 s per
# state and step at 100 digits, growing with the digits.  Estimates use ~3x.
BYTES_PER_STATE, SECONDS_PER_STATE = 2000, 1e-4


def _refinement_steps(digits: int) -> int:
    return digits // 12 + 4


def check_cost(M, K: int, N, digits) -> None:
    """Refuse (TooLarge) before building the MDP: 3(K+1)(N+1) states (N = 'auto'
    starts at 2 N_s + 10 >= 10), blaming the argument that makes it large."""
    from ..numeric.errors import TooLarge
    from ..numeric.validate import require_memory, require_seconds

    n_lo = 10 if N == "auto" else N
    states = 3 * (K + 1) * (n_lo + 1)
    blame, value = ("--K", K) if N == "auto" or K >= N else ("--N", N)
    what = f"3(K+1)(N+1) = {states} states" + (" (N = auto, N >= 10)" if N == "auto" else "")
    if states > M.MAX_STATES:
        raise TooLarge(blame, f"{what} exceed the solver's limit {M.MAX_STATES}", value=value)
    require_memory(BYTES_PER_STATE * states, blame, what, value=value)
    require_seconds(SECONDS_PER_STATE * states, blame, what, value=value)
    if digits:
        seconds = SECONDS_PER_STATE * states * _refinement_steps(digits) * (1 + digits / 500)
        require_seconds(seconds, "--digits", f"{digits} digits on {what}", value=digits)


def _high_precision(M, rep, digits: int) -> dict:
    import mpmath

    from ..numeric.errors import TooLarge
    from ..numeric.tolerance import digits_agreed

    sol = rep.solution
    a = M.gain_hp(sol.mdp, sol.policy, dps=digits + 5, max_steps=_refinement_steps(digits))
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
