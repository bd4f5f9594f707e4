"""Each static-model derivation (derive/static_mm1k.py) answers for the model it is given.

Modified models, each against an answer obtained without the derivation under test:
- the doubled loss weight: by hand, (1.7) and gamma(K) are the paper's with mu -> 2 mu in the loss term;
- service 2 mu: by scaling, an M/M/1/K chain with load rho/2 and rate 2 mu, so C(rho) = (1.4)(rho/2, 2 mu);
- state-dependent service mu(n) = n mu at K = 3: the law rho^i/i! and gamma(3) = 49 mu/90 by hand;
and for every model a numeric route: the chain's generator solved in mpmath (60 digits), the cost from the
law, gamma(K) as the weight that makes the numeric derivative of that cost vanish (the cost is linear in it).
Where the paper's structure breaks, the derivation refuses and names the step.
"""
import mpmath
import pytest
import sympy as sp

from crawlmath.derive import DerivationError
from crawlmath.derive import static_mm1k as st

M = st.StaticModel
rho, gamma, mu, K, n = st.rho, st.gamma, st.mu, st.K, st.n
DOUBLE = M(loss_weight=2)
TWICE_AS_FAST = M(service=2 * mu)
PER_PAGE = M(service=n * mu, capacity=3)  # mu(n) = n mu: every buffered page served in parallel


def _law_numeric(service, k, r, m):
    """The stationary law of the birth-death generator (rates r m up, service(state) down), by an mpmath solve."""
    Q = mpmath.zeros(k + 1, k + 1)
    for s in range(k):
        Q[s, s + 1], Q[s + 1, s] = r * m, service(s + 1, m)
    for s in range(k + 1):
        Q[s, s] = -sum(Q[s, t] for t in range(k + 1) if t != s)
    A = Q.T
    for t in range(k + 1):
        A[k, t] = 1
    return mpmath.lu_solve(A, mpmath.matrix([0] * k + [1]))


def _cost_numeric(service, k, r, g, m, loss_weight=1):
    p = _law_numeric(service, k, r, m)
    return g * p[0] + loss_weight * r * m * p[k]


def _gamma_numeric(service, k, m, at, loss_weight=1):
    """The weight with dC/drho = 0 at rho = at: C = gamma P0 + L, so gamma = -L'/P0'."""
    dp0 = mpmath.diff(lambda r: _law_numeric(service, k, r, m)[0], at)
    dl = mpmath.diff(lambda r: loss_weight * r * m * _law_numeric(service, k, r, m)[k], at)
    return -dl / dp0


def _value(expr, **point):
    return sp.N(expr.subs({sp.Symbol(name, **_ASSUME[name]): v for name, v in point.items()}), 50)


_ASSUME = {"rho": {"positive": True}, "gamma": {"positive": True}, "mu": {"positive": True},
           "K": {"integer": True, "positive": True}}

SERVICES = {DOUBLE: lambda s, m: m, TWICE_AS_FAST: lambda s, m: 2 * m, PER_PAGE: lambda s, m: s * m}
LOSS = {DOUBLE: 2, TWICE_AS_FAST: 1, PER_PAGE: 1}


@pytest.mark.parametrize("model", [DOUBLE, TWICE_AS_FAST, PER_PAGE], ids=["double-loss", "service-2mu", "service-n-mu-K3"])
def test_cost_is_the_chains_cost(model):
    with mpmath.workdps(60):
        for r, g, k, m in ((0.4, 0.7, 3, 1.3), (1.7, 2.5, 3, 0.6), (3.1, 0.2, 5, 2.0)):
            if model.capacity.is_Integer and k != model.capacity:
                continue
            exact = _value(st.cost(model), rho=sp.Rational(str(r)), gamma=sp.Rational(str(g)), K=k, mu=sp.Rational(str(m)))
            numeric = _cost_numeric(SERVICES[model], k, mpmath.mpf(str(r)), mpmath.mpf(str(g)), mpmath.mpf(str(m)), LOSS[model])
            assert abs(mpmath.mpf(str(exact)) - numeric) <= mpmath.mpf(10) ** -40 * numeric


def test_doubled_loss_weight_changes_17_and_gamma_K_as_by_hand():
    by_hand = st.printed_stationarity().subs(mu, 2 * mu)  # every mu of (1.7) comes from the loss term
    assert sp.expand(st.in_rho_and_t(st.stationarity(DOUBLE)) - st.in_rho_and_t(by_hand)) == 0
    assert sp.simplify(st.gamma_K(DOUBLE) - 2 * mu * (K + 2) / K) == 0
    assert st.removable_points(DOUBLE) == ((1, (gamma + 2 * mu) / (K + 1)),)


def test_doubled_loss_weight_derivative_identity_holds_where_the_paper_polynomial_does_not():
    """The audit's case: (1 - rho^(K+1))^2 dC/drho of the doubled-weight cost is the derived (1.7) of that model
    (the derivation checks it and would raise), while the paper's (1.7) misses mu rho^2 (rho-1)^2 (rho^2+2rho+3) at K = 2."""
    lhs = sp.expand(sp.cancel(((1 - rho**3) ** 2 * sp.diff(st.cost(DOUBLE), rho)).subs(K, 2)))
    assert sp.expand(lhs - st.stationarity(DOUBLE).subs(K, 2)) == 0
    assert sp.factor(lhs - st.printed_stationarity().subs(K, 2)) == sp.factor(mu * rho**2 * (rho - 1) ** 2 * (rho**2 + 2 * rho + 3))


def test_service_2mu_is_the_paper_model_at_half_the_load():
    scaled = st.printed_cost().subs({rho: rho / 2, mu: 2 * mu}, simultaneous=True)
    assert sp.simplify(st.cost(TWICE_AS_FAST) - scaled) == 0
    assert st.removable_points(TWICE_AS_FAST) == ((2, (gamma + 2 * mu) / (K + 1)),)
    # the minimiser is 2 rho(gamma, K; 2 mu): it sits at rho = 2 exactly when gamma = gamma(K) with mu -> 2 mu
    assert sp.simplify(st.gamma_K(TWICE_AS_FAST, at=2) - 2 * mu * (K + 2) / K) == 0


@pytest.mark.parametrize("model, k", [(M(service=2 * mu, capacity=3), 3), (M(service=2 * mu, capacity=6), 6), (PER_PAGE, 3),
                                      (M(service=n * mu, capacity=5), 5), (M(loss_weight=2, capacity=4), 4)])
def test_gamma_K_is_the_weight_with_a_stationary_point_at_one(model, k):
    service = {2 * mu: lambda s, m: 2 * m, n * mu: lambda s, m: s * m, mu: lambda s, m: m}[model.service]
    with mpmath.workdps(60):
        numeric = _gamma_numeric(service, k, mpmath.mpf(1), mpmath.mpf(1), int(model.loss_weight))
        derived = mpmath.mpf(str(sp.N(st.gamma_K(model).subs(mu, 1), 50)))
        assert abs(derived - numeric) <= mpmath.mpf(10) ** -30 * numeric


def test_service_n_mu_at_K3_by_hand():
    # law rho^i / i!, Z = 1 + rho + rho^2/2 + rho^3/6; C = (gamma + rho mu rho^3/6) / Z
    assert st.unnormalised_law(PER_PAGE) == st.p0 * rho**st.i / sp.factorial(st.i)
    assert sp.simplify(st.cost(PER_PAGE) - (6 * gamma + mu * rho**4) / (rho**3 + 3 * rho**2 + 6 * rho + 6)) == 0
    # Q(1) = (2 mu/3)(8/3) - (gamma + mu/6)(5/2) = 0
    assert st.gamma_K(PER_PAGE) == sp.Rational(49, 90) * mu
    assert st.removable_points(PER_PAGE) == ()
    assert "one sign change" in st.unique_minimiser(PER_PAGE)


def test_symbolic_K_with_service_n_mu_refuses_the_polynomial_17_and_says_why():
    with pytest.raises(DerivationError, match=r"rational function of rho and rho\*\*K.*lowergamma.*deflated_stationarity"):
        st.stationarity(M(service=n * mu))


def test_no_loss_term_means_no_minimiser_and_gamma_K_refuses():
    with pytest.raises(DerivationError, match="negative for every rho > 0.*no interior minimiser"):
        st.gamma_K(M(loss_weight=0))


def test_gamma_K_needs_the_idle_weight_as_a_symbol():
    with pytest.raises(DerivationError, match="not a symbol"):
        st.gamma_K(M(idle_weight=3))


def test_model_statement_is_checked():
    for bad in ({"capacity": 1}, {"capacity": sp.Symbol("L", integer=True)}, {"service": rho * mu}, {"service": sp.Symbol("x") * mu}):
        with pytest.raises(ValueError, match="StaticModel"):
            M(**bad)


def test_paper_instance_is_the_default():
    assert st.cost() == st.cost(st.PAPER) and st.gamma_K() == mu * (K + 2) / K
    assert sp.expand(st.in_rho_and_t(st.stationarity()) - st.in_rho_and_t(st.printed_stationarity())) == 0


def test_codegen_emits_a_users_model():
    """model_formulas -> codegen.render: a numeric module for the doubled-loss-weight model whose float cost is the
    chain's (60-digit generator solve) and whose gamma_K is 2 mu (K+2)/K; a refused step is listed, not emitted."""
    from crawlmath.derive import codegen
    from crawlmath.numeric.errors import InvalidInput

    mf = st.model_formulas(DOUBLE)
    assert not mf.refused
    namespace: dict = {}
    exec(codegen.render("doubled", list(mf.formulas)), namespace)
    with mpmath.workdps(60):
        chain = _cost_numeric(lambda s, m: m, 7, mpmath.mpf("0.8"), mpmath.mpf("1.5"), mpmath.mpf(1), 2)
    assert namespace["cost"](0.8, 1.5, 7, 1.0) == pytest.approx(float(chain), rel=1e-13)
    assert namespace["gamma_K"](10, 1.0) == pytest.approx(2.4, rel=1e-15)
    with pytest.raises(InvalidInput, match="K: must be >= 2"):
        namespace["cost"](0.8, 1.5, 1, 1.0)
    refused = dict(st.model_formulas(M(service=n * mu)).refused)
    assert "stationarity" in refused and "rational function of rho and rho**K" in refused["stationarity"]
