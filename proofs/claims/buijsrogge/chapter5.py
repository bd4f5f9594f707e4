"""Buijsrogge (2014), Chapter 5: the numbers of the text (eq. (3.1) values for the five colour laws, the maximum of
g(c), p_1 of the power law) and the stationary levels of Figs 5.4 and 5.16 by simulation against the exact chain.
"""
from __future__ import annotations

import mpmath
import sympy as sp

from ....numeric import colours as nc
from ....numeric.colours import simulate
from ....numeric.generated import buijsrogge as gen
from ....numeric.tolerance import SIMULATION_SIGMAS, TWO_ROUTE_BOUND_ABS, digits_agreed, matches_printed
from ...cells import Hypothesis, Printing, convention, judge_cell
from ...registry import Method, Outcome, claim
from ._common import is_zero, src


CH5_TEXT = "Buijsrogge Ch. 5 text, eq. (3.1) values"
convention(CH5_TEXT, Printing.TRUNCATE,
           "the five eq. (3.1) values printed in Ch. 5 are the integer parts of (3.1): 95.21 -> 95, 796.73 -> 796, "
           "373.07 -> 373, 599.27 -> 599, 404.82 -> 404 (rounding would print 797 and 405)")


def _text_number(value: float, printed: str, error_bound: float) -> Outcome:
    return judge_cell(CH5_TEXT, printed, value, fmt=lambda v: f"{v:.4f}", error_bound=error_bound,
                      hypotheses=[Hypothesis("rounding to an integer", value, matches_printed(value, printed))])


def _fill_two_routes(p, K) -> tuple[float, float]:
    a = nc.initial_expected(p, K)
    with mpmath.workdps(30):
        b = float(len(p) - mpmath.fsum((1 - mpmath.mpf(float(x))) ** K for x in p))
    return a, b


for _id, _sec, _ref, _stmt, _dist, _C, _par, _K, _printed in (
    ("ch5.uniform-95", "§5.1.2", "text after Fig 5.4", "K=100, C=1000 uniform: 95 colours at t=K", "uniform", 1000, (), 100, "95"),
    ("ch5.exponential-796", "§5.2", "text after eq. (5.1)", "K=1000, λ=1000, C→∞ (C=4e4: tail < 1e-17): ≈796 colours at t=K", "geometric", 40_000, (1000.0,), 1000, "796"),
    ("ch5.normal-373", "§5.3", "text after Fig 5.10", "K=1000, C=1e5, μ ≥ 3σ, σ=100: 373 colours at t=K", "normal", 100_000, (1000.0, 100.0), 1000, "373"),
    ("ch5.poisson-599", "§5.4", "text after Fig 5.15", "K=1000, C=1e5, λ=55000: 599 colours at t=K", "poisson", 100_000, (55000.0,), 1000, "599"),
    ("ch5.powerlaw-404", "§5.5", "text after Fig 5.16", "K=1000, C=1e4, γ=1.1: 404 colours at t=K", "powerlaw", 10_000, (1.1,), 1000, "404"),
):
    def _make(dist=_dist, C=_C, par=_par, K=_K, printed=_printed):
        def check() -> Outcome:
            p = nc.colour_distribution(dist, C, *par)
            a, b = _fill_two_routes(p, K)
            if digits_agreed(a, b) < 10:
                return Outcome.failed(f"float64 {a!r} vs mpmath {b!r}")
            return _text_number(a, printed, error_bound=2 * abs(a - b) + TWO_ROUTE_BOUND_ABS)
        return check

    claim(f"buijsrogge.colours.{_id}", source=src(_sec, _ref + ", eq. (3.1)"), statement=_stmt,
          method=Method.NUMERIC_HP)(_make())


@claim("buijsrogge.colours.ch5.exponential-0.12", source=src("§5.2", "max of g(c)"),
       statement="C = λ: max difference of exponential and uniform CDFs is 1/(e-1) + ln(1-1/e) = 0.12", method=Method.SYMBOLIC)
def _g_max() -> Outcome:
    c, lam = sp.symbols("c lambda", positive=True)
    g = (1 - sp.exp(-c / lam)) / (1 - sp.exp(-1)) - c / lam
    cstar = sp.solve(sp.diff(g, c), c)[0]
    val = sp.simplify(g.subs(c, cstar))
    ok = is_zero(val - (1 / (sp.E - 1) + sp.log(1 - sp.exp(-1)))) and matches_printed(float(val), "0.12")
    return Outcome.judge(ok, f"c* = {cstar}, g(c*) = {float(val):.6f}")


@claim("buijsrogge.colours.ch5.powerlaw-0.9644", source=src("§5.5", "text after Fig 5.21"),
       statement="γ = 5, C = 1e5: the super colour has probability 0.9644", method=Method.NUMERIC_HP)
def _p1_gamma5() -> Outcome:
    a = float(nc.colour_distribution("powerlaw", 100_000, 5.0)[0])
    with mpmath.workdps(30):
        b = float(1 / (mpmath.zeta(5) - mpmath.zeta(5, 100_001)))
    return Outcome.judge(matches_printed(a, "0.9644") and digits_agreed(a, b) > 12,
                         f"p_1 = {a:.6f} (float), 1/H_C(5) = {b:.6f} (mpmath), printed 0.9644")


@claim("buijsrogge.colours.ch5.stationary-91", source=src("§5.1.2", "text after Fig 5.4"),
       statement="K=100, C=1000: ≈91 colours and P_new ≈ 91% in stationarity", method=Method.NUMERIC_HP)
def _stat_91() -> Outcome:
    mf = nc.mean_field(100, 1000)
    ex = nc.exact_stationary(nc.colour_distribution("uniform", 1000), 100)
    closed = gen.exact_colours_uniform(100, 1000)
    ok = matches_printed(mf.colours, "91") and matches_printed(100 * mf.p_new, "91") and matches_printed(ex.colours, "91")
    ok = ok and digits_agreed(ex.colours, closed) > 12
    return Outcome.judge(ok, f"mean field {mf.colours:.4f}, P_new {mf.p_new:.4f}; exact (product form, Newton) "
                         f"{ex.colours:.10f} = (KC-1)/(K+C-2) {closed:.10f}; exact P_new {ex.p_new:.4f}",
                         computed=f"{ex.colours:.4f}")


@claim("buijsrogge.colours.sim-vs-exact", source=src("§5.1.2", "Fig 5.4 (stationary level)"),
       statement="the simulator's stationary mean agrees with the exact value (K=100, C=1000, 2e6 steps)",
       method=Method.SIMULATION)
def _sim_exact() -> Outcome:
    p = nc.colour_distribution("uniform", 1000)
    sim = simulate(p, 100, 2_000_000, seed=5)
    ex = gen.exact_colours_uniform(100, 1000)
    z = (sim.mean - ex) / sim.stderr
    return Outcome.judge(abs(z) <= SIMULATION_SIGMAS, f"simulated {sim.mean:.4f} ± {sim.stderr:.4f}, exact {ex:.4f} "
                         f"(z = {z:.2f}); mean field {gen.mean_field_colours(100, 1000):.4f}")


@claim("buijsrogge.colours.exact-two-routes", source=src("§5.5", "Fig 5.16 (γ = 1.1, C = 1e5, K = 1000)"),
       statement="(our exact route at the thesis's largest size) the product-form E[S], P_new and E[1/S] agree to 30 digits "
                 "by power sums with Newton's identities and by series inversion of prod(1 - p_i t)",
       method=Method.INTERVAL, slow=True)
def _exact_two_routes() -> Outcome:
    p = nc.colour_distribution("powerlaw", 100_000, 1.1)
    a = nc.exact_stationary(p, 1000)
    b = nc.exact_stationary_series(p, 1000)
    ok = (a.colours_ball.overlaps(b.colours_ball) and a.p_new_ball.overlaps(b.p_new_ball)
          and a.inverse_colours_ball.overlaps(b.inverse_colours_ball) and min(a.digits, b.digits) >= 30)
    return Outcome.judge(ok, f"E[1/S] {float(a.inverse_colours_ball.mid()):.17f} in both routes' balls (radii "
                         f"{float(a.inverse_colours_ball.rad()):.1e}, {float(b.inverse_colours_ball.rad()):.1e}); E[S]: Newton {a.colours_ball.mid().str(32, radius=False)} ± {float(a.colours_ball.rad()):.1e} "
                         f"({a.prec} bits), series {b.colours_ball.mid().str(32, radius=False)} ± {float(b.colours_ball.rad()):.1e} "
                         f"({b.prec} bits); P_new {a.p_new:.15f} / {b.p_new:.15f}; the float64 power sums of the "
                         "previous release gave 8.2589 (p_1^k underflows for k > ~320)",
                         digits=min(a.digits, b.digits), error_bound=a.radius, certain=ok)


@claim("buijsrogge.colours.sim-vs-exact-powerlaw", source=src("§5.5", "Fig 5.16 (stationary level)"),
       statement="power law γ=1.1, K=1000, C=1e4: simulated stationary colours match the exact product form",
       method=Method.SIMULATION, slow=True)
def _sim_exact_pl() -> Outcome:
    p = nc.colour_distribution("powerlaw", 10_000, 1.1)
    sim = simulate(p, 1000, 20_000_000, seed=6)
    ex = nc.exact_stationary(p, 1000)
    z = (sim.mean - ex.colours) / sim.stderr
    return Outcome.judge(abs(z) <= SIMULATION_SIGMAS, f"simulated {sim.mean:.4f} ± {sim.stderr:.4f}, exact "
                         f"{ex.colours:.4f} (z = {z:.2f}); P_new simulated {sim.p_new_mean:.4f}, exact {ex.p_new:.4f}")
