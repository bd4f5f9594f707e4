"""The workbench derivations answer for the model they are given (issue 31).

Every expected value here is computed independently of the derivation under
test: the exact chain solved in rationals (``chain_stationary``, no structure
assumed), classical closed forms (the multinomial occupancy law of the
random-ball urn, Lemma 3.2.1's C - sum (1-p_i)^K), or trivial edge cases.
"""
import itertools

import pytest
import sympy as sp

from crawlmath.derive import DerivationError
from crawlmath.derive import buijsrogge as bu

K, C, S = bu.K, bu.C, bu.S
R = sp.Rational
INSTANCES = ((2, 2), (3, 2), (3, 3), (4, 3), (5, 2), (2, 5))


def _mean_occupancy(law, K_):
    return [sum(pr * bu.occupancy(q, K_)[k] for q, pr in law.items()) for k in range(K_ + 1)]


def _binomial_occupancy(K_, C_):
    """E[N(k)] when the K balls' colours are independent uniform: C * Binomial(K, 1/C)(k)."""
    return [C_ * sp.binomial(K_, k) * R(1, C_) ** k * (1 - R(1, C_)) ** (K_ - k) for k in range(K_ + 1)]


@pytest.mark.parametrize("removal", ["colour", "ball"])
@pytest.mark.parametrize("K_, C_", INSTANCES)
def test_mean_field_drift_is_the_chains_drift_on_every_state(removal, K_, C_):
    # the mean-field F and the chain come from the same step(): equal wherever the chain can be
    model = bu.WorkbenchModel(slots=K_, colours=C_, removal=removal)
    for q in bu.chain(model)[0]:
        assert bu.drift_at(model, q) == bu.state_drift(model, q), q


def test_printed_4_1_equals_the_derived_drift_except_off_the_reachable_states():
    d0, d1, di, dK = bu.printed_lines_residuals()
    assert (d0, d1, di) == (0, 0, 0)
    assert sp.simplify(dK + bu.n_k * (S - 1) / (C * S)) == 0
    assert dK.subs(S, 1) == 0  # N(K) >= 1 forces S = 1 on every reachable state


def test_thesis_mean_field_from_the_drift():
    assert bu.normalisation_S() == [K * C / (K + C - 1)]
    assert sp.simplify(bu.mean_field_p_new() - (C - 1) / (K + C - 1)) == 0
    printed = K * C**2 * (K - 1) ** (bu.i - 1) / (K + C - 1) ** (bu.i + 1)  # Cor 4.2.1, compared only
    assert all(sp.simplify((bu.mean_field_nu() - printed).subs(bu.i, j)) == 0 for j in range(1, 6))


def test_kurtz_limit_of_the_drift_is_the_leading_term_of_the_mean_field():
    a = sp.Symbol("a", positive=True)
    leading = sp.limit(bu.mean_field_colours(a * bu.kappa, a * bu.gamma_) / a, a, sp.oo)
    assert sp.simplify(bu.fluid_colours() - leading) == 0
    assert sp.simplify(bu.fluid_colours() - bu.kappa * bu.gamma_ / (bu.kappa + bu.gamma_)) == 0


@pytest.fixture
def fresh_caches():
    cached = (bu.occupancy_drift, bu.drift_lines, bu.mean_field_nu_of_S, bu.normalisation_S)
    for f in cached:
        f.cache_clear()
    yield
    for f in cached:
        f.cache_clear()


def test_the_mean_field_is_built_on_step(monkeypatch, fresh_caches):
    # the audit's check: change the one place where a step is composed and the mean field must change
    def draw_before_removal(classes, total, join=None):  # the ball joins as if the removed colour had not moved
        for r, (_, _, prop_r) in enumerate(classes):
            if prop_r != 0:
                for t, (count_t, draw_t, _) in enumerate(classes):
                    yield r, t, sp.sympify(prop_r) / total * count_t * draw_t

    monkeypatch.setattr(bu, "step", draw_before_removal)
    assert bu.printed_lines_residuals()[:3] != (0, 0, 0)
    try:
        roots = bu.normalisation_S()
    except DerivationError:
        roots = None
    assert roots != [K * C / (K + C - 1)]


def test_changing_the_removal_rule_changes_the_mean_field():
    # random-ball removal: the drift is linear (G = K), so the mean field is the exact law's mean, whose colours
    # present are those of K independent draws, C(1 - (1 - 1/C)^K) (Lemma 3.2.1's (3.1)), not KC/(K+C-1)
    ball = bu.WorkbenchModel(removal="ball")
    assert bu.drift_lines(ball)[0] != bu.drift_lines()[0]
    assert sp.simplify(bu.mean_field_nu_of_S(ball) - (C - S) * sp.binomial(K, bu.i) / (C - 1) ** bu.i) == 0
    colours = bu.mean_field_colours(model=ball)
    gap = sp.expand_power_base(sp.expand(colours - C * (1 - (1 - 1 / C) ** K)), force=True)
    assert sp.simplify(sp.powsimp(gap, force=True)) == 0
    for K_, C_ in ((3, 3), (5, 2), (7, 11)):
        assert colours.subs({K: K_, C: C_}) == bu.expected_colours_at_K([R(1, C_)] * C_, K_)


@pytest.mark.parametrize("K_, C_", [(2, 2), (3, 3), (4, 2), (5, 3)])
def test_random_ball_removal_gives_the_multinomial_law(K_, C_):
    # classical: removing a uniformly random ball and adding one drawn from p keeps the colours of the K balls
    # independent draws from p, so E[N(k)] = C Binomial(K, 1/C)(k) and E[S] = C - sum (1 - p_i)^K (3.1)
    model = bu.WorkbenchModel(slots=K_, colours=C_, removal="ball")
    exact = bu.chain_stationary(model)
    assert _mean_occupancy(exact, K_) == _binomial_occupancy(K_, C_)
    assert bu.product_form_law(model) == exact
    assert bu.reversible_law(model) == exact
    assert bu.expected_colours(bu.product_form_law(model)) == bu.expected_colours_at_K([R(1, C_)] * C_, K_)
    # the drift is linear in nu (G = K), so the mean field is exact
    assert bu.mean_field_instance(model) == _binomial_occupancy(K_, C_)
    # the thesis rule's closed form (KC-1)/(K+C-2) is refused for this model, naming the step
    with pytest.raises(DerivationError, match="not exponential"):
        bu.exact_colours_uniform(K_, C_, model=bu.WorkbenchModel(removal="ball"))


@pytest.mark.parametrize("K_, C_", [(3, 3), (4, 2), (2, 4), (5, 2)])
def test_thesis_rule_product_form_equals_the_chain(K_, C_):
    if (K_, C_) == (3, 3):  # the closed finite mean field has no fixed point for this rule (it leaks to length K+1)
        with pytest.raises(DerivationError, match="0 nonnegative solutions"):
            bu.mean_field_instance(bu.WorkbenchModel(slots=3, colours=3))
    model = bu.WorkbenchModel(slots=K_, colours=C_)
    exact = bu.chain_stationary(model)
    assert bu.product_form_law(model) == exact == bu.reversible_law(model)
    assert bu.expected_colours(exact) == R(K_ * C_ - 1, K_ + C_ - 2)  # the derived exact_colours_uniform
    assert bu.exact_colours_uniform(K_, C_) == R(K_ * C_ - 1, K_ + C_ - 2)


def test_weighted_removal_and_nonuniform_draw():
    p, w = (R(1, 2), R(1, 3), R(1, 6)), (1, 2, 3)
    model = bu.WorkbenchModel(slots=4, colours=3, draw=p, weights=w)
    assert bu.colour_factor(model) == (bu.p_i / bu.w_i) ** bu.n_
    exact = bu.chain_stationary(model)
    assert bu.product_form_law(model) == exact
    # the thesis's law NNZ(q) prod p^q is not this chain's law
    paper_form = bu.product_form_law(bu.WorkbenchModel(slots=4, colours=3, draw=p))
    assert paper_form != exact
    with pytest.raises(DerivationError, match="all colours are alike"):
        bu.occupancy_drift(model)


def test_nonuniform_draw_mean_field_refuses_exact_law_answers():
    p = (R(1, 2), R(1, 3), R(1, 6))
    model = bu.WorkbenchModel(slots=4, colours=3, draw=p)
    with pytest.raises(DerivationError, match="occupancy counts"):
        bu.mean_field_colours(model=model)
    exact = bu.chain_stationary(model)
    assert bu.product_form_law(model) == exact
    # the heterogeneous closed form product_form_colours with h_n by enumeration
    ps = sp.symbols("a b c", positive=True)
    h = {n: bu.complete_homogeneous(n, ps).subs(dict(zip(ps, p))) for n in (2, 3)}
    closed = bu.product_form_colours().subs({bu.P2: sum(x**2 for x in p), bu.ratio: h[2] / h[3]})
    assert sp.nsimplify(closed) == bu.expected_colours(exact)


def test_longest_queue_rule_symbolic_refusal_instance_answer():
    # the propensity depends on the other colours: the general product form is refused, naming the step
    with pytest.raises(DerivationError, match="detailed balance: the 'longest' rule"):
        bu.colour_factor(bu.WorkbenchModel(removal="longest"))
    with pytest.raises(DerivationError, match="longest"):
        bu.mean_field_colours(model=bu.WorkbenchModel(removal="longest"))
    # on instances Kolmogorov's criterion holds on the closed class and gives the chain's own law
    model = bu.WorkbenchModel(slots=4, colours=3, removal="longest")
    exact = bu.chain_stationary(model)
    assert bu.reversible_law(model) == exact
    assert exact[(4, 0, 0)] == 0  # transient: a longest queue of 4 is never rebuilt
    assert bu.expected_colours(exact) != R(4 * 3 - 1, 4 + 3 - 2)


def test_redraw_rule_breaks_product_form_and_is_refused():
    p = (R(1, 2), R(1, 3), R(1, 6))
    model = bu.WorkbenchModel(slots=3, colours=3, draw=p, redraw=True)
    with pytest.raises(DerivationError, match="detailed balance: the redraw rule"):
        bu.colour_factor(model)
    with pytest.raises(DerivationError, match="Kolmogorov criterion fails on the edge"):
        bu.reversible_law(model)
    # the refusal is right: the chain's own law (solved in rationals) violates detailed balance
    exact, P = bu.chain_stationary(model), bu.chain(model)[1]
    flows = [(q, r) for q in P for r in P[q] if exact[q] * P[q][r] != exact[r] * P[r].get(q, 0)]
    assert flows
    assert exact != bu.product_form_law(bu.WorkbenchModel(slots=3, colours=3, draw=p))
    # uniform p: exchangeable and reversible, the instance law is the chain's; the mean field says what it lacks
    uniform = bu.WorkbenchModel(slots=3, colours=3, redraw=True)
    assert bu.reversible_law(uniform) == bu.chain_stationary(uniform)
    with pytest.raises(DerivationError, match="redraw"):
        bu.mean_field_colours(model=bu.WorkbenchModel(redraw=True))


def test_edges_one_slot_and_one_colour():
    # K = 1: the single ball's colour is a fresh draw each step, pi(e_c) = p_c, one colour present
    p = (R(1, 5), R(3, 10), R(1, 2))
    one_slot = bu.WorkbenchModel(slots=1, colours=3, draw=p)
    assert bu.chain_stationary(one_slot) == {q: p[q.index(1)] for q in bu.chain(one_slot)[0]}
    assert bu.product_form_law(one_slot) == bu.chain_stationary(one_slot)
    assert bu.mean_field_colours(model=bu.WorkbenchModel(slots=1)) == 1
    # C = 1: one state, S = 1; the mean field's line 0 no longer determines nu(1) and says so
    assert bu.expected_colours(bu.product_form_law(bu.WorkbenchModel(slots=4, colours=1))) == 1
    with pytest.raises(DerivationError, match="line 0"):
        bu.mean_field_colours(model=bu.WorkbenchModel(colours=1))


@pytest.mark.parametrize("kwargs, message", [
    ({"slots": 0}, "slots must be"),
    ({"colours": 2, "draw": (R(1, 3), R(1, 3))}, "summing to 1"),
    ({"removal": "fifo"}, "removal must be one of"),
    ({"removal": "ball", "weights": (1, 2)}, "weights belong"),
    ({"weights": (1, 2)}, "positive weights"),
])
def test_model_refuses_what_it_cannot_mean(kwargs, message):
    with pytest.raises(ValueError, match=message):
        bu.WorkbenchModel(**kwargs)


def test_every_formula_states_its_provenance():
    for f in bu.formulas():
        kinds = {x.kind for x in f.inputs}
        assert f.inputs and "provenance not stated" not in f.provenance(), f.name
        assert kinds <= {"derived", "typed", "assumed"}
    names = {f.name: f for f in bu.formulas()}
    assert any("closure" in x.what for x in names["mean_field_colours"].inputs)  # the mean-field step is an assumption
    assert all(not any("closure" in x.what for x in names[n].inputs) for n in ("exact_colours_uniform", "product_form_colours"))


def test_step_is_a_probability_law():
    for q in itertools.islice(bu._compositions(4, 3), 8):
        for removal, redraw in itertools.product(("colour", "ball", "longest"), (False, True)):
            model = bu.WorkbenchModel(slots=4, colours=3, removal=removal, redraw=redraw, draw=(R(1, 2), R(1, 3), R(1, 6)))
            assert sum(bu.transitions(model, q).values()) == 1
