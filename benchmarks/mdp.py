"""Timings of the dynamic crawler MDP solvers on the paper's 57 instances.

All 54 rows of Liu–Nain Tables 1.2 (N = N_s) and 1.3 (N chosen not to bind)
plus Figures 1.5–1.7 (N = 16), each solved

- exactly (policy iteration, sparse LU evaluation),
- by relative value iteration (Prop. 6, τ = 0.99999, stop at 1e-5),
- by pymdptoolbox's RelativeValueIteration when installed (not a dependency:
  ``pip install pymdptoolbox``), on the same sparse matrices with rewards −c
  (it maximises) and every action made available (a disallowed action gets
  the allowed action's row, which changes nothing).

Prints one line per instance and the totals.  Run: ``python benchmarks/mdp.py``
(``--no-toolbox`` to skip the comparison, ``--quick`` for the figures only).

``--storm``: the anchor.  On the figure instances (Figs 1.5–1.7) the
``--digits`` route (:func:`certified_gain` at 30 digits after policy
iteration) against the Storm model checker's exact long-run average
``R{"cost"}min=? [ LRA ]`` (stormpy, not a dependency: ``pip install stormpy``;
skipped with a message when missing), Storm optimising the MDP itself from a
PRISM text written here from the rules of §1.2.2; both values, the digits
agreed, whether Storm's rational equals :func:`gain_exact`'s, and the time
ratio.  ``--scale``: the two large instances of issue 15 (λ = 0.05, K = 120,
N = 480 and K = 60, N = 240), old float route against the certified route
(gain, bounds, relative width, time) and the ``--digits`` 20 / 30 times.

``--docs DIR`` writes the Storm anchor's section of the performance page (it implies ``--storm``):

    python benchmarks/mdp.py --storm --docs docs/performance
"""
from __future__ import annotations

import sys
import time
from fractions import Fraction
from pathlib import Path

import mpmath
import numpy as np
import scipy.sparse as sps

from crawlmath.numeric import mdp as M
from crawlmath.numeric.tolerance import digits_agreed
from crawlmath.proofs.tables.liu_nain_dynamic import TABLE_1_2, TABLE_1_3, parse

sys.path.insert(0, str(Path(__file__).resolve().parent))
from docs_output import Page, run  # noqa: E402 - the sibling helper


def instances(quick: bool):
    for g in (1.0, 1.4, 2.0):
        yield "fig", 0.1, 5, g, 16
    if quick:
        return
    for table, text in (("1.2", TABLE_1_2), ("1.3", TABLE_1_3)):
        for row in parse(text):
            lam, K, g = float(row["lam"]), int(row["K"]), float(row["gamma"])
            yield table, lam, K, g, (M.static_count(lam, 1.0, K, g)[0] if table == "1.2" else "auto")


def toolbox_rvi(m: M.CrawlerMDP, epsilon: float):
    import mdptoolbox.mdp as tb

    P, R = [], np.empty((m.n, 2))
    for a in (0, 1):
        other = 1 - a
        ok = m.allowed[:, a]
        rows = np.where(ok[:, None], 1.0, 0.0)
        Pa = sps.diags(rows.ravel()) @ m.P[a] + sps.diags(1.0 - rows.ravel()) @ m.P[other]
        P.append(Pa.tocsr())
        R[:, a] = -m.cost
    solver = tb.RelativeValueIteration(P, R, epsilon=epsilon, max_iter=10**6)
    t = time.perf_counter()
    solver.run()
    return -solver.average_reward, solver.iter, time.perf_counter() - t


def prism_program(lam: float, mu: float, K: int, N: int, gamma: float) -> str:
    """The crawler MDP of §1.2.2 (corrected law) as a PRISM text: states (q, r, s), actions a = 0/1 per event
    type with the allowed sets A_x, the cost (1.13) as state rewards, exact rational constants."""
    def rational(x: float) -> str:
        f = Fraction(str(x))
        return f"{f.numerator}/{f.denominator}"

    def update(qp: str, rp: str) -> str:
        # next event type from the post-decision (q', r'), as in CrawlerMDP.successors
        return (f"(({qp})>0 ? mu : 0)/nu : (q'={qp})&(r'={rp})&(s'=0) + lam*({rp})/nu : (q'={qp})&(r'={rp})&(s'=1) + "
                f"(lam*(N-({rp})) + (({qp})=0 ? mu : 0))/nu : (q'={qp})&(r'={rp})&(s'=2)")

    return "\n".join([
        "mdp", f"const double lam = {rational(lam)};", f"const double mu = {rational(mu)};",
        f"const double gamma = {rational(gamma)};", f"const int K = {K};", f"const int N = {N};",
        "formula nu = lam*N + mu;", "module crawler", "  q : [0..K] init 1;", "  r : [0..N] init 1;", "  s : [0..2] init 1;",
        f"  [d0] s=0 & q>0 & !(q=1 & r=0) -> {update('q-1', 'r')};",
        f"  [d1] s=0 & q>0 -> {update('q-1', 'min(r+1,N)')};",
        f"  [a0] s=1 & r>0 -> {update('min(q+1,K)', 'r-1')};",
        f"  [a1] s=1 & r>0 -> {update('min(q+1,K)', 'r')};",
        f"  [f0] s=2 & !(q=0 & r=0) -> {update('q', 'r')};",
        "endmodule", 'rewards "cost"', "  q=0 : gamma;", "  q=K & s=1 : nu;", "endrewards"])


def storm_exact_gain(lam: float, mu: float, K: int, N: int, gamma: float) -> tuple[Fraction, int, float]:
    """(optimal long-run average cost as a Fraction, states built, seconds) from Storm in exact mode."""
    import tempfile

    import stormpy

    with tempfile.NamedTemporaryFile("w", suffix=".prism", delete=False) as f:
        f.write(prism_program(lam, mu, K, N, gamma))
    t = time.perf_counter()
    program = stormpy.parse_prism_program(f.name)
    props = stormpy.parse_properties('R{"cost"}min=? [ LRA ]', program)
    model = stormpy.build_model[stormpy.Rational](program, props)
    result = stormpy.model_checking(model, props[0], environment=stormpy.environments.exact())
    value = result.get_value(model.initial_states[0])
    seconds = time.perf_counter() - t
    return Fraction(str(value)), model.nr_states, seconds


PAGE = dict(
    name="mdp_storm", title="MDP gain to 30 digits against Storm's exact mode (Liu–Nain Figs 1.5–1.7)",
    what="The `--digits 30` route (`certified_gain` after policy iteration) against the Storm model checker's exact "
         "long-run average `R{\"cost\"}min=? [ LRA ]`, Storm optimising the MDP itself from a PRISM text written "
         "from the rules of §1.2.2 (λ = 0.1, μ = 1; the figures' K = 5, N = 16 by default), wall seconds, medians of `--repeat` runs "
         "alternated in one process. Ratio = crawlmath / Storm; = exact says whether Storm's rational equals "
         "`gain_exact`'s.",
    columns=["γ", "K, N", "states (Storm)", "crawlmath (30 digits)", "Storm (exact, 30 digits)", "digits agreed", "= exact",
             "crawlmath (s)", "Storm (s)", "ratio"],
    x_label="γ", y_label="seconds", log=(False, True))


def storm_anchor(page: Page, K: int = 5, N: int = 16, digits: int = 30, repeat: int = 3) -> None:
    """Figs 1.5–1.7 (K = 5, N = 16; smaller for a quick check): our --digits route against Storm's exact LRA (see
    the module docstring)."""
    try:
        import stormpy  # noqa: F401
    except ImportError:
        print("stormpy not installed (pip install stormpy): Storm anchor skipped")
        page.note = "stormpy is not installed (`pip install stormpy`): Storm was not run and nothing was measured."
        return
    print(f"\nStorm anchor (exact mode) vs crawlmath --digits {digits} on Figs 1.5-1.7 (lam=0.1, mu=1, K={K}, N={N})")
    M.certified_gain(M.CrawlerMDP(0.1, 1.0, 2, 3, 1.0), M.policy_iteration(M.CrawlerMDP(0.1, 1.0, 2, 3, 1.0)).policy,
                     digits=digits)  # warm-up: the first call in a process loads the compiled kernels
    print(f"{'gamma':>5} {'ours (' + str(digits) + ' digits)':>36} {'Storm (exact rational)':>36} {'agreed':>6} "
          f"{'=exact':>6} {'ours s':>7} {'Storm s':>8} {'Storm/ours':>10}")
    for gamma in (1.0, 1.4, 2.0):
        m = M.CrawlerMDP(0.1, 1.0, K, N, gamma)
        ours, theirs = [], []
        for _ in range(repeat):  # alternate the two routes in one process; medians are reported
            t = time.perf_counter()
            cert = M.certified_gain(m, M.policy_iteration(m).policy, digits=digits)
            ours.append(time.perf_counter() - t)
            storm, states, seconds = storm_exact_gain(0.1, 1.0, K, N, gamma)
            theirs.append(seconds)
        ours_s, storm_s = float(np.median(ours)), float(np.median(theirs))
        exact = M.gain_exact(m, cert.policy).gain
        with mpmath.workdps(digits + 20):
            a = mpmath.mpf(cert.value.numerator) / cert.value.denominator
            b = mpmath.mpf(storm.numerator) / storm.denominator
            agreed = digits_agreed(a, b)
            storm_text = mpmath.nstr(b, digits)
        print(f"{gamma:5g} {cert.text:>36} {storm_text:>36} {min(agreed, digits + 2):6.0f} {str(storm == exact):>6} "
              f"{ours_s:7.2f} {storm_s:8.2f} {storm_s / ours_s:10.0f}   ({states} states built by Storm; "
              f"median of {repeat})", flush=True)
        page.rows.append([f"{gamma:g}", f"{K}, {N}", str(states), cert.text, storm_text, f"{min(agreed, digits + 2):.0f}",
                          str(storm == exact), f"{ours_s:.3f}", f"{storm_s:.2f}", f"{ours_s / storm_s:.3g}"])
        page.curve("crawlmath --digits 30").points.append((gamma, ours_s))
        page.curve("Storm exact LRA").points.append((gamma, storm_s))


def scale_section() -> None:
    """Issue 15's large instances: the old float route against the certified one."""
    print("\nScale (lam=0.05, mu=1, gamma=1): old float policy iteration vs certified (exact improvement, GTH, "
          "exact Odoni bounds)")
    print(f"{'K':>4} {'N':>4} {'states':>7} {'route':>9} {'gain':>12} {'lower':>12} {'upper':>12} {'rel width':>9} "
          f"{'changes':>7} {'s':>7}")
    for K, N in ((60, 240), (120, 480)):
        m = M.CrawlerMDP(0.05, 1.0, K, N, 1.0)
        t = time.perf_counter()
        old = M.policy_iteration(m, certify=False)
        t_old = time.perf_counter() - t
        t = time.perf_counter()
        new = M.policy_iteration(m)
        t_new = time.perf_counter() - t
        for name, sol, sec in (("float", old, t_old), ("certified", new, t_new)):
            lo, hi = sol.gain_bounds
            width = (hi - lo) / abs(sol.gain) if sol.gain else float("inf")
            changes = sol.certificate.changes if sol.certificate else 0
            print(f"{K:4d} {N:4d} {m.n:7d} {name:>9} {sol.gain:12.5e} {lo:12.5e} {hi:12.5e} {width:9.1e} {changes:7d} "
                  f"{sec:7.1f}", flush=True)
        for digits in (20, 30):
            t = time.perf_counter()
            c = M.certified_gain(m, new.policy, digits=digits)
            print(f"{'':4} {'':4} {'':7} {'--digits':>9} {digits}: {c.text}  in {time.perf_counter() - t:.1f} s "
                  f"(after policy iteration), bounds relative width "
                  f"{float((c.policy_bounds[1] - c.policy_bounds[0]) / c.value):.1e}", flush=True)


def options(parser) -> None:
    parser.add_argument("--no-toolbox", action="store_true")
    parser.add_argument("--quick", action="store_true")
    parser.add_argument("--epsilon", type=float, default=1e-8, help="pymdptoolbox span stopping threshold")
    parser.add_argument("--storm", action="store_true", help="only the Storm anchor on Figs 1.5-1.7")
    parser.add_argument("--repeat", type=int, default=3, help="runs of each side of the Storm anchor (medians)")
    parser.add_argument("--K", type=int, default=5, help="the Storm anchor's buffer (Figs 1.5-1.7: 5)")
    parser.add_argument("--N", type=int, default=16, help="the Storm anchor's pages (Figs 1.5-1.7: 16)")
    parser.add_argument("--scale", action="store_true", help="only the large instances of issue 15")


def measure(args, page: Page) -> None:
    if args.docs is not None:
        args.storm = True  # the docs section is the Storm anchor
    if args.storm or args.scale:
        if args.storm:
            storm_anchor(page, args.K, args.N, repeat=args.repeat)
        if args.scale:
            scale_section()
        return
    have_tb = not args.no_toolbox
    if have_tb:
        try:
            import mdptoolbox.mdp  # noqa: F401
        except ImportError:
            print("pymdptoolbox not installed: comparison skipped")
            have_tb = False
    tot = {"exact": 0.0, "rvi": 0.0, "tb": 0.0}
    worst_rvi, worst_tb, faster, count = 0.0, 0.0, 0, 0
    print(f"{'inst':5} {'lam':>5} {'K':>3} {'gamma':>5} {'N':>4} {'states':>6} {'gain':>12} {'exact s':>8} "
          f"{'rvi s':>7} {'rvi it':>6}" + (f" {'tb s':>7} {'tb it':>6} {'tb/ex':>6} {'|tb-ex|':>8}" if have_tb else ""))
    for tag, lam, K, g, N in instances(args.quick):
        t = time.perf_counter()
        if N == "auto":
            N, sol = M.auto_N(lam, 1.0, K, g)
        else:
            sol = M.policy_iteration(M.CrawlerMDP(lam, 1.0, K, N, g))
        te = time.perf_counter() - t
        m = sol.mdp
        t = time.perf_counter()
        r = M.relative_value_iteration(m, tau=0.99999)
        tr = time.perf_counter() - t
        tot["exact"] += te
        tot["rvi"] += tr
        worst_rvi = max(worst_rvi, abs(r.gain - sol.gain) / sol.gain)
        line = (f"{tag:5} {lam:5g} {K:3d} {g:5g} {N:4d} {m.n:6d} {sol.gain:12.9f} {te:8.3f} {tr:7.3f} {r.iterations:6d}")
        if have_tb:
            gtb, itb, ttb = toolbox_rvi(m, args.epsilon)
            tot["tb"] += ttb
            worst_tb = max(worst_tb, abs(gtb - sol.gain) / sol.gain)
            faster += te < ttb
            line += f" {ttb:7.3f} {itb:6d} {ttb / te:6.1f} {abs(gtb - sol.gain):8.1e}"
        count += 1
        print(line, flush=True)
    print(f"\n{count} instances: exact (policy iteration) {tot['exact']:.2f} s total, RVI (tau=0.99999) {tot['rvi']:.2f} s total; "
          f"max relative |RVI - exact| = {worst_rvi:.1e}")
    if have_tb:
        print(f"pymdptoolbox RelativeValueIteration (epsilon={args.epsilon:g}): {tot['tb']:.2f} s total, "
              f"speed ratio toolbox/exact {tot['tb'] / tot['exact']:.1f}x overall, exact faster on {faster}/{count} instances; "
              f"max relative |toolbox - exact| = {worst_tb:.1e}")


if __name__ == "__main__":
    sys.exit(run(__file__, __doc__, measure, PAGE, options))
