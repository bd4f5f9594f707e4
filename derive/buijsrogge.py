r"""Derivations for the BUbiNG workbench game without offline structure
(Buijsrogge 2014, Chapters 3–4).

Notation of the thesis: ``K`` positions in the online structure (workbench),
``C`` colours (hosts), ``p_i`` the probability that the source (sieve) draws
colour ``i``; ``N(i, t)`` is the number of colours with ``i`` balls online,
``S = \sum_{j\ge1} N(j, t)`` the number of colours online, ``nu(i)`` the
mean-field value of ``N(i)`` and ``P_new`` the probability that the next
drawn ball has a colour absent from the online structure.

>>> import sympy as sp
>>> K, C = sp.symbols("K C", positive=True)
>>> mean_field_colours(K, C)
C*K/(C + K - 1)
>>> sp.simplify(mean_field_p_new(K, C) - (C - 1)/(K + C - 1))
0
"""
from __future__ import annotations

import sympy as sp

from .formula import Formula

K, C, S, i, a, lam, x = sp.symbols("K C S i a lambda x", positive=True)
CITE = "(Buijsrogge 2014, {})"


def expected_colours_at_K(p: list, K_):
    r"""Lemma 3.2.1, eq. (3.1): :math:`E[\sum_j N(j,K)] = C - \sum_i (1-p_i)^K`."""
    return len(p) - sum((1 - pi) ** K_ for pi in p)


def expected_colours_uniform(K_=K, C_=C):
    r"""Corollary 3.2.1: :math:`C(1 - (1 - 1/C)^K)`.

    >>> expected_colours_uniform(2, 2)
    3/2
    """
    return C_ * (1 - (1 - sp.Integer(1) / C_) ** K_)


def expansion_C_equals_K(order: int = 2):
    r"""Eq. (3.2): :math:`K(1-(1-1/K)^K)` for large K, as a series in 1/K
    (``order`` terms after the leading K): ``K(1-1/e) + 1/(2e) + 5/(24eK) + ...``.

    >>> e = expansion_C_equals_K(2)
    >>> sp.simplify(e - (K*(1 - sp.exp(-1)) + sp.exp(-1)/2 + 5*sp.exp(-1)/(24*K)))
    0
    """
    u = sp.Symbol("u", positive=True)  # u = 1/K
    expr = (1 - (1 - u) ** (1 / u)) / u
    ser = sp.series(expr, u, 0, order).removeO()
    return sp.expand(sp.simplify(ser.subs(u, 1 / K)))


def lagrangian_gradient(K_=K):
    r"""Theorem 3.2.1: :math:`\partial/\partial p_i` of the objective
    :math:`C - \sum (1-p_i)^K`, i.e. :math:`K(1-p_i)^{K-1}` (the thesis prints
    the factor ``K-1``)."""
    p = sp.Symbol("p_i", positive=True)
    return sp.diff(-(1 - p) ** K_, p), p


def exact_drift(n: dict, K_: int, C_, S_=None):
    r"""Exact one-step drift :math:`E[N(i,t+1) - N(i,t) | N(t) = n]` of the
    closed chain with uniform colours (Section 4.1 dynamics), for an
    occupancy vector ``n = {i: N(i)}`` (``i = 1..K``; ``N(0) = C - S``).

    Removal: a present colour chosen uniformly (a colour of length ``i`` with
    probability ``N(i)/S``); then a ball of a uniform colour is added.
    Returns ``{i: drift}`` for ``i = 0..K`` as SymPy expressions.
    """
    S_ = sp.Integer(sum(n.get(j, 0) for j in range(1, K_ + 1))) if S_ is None else S_
    N = {j: sp.Integer(n.get(j, 0)) for j in range(1, K_ + 2)}
    N[0] = C_ - S_
    out = {}
    for k in range(0, K_ + 1):
        # after the removal: E[N'(k)] = N(k) - [k>=1] N(k)/S + N(k+1)/S
        def after(m):
            return N[m] - (N[m] / S_ if m >= 1 else 0) + N[m + 1] / S_
        removal = (-N[k] / S_ if k >= 1 else 0) + N[k + 1] / S_
        addition = (after(k - 1) / C_ if k >= 1 else 0) - after(k) / C_
        out[k] = sp.simplify(removal + addition)
    return out


def printed_drift_4_1(n: dict, K_: int, C_, S_=None):
    r"""The right-hand sides of (4.1) minus :math:`E[N(i,t)]`, evaluated at a
    deterministic state ``n`` (so every expectation is a plain value)."""
    S_ = sp.Integer(sum(n.get(j, 0) for j in range(1, K_ + 1))) if S_ is None else S_
    N = {j: sp.Integer(n.get(j, 0)) for j in range(1, K_ + 2)}
    N[0] = C_ - S_
    f = {j: N[j] / S_ for j in N}
    out = {0: f[1] + S_ / C_ - f[1] / C_ - 1,
           1: 2 * f[1] / C_ - f[1] - N[1] / C_ + f[2] - f[2] / C_ + 1 - S_ / C_}
    for k in range(2, K_):
        out[k] = 2 * f[k] / C_ - f[k] - N[k] / C_ + f[k + 1] - f[k + 1] / C_ + N[k - 1] / C_ - f[k - 1] / C_
    out[K_] = f[K_] / C_ - f[K_] + N[K_ - 1] / C_ - f[K_ - 1] / C_
    return {k: sp.simplify(v) for k, v in out.items()}


def nu_printed(i_=i, S_=S, C_=C):
    r"""The printed solution of (4.2)–(4.4):
    :math:`\nu(i) = (C-S)\,\frac{S}{C-1}\left(\frac{S-1}{C-1}\right)^{i-1}`."""
    return (C_ - S_) * S_ / (C_ - 1) * ((S_ - 1) / (C_ - 1)) ** (i_ - 1)


def mean_field_equations():
    r"""Stationary mean-field equations from (4.1) with ``N(i)`` replaced by
    ``nu(i)``: returns (eq0, eq1, eq_i, eq_K) as expressions equal to 0,
    in terms of ``nu(i-1), nu(i), nu(i+1)`` (symbols ``n0, n1, n2``) and S."""
    n0, n1, n2 = sp.symbols("n0 n1 n2")
    eq0 = n1 / S + S / C - n1 / (S * C) - 1
    eq1 = 2 * n1 / (C * S) - n1 / S - n1 / C + n2 / S - n2 / (C * S) + 1 - S / C
    eqi = 2 * n1 / (C * S) - n1 / S - n1 / C + n2 / S - n2 / (C * S) + n0 / C - n0 / (C * S)
    eqK = n1 / (C * S) - n1 / S + n0 / C - n0 / (C * S)
    return (eq0, eq1, eqi, eqK), (n0, n1, n2)


def normalisation_S():
    r"""Theorem 4.2.1: solve :math:`\sum_{i\ge1} i\,\nu(i) = K` (infinite
    geometric sum) for S; the root is :math:`KC/(K+C-1)`."""
    xx = (S - 1) / (C - 1)
    total = (C - S) * S / (C - 1) / (1 - xx) ** 2
    sols = sp.solve(sp.Eq(total, K), S)
    return [sp.simplify(s) for s in sols]


def mean_field_colours(K_=K, C_=C):
    r"""Theorem 4.2.1: :math:`E[\sum_j N(j)] \approx KC/(K+C-1)`."""
    return K_ * C_ / (K_ + C_ - 1)


def mean_field_p_new(K_=K, C_=C):
    r"""Theorem 4.2.1: :math:`P_{new} \approx (C-1)/(K+C-1)`."""
    return 1 - mean_field_colours(K_, C_) / C_


def mean_field_nu(i_=i, K_=K, C_=C):
    r"""Corollary 4.2.1: :math:`\nu(i) = KC^2(K-1)^{i-1}/(K+C-1)^{i+1}`."""
    return K_ * C_**2 * (K_ - 1) ** (i_ - 1) / (K_ + C_ - 1) ** (i_ + 1)


def nu_C_equals_K_expansion(i_: int):
    r"""Corollary 4.2.4, computed: :math:`\nu(i)` at C = K expanded in 1/K up
    to O(1/K): ``K/2^{i+1} + (3-i)/2^{i+2}`` (the thesis prints
    ``(K+1)/2^{i+1}``, right only at i = 1)."""
    u = sp.Symbol("u", positive=True)
    expr = mean_field_nu(i_, 1 / u, 1 / u)
    ser = sp.series(expr, u, 0, 1).removeO()
    return sp.expand(ser.subs(u, 1 / K))


def super_colour_load(p_star, S_=S):
    r"""§4.2.3/§4.3.2 as a formula: a colour drawn with probability ``p*`` is
    added at rate ``p*`` and, while present, removed at rate ``1/S``; its load
    :math:`\rho = p^* S` and it dominates the workbench when :math:`\rho > 1`
    (the thesis: :math:`p^* > E[1/\sum_j N(j)]`)."""
    return p_star * S_


def exact_colours_uniform(K_=K, C_=C):
    r"""Exact stationary :math:`E[\sum_j N(j)]` for uniform colours (new; not in
    the thesis): :math:`(KC-1)/(K+C-2) = 1 + (K-1)(C-1)/(K+C-2)`.

    Proof: :func:`product_form_balance` shows :math:`\pi(q) \propto
    NNZ(q)\prod_i p_i^{q_i}`; for uniform p this is the Bose–Einstein law
    size-biased by S, so :math:`E_\pi[S] = E_{BE}[S^2]/E_{BE}[S]`
    (:func:`bose_einstein_moments`).

    >>> exact_colours_uniform(4, 4)
    5/2
    """
    return (K_ * C_ - 1) / sp.sympify(K_ + C_ - 2)


def exact_p_new_uniform(K_=K, C_=C):
    r"""Exact stationary :math:`P_{new} = 1 - E[S]/C = (C-1)^2/(C(K+C-2))`."""
    return (C_ - 1) ** 2 / (C_ * sp.sympify(K_ + C_ - 2))


def bose_einstein_moments():
    r"""Under the Bose–Einstein law (all :math:`\binom{K+C-1}{K}` occupancy
    vectors equally likely): :math:`E[S] = C\,P(q_1\ge1) = KC/(K+C-1)` and
    :math:`E[S(S-1)] = C(C-1)P(q_1\ge1, q_2\ge1)`; returns
    ``(E[S], E[S(S-1)], E[S^2]/E[S])`` simplified."""
    tot = sp.binomial(K + C - 1, K)
    es = sp.combsimp(C * sp.binomial(K + C - 2, K - 1) / tot)
    ess = sp.combsimp(C * (C - 1) * sp.binomial(K + C - 3, K - 2) / tot)
    return sp.factor(es), sp.factor(ess), sp.factor(sp.simplify((ess + es) / es))


def product_form_balance(K_: int, C_: int):
    r"""Check symbolically (generic :math:`p_1..p_C`) that
    :math:`\pi(q) = NNZ(q)\prod_i p_i^{q_i}` solves the balance equations of
    Section 4.1, :math:`\pi(q) = \sum_{i,j: q_j\ge1} \pi(q+e_i-e_j)\,
    p_j / NNZ(q+e_i-e_j)`, at every state of the (K, C) chain; returns the
    list of nonzero residuals (empty when the product form holds)."""
    ps = sp.symbols(f"p1:{C_ + 1}", positive=True)

    def comps(k, c):
        if c == 1:
            yield (k,)
            return
        for first in range(k, -1, -1):
            for rest in comps(k - first, c - 1):
                yield (first,) + rest

    def weight(q):
        return sum(1 for v in q if v) * sp.Mul(*[pp**v for pp, v in zip(ps, q)])

    bad = []
    for q in comps(K_, C_):
        rhs = 0
        for j in range(C_):
            if not q[j]:
                continue
            for i_ in range(C_):
                r = list(q)
                r[i_] += 1
                r[j] -= 1
                rhs += weight(r) * ps[j] / sum(1 for v in r if v)
        res = sp.expand(weight(q) * sum(ps) - rhs)  # sum(ps) = 1 on the simplex
        if res != 0:
            bad.append((q, res))
    return bad


def formulas() -> list[Formula]:
    return [
        Formula("mean_field_colours", (K, C), mean_field_colours(), CITE.format("Thm 4.2.1"),
                "Mean-field number of colours in the workbench KC/(K+C-1)"),
        Formula("mean_field_p_new", (K, C), sp.simplify(mean_field_p_new()), CITE.format("Thm 4.2.1"),
                "Mean-field probability that a drawn colour is new, (C-1)/(K+C-1)"),
        Formula("mean_field_nu", (i, K, C), mean_field_nu(), CITE.format("Cor 4.2.1"),
                "Mean-field number of colours with i balls online"),
        Formula("exact_colours_uniform", (K, C), exact_colours_uniform(), "(crawlmath, product form of the Sec. 4.1 chain)",
                "Exact stationary number of colours for uniform colours (KC-1)/(K+C-2)"),
        Formula("exact_p_new_uniform", (K, C), exact_p_new_uniform(), "(crawlmath, product form of the Sec. 4.1 chain)",
                "Exact stationary P_new for uniform colours (C-1)^2/(C(K+C-2))"),
        Formula("expected_colours_uniform", (K, C), expected_colours_uniform(), CITE.format("Cor 3.2.1"),
                "Expected colours after K uniform draws C(1-(1-1/C)^K)"),
    ]
