"""``crawlmath mdp``: the optimal dynamic crawler-activation policy (Liu–Nain §1.2.2)."""
from __future__ import annotations

from ._common import Progress, add_progress_option, inputs, integer, number, print_json, progress_wanted, require_finite_output

NAME = "mdp"
HELP = "Solve the dynamic crawler-activation MDP (Liu–Nain §1.2.2): optimal cost, crawler counts, switching curves."
EXAMPLE = """
crawlmath mdp --lam 0.1 --mu 1 --K 5 --N 16 --gamma 1            # Fig 1.5: cost 0.20907
crawlmath mdp --lam 0.05 --mu 1 --K 15 --N auto --gamma 2.4 --json # Table 1.3 row, N unrestricted
crawlmath mdp --lam 0.1 --mu 1 --K 5 --N 16 --gamma 2 --method rvi            # Fig 1.7: 256 iterations
crawlmath mdp --lam 0.1 --mu 1 --K 5 --N 16 --gamma 2 --method rvi --reference 0,16,2 --h0 cost
crawlmath mdp --lam 0.1 --mu 1 --K 5 --N 16 --gamma 1.4 --digits 35  # gain to 35 digits, two routes
crawlmath mdp --lam 0.05 --mu 1 --K 120 --N 480 --gamma 1 --digits 30  # a tiny gain (2.1e-52), certified
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
                   help="also give the gain to D significant digits (refined stationary law inside exact Odoni bounds "
                        "10^-(D+2) wide; cross-checked in exact rationals when the recurrent class is small)")
    p.add_argument("--json", action="store_true", help="print one JSON object (the inputs echoed under \"inputs\")")
    add_progress_option(p)


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
    if args.digits is not None and not 1 <= args.digits <= MAX_DIGITS:
        raise InvalidInput("--digits", f"must lie in 1..{MAX_DIGITS} (what {REFINE_MAX_STEPS} steps of the exact "
                                       "bias refinement deliver)", value=args.digits)
    check_cost(M, args.K, args.N, args.digits)
    M.require_uniformisable(args.lam, args.mu, 10 if args.N == "auto" else args.N, ("--lam", "--mu"))
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
    cert = rep.solution.certificate if args.method == "exact" else None
    if cert is not None:
        out["gain_bounds_relative_width"] = cert.relative_width
        out["exact_improvement"] = {"changes": cert.changes, "largest_remaining": cert.improvement}
    hp = None
    if args.digits:
        hp = _high_precision(M, rep, args.digits, progress_wanted(args))
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
    if cert is not None:
        print(f"gain bounds       [{rep.gain_bounds[0]:.10g}, {rep.gain_bounds[1]:.10g}]  (valid: min T(h) - h <= θ* <= "
              f"max over the recurrent class of c + P h - h, exact rationals; relative width {cert.relative_width:.1e})")
        if cert.changes:
            print(f"exact improvement {cert.changes} actions changed after float policy iteration (float ties hid them)")
    else:
        print(f"gain bounds       [{rep.gain_bounds[0]:.10g}, {rep.gain_bounds[1]:.10g}]  (min/max of T(h) - h)")
    print(f"starvation, loss  {rep.starvation:.6g}, {rep.loss_rate:.6g}")
    print(f"N_min, N-bar, N_max  {rep.n_min}, {rep.n_mean:.2f}, {rep.n_max}   (largest r visited: {rep.n_max_recurrent})")
    print(f"switching curve   {'monotone' if rep.monotone else 'NOT a monotone switching curve'}")
    print(f"  f0(r), r=0..N   {rep.f0}")
    print(f"  f1(r), r=0..N   {rep.f1}")
    if hp:
        print(f"gain ({hp['digits']} digits)  {hp['value']}   [{hp['method']}]")
        print(f"  certified in    [{hp['bounds'][0]}, {hp['bounds'][1]}]")
    return 0


# Measured on this code (2 shared cores): policy iteration with the exact
# certification needs ~2 KB and ~2e-4 s per state (K = 120, N = 480: 174k
# states, ~0.3 GiB, ~30 s); each --digits step of the exact bias refinement
# (~50 bits) costs ~1e-5 s per state, and the steps grow with the digits
# asked and with -log10 of the gain.  benchmarks/estimates.py (issue 33)
# measured K = N = 40, 80, 120 (5k-44k states): 1.9 KB and 1e-4 to 4e-4 s per
# state; 3e-4 s keeps the estimate within 3x of each.
BYTES_PER_STATE, SECONDS_PER_STATE = 4000, 3e-4
DIGITS_SECONDS_PER_STATE_STEP = 3e-5


# numeric.mdp.refine_bias stops after 40 steps (max_steps); at ~50 bits a step
# (measured: D = 550 delivered, 600 not, on the Fig 1.5 instance) the digits
# it can deliver are those with _refinement_steps(D) <= 40, i.e. D <= 509.
REFINE_MAX_STEPS = 40
MAX_DIGITS = 500


def _refinement_steps(digits: int) -> int:
    # 50 bits of the bias per step, for D digits of a gain that may be 10^-60 small
    return (digits + 60) * 10 // 3 // 50 + 3


def check_cost(M, K: int, N, digits) -> None:
    """Refuse (TooLarge) before building the MDP: 3(K+1)(N+1) states (N = 'auto'
    starts at 2 N_s + 10 >= 10), blaming the argument that makes it large."""
    from ..numeric.validate import require_memory, require_seconds

    n_lo = 10 if N == "auto" else N
    states = 3 * (K + 1) * (n_lo + 1)
    blame, value = ("--K", K) if N == "auto" or K >= N else ("--N", N)
    what = f"3(K+1)(N+1) = {states} states" + (" (N = auto, N >= 10)" if N == "auto" else "")
    if states > M.MAX_STATES:
        from ..numeric.errors import TooLarge

        raise TooLarge(blame, f"{what} exceed the solver's limit {M.MAX_STATES}", value=value)
    require_memory(BYTES_PER_STATE * states * (1 + (digits or 0) / 100), blame, what, value=value)
    require_seconds(SECONDS_PER_STATE * states, blame, what, value=value)
    if digits:
        seconds = DIGITS_SECONDS_PER_STATE_STEP * states * _refinement_steps(digits) * (1 + digits / 100)
        require_seconds(seconds, "--digits", f"{digits} digits on {what}", value=digits)


def _high_precision(M, rep, digits: int, show_progress: bool) -> dict:
    """The gain to ``digits`` digits by :func:`certified_gain` (two routes inside exact bounds), and
    in exact rationals (python-flint) when the recurrent class is small enough."""
    import mpmath

    from ..numeric.errors import TooLarge
    from ..numeric.tolerance import digits_agreed

    sol = rep.solution
    with Progress("mdp: exact bias refinement", enabled=show_progress, unit="bit") as bar:
        # under --method rvi the digits are those of the RVI policy's gain, as before
        c = M.certified_gain(sol.mdp, sol.policy, digits=digits, improve=sol.method != "rvi", progress=bar)
    method = c.method
    with mpmath.workdps(digits + 10):
        lo, hi = (mpmath.nstr(mpmath.mpf(b.numerator) / b.denominator, digits + 3) for b in c.policy_bounds)
        try:
            b = M.gain_exact(sol.mdp, c.policy)
            agreed = digits_agreed(mpmath.mpf(c.value.numerator) / c.value.denominator,
                                   mpmath.mpf(b.gain.numerator) / b.gain.denominator)
            method += f"; exact rational (python-flint) agrees to {min(agreed, digits + 2):.0f} digits"
        except TooLarge:
            method += "; recurrent class too large for the exact-rational cross-check"
    return {"value": c.text, "digits": digits, "method": method, "bounds": [lo, hi],
            "relative_width": float((c.policy_bounds[1] - c.policy_bounds[0]) / c.value)}
