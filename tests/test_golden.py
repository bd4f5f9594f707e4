"""The golden-ratio policy: derivation (derive.golden), generated float code, certificates."""
import mpmath
import numpy as np
import pytest
import sympy as sp

from crawlmath.derive import golden as dg
from crawlmath.numeric import scheduling as s
from crawlmath.numeric.errors import SolverError
from crawlmath.numeric.generated import golden as gen


def test_three_gap_counts_tile_the_cycle():
    assert dg.tiling_residual() == 0
    assert sp.simplify(dg.limit_cost() - dg.printed_limit_cost()) == 0


def test_h_is_derived_and_its_limit_computed():
    assert sp.simplify(dg.golden_H() - dg.printed_H()) == 0
    assert sp.simplify(dg.golden_H_limit() - 2 * dg.PHI**2 / 5) == 0


def test_worst_bracket_position_gives_phi5_over_10():
    s_star, value = dg.worst_case()
    assert sp.simplify(s_star - dg.PHI**2 / 2) == 0
    assert sp.simplify(value - dg.PHI**5 / 10) == 0
    assert dg.mixture_residual() == 0


@pytest.mark.parametrize("name", ["golden_H", "golden_R", "golden_D", "golden_y"])
def test_generated_float_code_is_accurate_at_small_q(name):
    qs = np.array([1e-12, 1e-9, 1e-6, 1e-3, 0.4999, 0.5, 1.9999, 2.0, 7.0, 55.0])
    got = getattr(gen, name)(qs)
    with mpmath.workdps(140):
        ref = np.array([float(getattr(gen, name + "_mp")(mpmath.mpf(float(v)))) for v in qs])
    assert np.all(np.abs(got - ref) <= 1e-13 * np.abs(ref))


def test_profile_is_a_weighted_mean_of_brackets_and_matches_h():
    qs = np.geomspace(1e-10, 30, 40)
    assert np.allclose(s.profile(qs, 1.0), s.H(qs), rtol=1e-14)
    assert np.allclose(s.profile(qs, s.PHI), s.H(qs), rtol=1e-13)
    assert np.all(s.profile_max(qs) < s.WORST_PROFILE)


def test_profile_bound_is_certified_and_a_smaller_constant_is_not():
    cert = s.certify_profile_bound()
    assert cert.proved and cert.tail_margin > 0
    with pytest.raises(SolverError):
        s.certify_profile_bound(bound="1.1089", max_boxes=3000)


def test_exact_schedule_distance_counts_follow_three_gaps():
    x = np.array([0.13, 0.29, 0.58])
    k = 18
    sch = s.golden_schedule(x, k)
    pg, dist = s.interaccess_distances(sch.sequence, 3)
    for i, M in enumerate(sch.counts.tolist()):
        n = max(j for j in range(k + 1) if s.fibonacci(j) < M)
        want = {}
        for r, c in enumerate((M - s.fibonacci(n), M - s.fibonacci(n - 1), s.fibonacci(n + 1) - M)):
            if c:
                want[s.fibonacci(k - n + r)] = want.get(s.fibonacci(k - n + r), 0) + c
        vals, counts = np.unique(dist[pg == i], return_counts=True)
        assert dict(zip(vals.tolist(), counts.tolist())) == want
