"""Access-time laws: Laplace transforms, means, validation."""
import math

import mpmath
import numpy as np
import pytest
from hypothesis import given, settings, strategies as st

from crawlmath.numeric.scheduling import (Deterministic, Exponential, Gamma, HyperExponential, LaplaceAccess,
                                           PhaseTypeAccess, Uniform, parse_access)
from crawlmath.numeric.errors import InvalidInput

LAWS = [Deterministic(0.7), Exponential(2.0), Gamma(2.5, 1.5), Uniform(0.2, 1.4), HyperExponential((0.3, 0.7), (0.5, 3.0)),
        PhaseTypeAccess([0.6, 0.4], [[-2.0, 1.5], [0.0, -1.0]])]


@pytest.mark.parametrize("X", LAWS, ids=lambda X: type(X).__name__)
def test_h_float_matches_mpmath_and_sampling(X):
    rng = np.random.default_rng(1)
    for mu in (0.01, 0.5, 3.0):
        hf = float(X.h(mu))
        with mpmath.workdps(30):
            hm = float(X.h_mp(mu))
        assert 0 < hf < 1 and abs(hf - hm) < 1e-12
    x = X.sample(rng, 20000 if not isinstance(X, PhaseTypeAccess) else 4000)
    assert abs(x.mean() - X.mean) < 5 * x.std() / math.sqrt(x.size) + 1e-12
    assert abs(np.exp(-0.8 * x).mean() - float(X.h(0.8))) < 5 * np.exp(-0.8 * x).std() / math.sqrt(x.size) + 1e-12


def test_phase_type_erlang_equals_gamma():
    ph = PhaseTypeAccess([1.0, 0.0], [[-3.0, 3.0], [0.0, -3.0]])
    for mu in (0.1, 1.0, 5.0):
        assert abs(float(ph.h(mu)) - float(Gamma(2, 3.0).h(mu))) < 1e-14
    assert abs(ph.mean - 2 / 3) < 1e-14


@pytest.mark.parametrize("beta,S,arg", [
    ([0.5, 0.6], [[-1, 0], [0, -1]], "beta"),
    ([1.0, 0.0], [[-1, 2], [0, -1]], "S"),
    ([1.0], [[1.0]], "S"),
])
def test_phase_type_validation(beta, S, arg):
    with pytest.raises(InvalidInput) as e:
        PhaseTypeAccess(beta, S)
    assert e.value.argument == arg


def test_laplace_access_checks_h():
    ok = LaplaceAccess(lambda m: 1 / (1 + m), 1.0)
    assert abs(ok.h_checked([1.0])[0] - 0.5) < 1e-15
    bad = LaplaceAccess(lambda m: 1.2, 1.0)
    with pytest.raises(InvalidInput, match=r"\(0, 1\)"):
        bad.h_checked([1.0])


@pytest.mark.parametrize("spec", ["det:0", "exp:-1", "gamma:1", "uniform:2,1", "hyperexp:0.5,1,0.4,2", "weird:1", "exp:nan", "exp:"])
def test_parse_access_errors_name_access(spec):
    with pytest.raises(InvalidInput) as e:
        parse_access(spec)
    assert e.value.argument == "--access"


@settings(max_examples=30, deadline=None)
@given(st.floats(0.05, 5), st.floats(0.05, 5), st.floats(0.01, 10))
def test_uniform_h_is_between_endpoint_transforms(a, w, mu):
    U = Uniform(a, a + w)
    assert math.exp(-mu * (a + w)) <= float(U.h(mu)) <= math.exp(-mu * a)


def test_phase_type_h_batched_matches_single_solves():
    X = PhaseTypeAccess([0.6, 0.3, 0.1], [[-2.0, 1.5, 0.0], [0.0, -1.0, 0.5], [0.2, 0.0, -3.0]])
    mu = np.exp(np.random.default_rng(2).normal(0.0, 2.0, 40)).reshape(5, 8)
    single = np.array([[X.ph.laplace(float(v)) for v in row] for row in mu])
    assert X.h(mu).shape == (5, 8)
    assert np.max(np.abs(X.h(mu) - single) / single) <= 1e-14


def test_h_checked_names_first_bad_entry():
    bad = LaplaceAccess(lambda m: 1.5 if m > 2 else 0.5, 1.0)
    with pytest.raises(InvalidInput) as e:
        bad.h_checked([1.0, 3.0, 4.0])
    assert e.value.entry == 1
