r"""Closed forms of Avrachenkov, Dudin, Klimenok, Nain, Semenova (seed 000):
the state-space dimension of §3 and the two-phase hyperexponential
relations of §7.

Notation (the paper's): :math:`\bar W` phases of the arrival process, M of
service, R of obsolescence; level i (pages in the system) holds
:math:`\bar W` states for i = 0 and :math:`\bar W M R^{i-1}` for i >= 1.

>>> state_space_dimension()
Piecewise((W*(K*M + 1), Eq(R, 1)), (W*(M*(R**K - 1)/(R - 1) + 1), True))
>>> printed_dimension().subs({W: 2, M: 2, R: 2, K: 10})
2046
>>> alpha2_for_mean()
alpha1*(1 - beta1)/(alpha1*b1 - beta1)
"""
from __future__ import annotations

import sympy as sp

from .formula import Formula

W, M, R, K = sp.symbols("W M R K", integer=True, positive=True)
i = sp.Symbol("i", integer=True, nonnegative=True)
alpha1, alpha2, b1 = sp.symbols("alpha1 alpha2 b1", positive=True)
beta1 = sp.Symbol("beta1", positive=True)

CITE = "(Avrachenkov et al., §3)"


def level_size(level=i):
    r""":math:`\bar W M^{a_i} R^{b_i}`, :math:`a_i = \min(i, 1)`, :math:`b_i = \max(i-1, 0)` (§3)."""
    return sp.Piecewise((W, sp.Eq(level, 0)), (W * M * R ** (level - 1), True))


def state_space_dimension():
    r"""Number of states :math:`\sum_{i=0}^{K} \bar W M^{a_i} R^{b_i}
    = \bar W (1 + M (R^K - 1)/(R - 1))` (:math:`\bar W(1 + MK)` for R = 1).
    Derived by summing the level sizes of §3 (levels 0..K)."""
    j = sp.Symbol("j", integer=True, positive=True)
    geometric = sp.piecewise_fold(sp.summation(R ** (j - 1), (j, 1, K)))
    at_one = geometric.args[0][0].subs(R, 1)  # the R = 1 branch
    general = sp.simplify(geometric.args[1][0])
    return sp.Piecewise((W * (1 + M * at_one), sp.Eq(R, 1)), (W * (1 + M * general), True))


def printed_dimension():
    r"""The dimension as printed in §3: :math:`\bar W(1 + M (R^{K-1}-1)/(R-1))`
    ("for :math:`\bar W = M = R = 2` ... :math:`2^{K+1} - 2`"); it omits level K."""
    return W * (1 + M * (R ** (K - 1) - 1) / (R - 1))


def hyperexponential_mean():
    r""":math:`b_1 = \beta(-S)^{-1}e = \beta_1/\alpha_1 + (1-\beta_1)/\alpha_2` for
    :math:`\beta = (\beta_1, 1-\beta_1)`, :math:`S = \mathrm{diag}(-\alpha_1, -\alpha_2)` (§7)."""
    S = sp.diag(-alpha1, -alpha2)
    beta = sp.Matrix([[beta1, 1 - beta1]])
    return sp.simplify((beta * (-S).inv() * sp.ones(2, 1))[0])


def alpha2_for_mean():
    r"""Solve :math:`b_1 = \beta(-S)^{-1}e` for :math:`\alpha_2`; §7 prints
    :math:`\alpha_2 = 0.1\alpha_1/(b_1\alpha_1 - 0.9)` for :math:`\beta_1 = 0.9`."""
    (sol,) = sp.solve(sp.Eq(hyperexponential_mean(), b1), alpha2)
    # SymPy writes -(beta1 - 1); state it with (1 - beta1), checked equal.
    tidy = alpha1 * (1 - beta1) / (alpha1 * b1 - beta1)
    if sp.simplify(sol - tidy) != 0:
        raise ArithmeticError(f"alpha2 solution {sol} differs from {tidy}")
    return tidy


def printed_alpha2():
    return sp.Rational(1, 10) * alpha1 / (b1 * alpha1 - sp.Rational(9, 10))


def hyperexponential_variance():
    r""":math:`\mathrm{var}_s = 2\beta S^{-2} e - (\beta(-S)^{-1}e)^2` (§7)."""
    S = sp.diag(-alpha1, -alpha2)
    beta = sp.Matrix([[beta1, 1 - beta1]])
    m2 = 2 * (beta * S.inv() ** 2 * sp.ones(2, 1))[0]
    return sp.simplify(m2 - hyperexponential_mean() ** 2)


def formulas() -> list[Formula]:
    return [
        Formula("avrachenkov_states", (W, M, R, K), state_space_dimension(), CITE, "state-space dimension of the chain xi_t"),
        Formula("avrachenkov_alpha2", (alpha1, b1, beta1), alpha2_for_mean(), "(Avrachenkov et al., §7)",
                "alpha2 keeping the hyperexponential mean at b1"),
        Formula("avrachenkov_h2_variance", (alpha1, alpha2, beta1), hyperexponential_variance(), "(Avrachenkov et al., §7)",
                "variance of the two-phase hyperexponential"),
    ]
