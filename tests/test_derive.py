"""The derivations of derive/: each closed form comes out of SymPy from its
model, the printed form only compared; checks raise DerivationError."""
import numpy as np
import pytest
import sympy as sp

from crawlmath.derive import DerivationError, avrachenkov as av, buijsrogge as bu, require_zero, vanishes_identically
from crawlmath.derive import scheduling as sc, static_mm1k as st
from crawlmath.numeric import bmap as bm


def test_require_zero_raises_with_the_residual():
    x = sp.Symbol("x")
    with pytest.raises(DerivationError, match="residual x"):
        require_zero(x, "x vanishes")


def test_vanishes_identically_decides_rational_identities_and_never_claims_a_false_one():
    """The rational normal form behind the scheduling and Coffman claims' zero tests: an identity in which
    exp/log/roots are only indeterminates is found; one that needs a relation between them (exp(2t) = exp(t)^2),
    a nonzero remainder, or a 0/0 left as zoo/nan is "not shown" (False), so callers fall back on simplify."""
    t, y = sp.symbols("t y", positive=True)
    e, r = sp.log(t + 2), sp.log(y + 1)
    assert vanishes_identically((e**3 - r**3) / (e - r) - e**2 - e * r - r**2)
    assert vanishes_identically(sp.log(y) * (1 / (1 - e) - e / (1 - e)) - sp.log(y))
    assert not vanishes_identically((e**3 - r**3) / (e - r) - e**2 - e * r - r**2 + sp.Rational(1, 10**30))
    assert not vanishes_identically((sp.exp(t) + 1) * (sp.exp(t) - 1) - sp.exp(2 * t) + 1)  # true, not rational
    assert not vanishes_identically(sp.zoo * t)
    assert vanishes_identically(sp.Integer(0)) and not vanishes_identically(sp.Integer(1))


def test_mm1k_law_solves_every_balance_equation_and_normalises():
    law = st.stationary_law()
    for k in (2, 3, 7):
        p = [law.subs({st.K: k, st.i: n}) for n in range(k + 1)]
        assert sp.simplify(sum(p) - 1) == 0
        eq0, interior, eqK = st.balance_equations(lambda n, k=k: law.subs({st.K: k, st.i: n}))
        assert sp.simplify(eq0) == 0 and sp.simplify(eqK.subs(st.K, k)) == 0
        assert all(sp.simplify(interior.subs({st.K: k, st.i: n})) == 0 for n in range(k - 1))


def test_mm1k_cost_matches_printed_and_stable_branches_agree_numerically():
    assert sp.simplify(st.cost() - st.printed_cost()) == 0
    stable = st.cost_stable()
    for rho, branch in ((sp.Rational(1, 2), 1), (sp.Rational(3, 2), 2)):
        point = {st.rho: rho, st.gamma: sp.Rational(7, 10), st.mu: 1, st.K: 6}
        assert abs(sp.N(stable.args[branch][0].subs(point), 30) - sp.N(st.cost().subs(point), 30)) < 1e-25
    assert stable.args[0][0] == st.cost_at_one()


def test_mm1k_deflated_Q_times_double_root_is_the_printed_17():
    for k in (2, 5):
        q = st.deflated_stationarity().subs(st.K, k).doit()
        assert sp.expand((st.rho - 1) ** 2 * q - st.printed_stationarity().subs(st.K, k)) == 0


def test_scheduling_solution_has_the_printed_closed_forms():
    S = sp.Symbol("S", negative=True)
    assert sc.optimal_frequencies_proportional() == sp.log(sc.h) / S
    assert sp.simplify(sc.cstar_lower_bound() - sc.c0 * (sc.mu - sc.nu + sc.nu * sc.P)) == 0
    assert sp.simplify(sc.randomized_frequency_proportional() - (1 / sc.h - 1) / sc.G) == 0
    assert sp.simplify(sc.randomized_cstar() - sc.c0 * (sc.mu - sc.nu * sc.G / (1 + sc.G))) == 0


def test_mean_field_and_product_form_results():
    assert bu.normalisation_S() == [bu.K * bu.C / (bu.K + bu.C - 1)]
    assert sp.simplify(bu.exact_colours_uniform() - (bu.K * bu.C - 1) / (bu.K + bu.C - 2)) == 0
    # the product-form route agrees with the Bose-Einstein route
    assert sp.simplify(bu.exact_colours_uniform() - bu.bose_einstein_moments()[2]) == 0


def test_occupancy_count_is_the_number_of_occupancy_vectors():
    import itertools
    for K, C in ((3, 3), (4, 2), (5, 4)):
        counts = {}
        for q in itertools.product(range(K + 1), repeat=C):
            if sum(q) == K:
                s = sum(1 for v in q if v)
                counts[s] = counts.get(s, 0) + 1
        assert counts == {s: int(bu.occupancy_count(s, K, C)) for s in counts}


def _recipe_block(model, level, target, levels):
    """The Lemma's recipe evaluated with numpy for a numeric model."""
    r = levels[level]
    ph, ob = model.service, model.obsolescence
    W, M, R = model.W, model.M, model.R

    def factor(tok):
        name = tok[0]
        if name == "D":
            return model.D(r, tok[1])
        if name == "Dtail":
            return model.D_tail(r, tok[1])
        if name == "D1":
            return model.D(r, 0) + model.D_tail(r, 1)
        if name == "I":
            return np.eye(W ** tok[1] * M ** tok[2] * R ** tok[3])
        if name == "gamma":
            out = np.ones((1, 1))
            for _ in range(tok[1]):
                out = np.kron(out, ob.beta.reshape(1, -1))
            return out
        return {"beta": ph.beta.reshape(1, -1), "S": ph.S, "S0": ph.exit.reshape(-1, 1),
                "S0beta": np.outer(ph.exit, ph.beta), "eR": np.ones((R, 1)), "Gamma": ob.S,
                "Gamma0": ob.exit.reshape(-1, 1)}[name]

    total = 0
    for term in av.lemma_recipe(level, target, model.K):
        block = factor(term[0])
        for tok in term[1:]:
            block = np.kron(block, factor(tok))
        total = total + block
    return total


@pytest.mark.parametrize("seed", [0, 3])
def test_lemma_recipe_equals_the_numeric_kronecker_blocks(seed):
    model = bm.random_model(seed, W=2, M=2, R=2, K=3, kmax=3, N=2)
    levels = (1, 2, 2, 1)
    blocks = bm.kronecker_blocks(model, levels)
    for i in range(model.K + 1):
        for j in range(model.K + 1):
            recipe = av.lemma_recipe(i, j, model.K)
            numeric = blocks.get((i, j))
            if not recipe:
                assert numeric is None or abs(numeric).max() == 0
                continue
            assert np.allclose(_recipe_block(model, i, j, levels), numeric.toarray(), rtol=1e-14, atol=1e-14)


def test_lemma_derived_from_rules_on_a_small_instance():
    assert av.lemma_residuals(W_=1, M_=2, R_=2, kmax=2, K_=2, chi=(1, 2, 1)) == {}


def test_model_h_is_jensens_edge_and_a_bound_must_use_other_arguments():
    """h = E[e^(-mu X)] >= e^(-mu E[X]) (Jensen, equality for deterministic X): for X ~ Exp(nu) (h = nu/(nu + mu),
    m = 1/nu) the requirement holds at sample points and a point-mass access time sits exactly on the edge; a
    requirement whose bound uses a non-argument, or the argument itself, is refused when the Formula is built."""
    from crawlmath.derive.formula import Formula

    lower, upper = sc.model_h(sc.m)[1], sc.model_h(sc.m)[0]
    for nu_, mu_ in ((0.3, 2.0), (5.0, 1e-3), (1.0, 40.0)):
        exponential = {sc.h: sp.Rational(nu_) / (sp.Rational(nu_) + sp.Rational(mu_)), sc.m: 1 / sp.Rational(nu_), sc.mu: sp.Rational(mu_)}
        assert lower.subs(exponential) == sp.true and upper.subs(exponential) == sp.true
    assert lower.subs({sc.h: sp.exp(-sc.mu * sc.m)}) == sp.true
    x, y, z = sp.symbols("x y z", positive=True)
    Formula("ok", (x, y), x * y, "(Coffman, test)", "", requires=(sp.Ge(x, sp.exp(-y)),))
    for bad in (sp.Ge(x, sp.exp(-z)), sp.Ge(x, sp.exp(-x * y))):
        with pytest.raises(ValueError, match="not 'argument op bound"):
            Formula("bad", (x, y), x * y, "(Coffman, test)", "", requires=(bad,))
