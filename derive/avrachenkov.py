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

import functools
import itertools

import sympy as sp

from . import DerivationError, only_root
from .formula import Formula

W, M, R, K = sp.symbols("W M R K", integer=True, positive=True)
i = sp.Symbol("i", integer=True, nonnegative=True)
alpha1, alpha2, b1 = sp.symbols("alpha1 alpha2 b1", positive=True)
beta1 = sp.Symbol("beta1", positive=True)

CITE = "(Avrachenkov et al., §3)"


def level_size(level=i):
    r""":math:`\bar W M^{a_i} R^{b_i}`, :math:`a_i = \min(i, 1)`, :math:`b_i = \max(i-1, 0)` (§3).

    >>> level_size(3)
    M*R**2*W
    """
    return sp.Piecewise((W, sp.Eq(level, 0)), (W * M * R ** (level - 1), True))


def state_space_dimension():
    r"""Number of states :math:`\sum_{i=0}^{K} \bar W M^{a_i} R^{b_i}
    = \bar W (1 + M (R^K - 1)/(R - 1))` (:math:`\bar W(1 + MK)` for R = 1).
    Derived by summing the level sizes of §3 (levels 0..K).

    >>> state_space_dimension().subs({W: 2, M: 2, R: 2, K: 10})
    4094
    """
    j = sp.Symbol("j", integer=True, positive=True)
    geometric = sp.piecewise_fold(sp.summation(R ** (j - 1), (j, 1, K)))
    at_one = geometric.args[0][0].subs(R, 1)  # the R = 1 branch
    general = sp.simplify(geometric.args[1][0])
    return sp.Piecewise((W * (1 + M * at_one), sp.Eq(R, 1)), (W * (1 + M * general), True))


def printed_dimension():
    r"""The dimension as printed in §3: :math:`\bar W(1 + M (R^{K-1}-1)/(R-1))`
    ("for :math:`\bar W = M = R = 2` ... :math:`2^{K+1} - 2`"); it omits level K.

    >>> printed_dimension().subs({W: 2, M: 2, R: 2, K: 10})
    2046
    """
    return W * (1 + M * (R ** (K - 1) - 1) / (R - 1))


def hyperexponential_mean():
    r""":math:`b_1 = \beta(-S)^{-1}e = \beta_1/\alpha_1 + (1-\beta_1)/\alpha_2` for
    :math:`\beta = (\beta_1, 1-\beta_1)`, :math:`S = \mathrm{diag}(-\alpha_1, -\alpha_2)` (§7).

    >>> hyperexponential_mean().subs({alpha1: 2, alpha2: 1, beta1: sp.Rational(1, 2)})
    3/4
    """
    S = sp.diag(-alpha1, -alpha2)
    beta = sp.Matrix([[beta1, 1 - beta1]])
    return sp.simplify((beta * (-S).inv() * sp.ones(2, 1))[0])


def alpha2_for_mean():
    r"""Solve :math:`b_1 = \beta(-S)^{-1}e` for :math:`\alpha_2`; §7 prints
    :math:`\alpha_2 = 0.1\alpha_1/(b_1\alpha_1 - 0.9)` for :math:`\beta_1 = 0.9`.

    >>> alpha2_for_mean().subs(beta1, sp.Rational(9, 10))
    alpha1/(10*(alpha1*b1 - 9/10))
    """
    return sp.simplify(only_root(sp.solve(sp.Eq(hyperexponential_mean(), b1), alpha2), "b1 = beta (-S)^-1 e for alpha2"))


def printed_alpha2():
    """alpha2 as printed in §7 for beta1 = 0.9 (reference only).

    >>> printed_alpha2().subs({alpha1: 9, b1: 1})
    1/9
    """
    return sp.Rational(1, 10) * alpha1 / (b1 * alpha1 - sp.Rational(9, 10))


def hyperexponential_variance():
    r""":math:`\mathrm{var}_s = 2\beta S^{-2} e - (\beta(-S)^{-1}e)^2` (§7).

    >>> hyperexponential_variance().subs({alpha1: 1, alpha2: 1, beta1: sp.Rational(1, 3)})
    1
    """
    S = sp.diag(-alpha1, -alpha2)
    beta = sp.Matrix([[beta1, 1 - beta1]])
    m2 = 2 * (beta * S.inv() ** 2 * sp.ones(2, 1))[0]
    return sp.simplify(m2 - hyperexponential_mean() ** 2)


# --- the Lemma of §3: generator blocks from the model's rules ----------------
#
# A small symbolic instance (W̄ arrival phases, M service phases, R obsolescence
# phases, batches up to kmax, buffer K, a mode chi(i) per level) with generic
# symbols: D_k^(r) off-diagonal and batch rates, S and Γ off-diagonal rates with
# exit rates S_0, Γ_0, initial vectors β, γ.  Diagonals are fixed by the
# generator property (rows of D^(r)(1), of (S S_0), of (Γ Γ_0) sum to 0).


class LemmaModel:
    """Generic symbolic model components for the Lemma (§2-§3).

    >>> LemmaModel(W_=2, M_=1, R_=1, kmax=1, modes=1).D(1, 0)
    Matrix([
    [-d1_0_01 - d1_1_00 - d1_1_01,                      d1_0_01],
    [                     d1_0_10, -d1_0_10 - d1_1_10 - d1_1_11]])
    """

    def __init__(self, W_=2, M_=2, R_=2, kmax=2, modes=2):
        self.W, self.M, self.R, self.kmax, self.modes = W_, M_, R_, kmax, modes
        self._D = {}
        for r in range(1, modes + 1):
            batches = {k: sp.Matrix(W_, W_, lambda a, b, k=k: sp.Symbol(f"d{r}_{k}_{a}{b}", nonnegative=True))
                       for k in range(1, kmax + 1)}
            D0 = sp.Matrix(W_, W_, lambda a, b: sp.Symbol(f"d{r}_0_{a}{b}", nonnegative=True) if a != b else 0)
            for a in range(W_):
                D0[a, a] = -sum(D0[a, :]) - sum(sum(batches[k][a, :]) for k in batches)
            self._D[r] = {0: D0, **batches}
        self.beta = self._stochastic("beta", M_)
        self.gamma = self._stochastic("gamma", R_)
        self.S0 = sp.Matrix([sp.Symbol(f"s0_{m}", nonnegative=True) for m in range(M_)])
        self.G0 = sp.Matrix([sp.Symbol(f"g0_{x}", nonnegative=True) for x in range(R_)])
        self.S = self._subgenerator("s", M_, self.S0)
        self.Gamma = self._subgenerator("g", R_, self.G0)

    @staticmethod
    def _stochastic(name, n):
        """A generic probability row vector: the last entry is 1 minus the others."""
        head = [sp.Symbol(f"{name}{a}", nonnegative=True) for a in range(n - 1)]
        return sp.Matrix([[*head, 1 - sum(head)]])

    @staticmethod
    def _subgenerator(name, n, exits):
        T = sp.Matrix(n, n, lambda a, b: sp.Symbol(f"{name}{a}{b}", nonnegative=True) if a != b else 0)
        for a in range(n):
            T[a, a] = -sum(T[a, :]) - exits[a]
        return T

    def D(self, r, k):
        """D_k^(r) (zero beyond kmax).

        >>> LemmaModel(1, 1, 1, kmax=2, modes=1).D(1, 3)
        Matrix([[0]])
        """
        return self._D[r][k] if k <= self.kmax else sp.zeros(self.W, self.W)

    def D_tail(self, r, k):
        """sum_{k' >= k} D_k'^(r) = D^(r)(1) - sum_{k' < k} D_k'^(r), k >= 1.

        >>> LemmaModel(1, 1, 1, kmax=2, modes=1).D_tail(1, 2)
        Matrix([[d1_2_00]])
        """
        return sum((self.D(r, kk) for kk in range(k, self.kmax + 1)), sp.zeros(self.W, self.W))

    def D_one(self, r):
        """D^(r)(1) = sum_k D_k^(r) (a generator: with W̄ = 1 it is 0).

        >>> LemmaModel(1, 1, 1, kmax=2, modes=1).D_one(1)
        Matrix([[0]])
        """
        return self.D(r, 0) + self.D_tail(r, 1)


def lemma_states(model: LemmaModel, K_: int) -> list[tuple]:
    """States (i, nu, m, r_1, ..., r_{i-1}) of §3 in lexicographic order.

    >>> len(lemma_states(LemmaModel(2, 2, 2), 3))
    30
    """
    out = [(0, nu) for nu in range(model.W)]
    for level in range(1, K_ + 1):
        out += [(level, *s) for s in itertools.product(range(model.W), range(model.M), *[range(model.R)] * (level - 1))]
    return out


def _events(model: LemmaModel, K_: int, chi, state):
    """(target state, rate) for every event of §2 leaving ``state``: phase
    changes of the arrival process, batch arrivals (partial admission, the
    first page of a batch arriving at an empty system starts service with β,
    buffered pages take an obsolescence phase from γ each), service phase
    changes and completions (the head of the buffer starts service with β),
    obsolescence phase changes and expiry of the page at each position."""
    level, nu = state[0], state[1]
    r = chi[level]
    for nu2 in range(model.W):
        if nu2 != nu:
            yield (level, nu2, *state[2:]), model.D(r, 0)[nu, nu2]
        for k in range(1, model.kmax + 1):
            rate = model.D(r, k)[nu, nu2]
            accepted = min(k, K_ - level)
            if accepted == 0:
                if nu2 != nu:
                    yield (level, nu2, *state[2:]), rate
                continue
            fresh = accepted - 1 if level == 0 else accepted
            for phases in itertools.product(range(model.R), repeat=fresh):
                weight = sp.Mul(*[model.gamma[0, x] for x in phases])
                if level == 0:
                    for m in range(model.M):
                        yield (accepted, nu2, m, *phases), rate * model.beta[0, m] * weight
                else:
                    yield (level + accepted, nu2, *state[2:], *phases), rate * weight
    if level == 0:
        return
    m, buffer = state[2], state[3:]
    for m2 in range(model.M):
        if m2 != m:
            yield (level, nu, m2, *buffer), model.S[m, m2]
    if level == 1:
        yield (0, nu), model.S0[m]
    else:
        for m2 in range(model.M):
            yield (level - 1, nu, m2, *buffer[1:]), model.S0[m] * model.beta[0, m2]
    for q, x in enumerate(buffer):
        for x2 in range(model.R):
            if x2 != x:
                yield (level, nu, m, *buffer[:q], x2, *buffer[q + 1:]), model.Gamma[x, x2]
        yield (level - 1, nu, m, *buffer[:q], *buffer[q + 1:]), model.G0[x]


def generator_from_rules(model: LemmaModel, K_: int, chi) -> sp.Matrix:
    """The generator Q of ξ_t built state by state from the rules of §2
    (diagonal = minus the row's off-diagonal rates); ``chi[i]`` is the mode
    at level i.

    >>> Q = generator_from_rules(LemmaModel(1, 1, 1, kmax=1, modes=1), 2, (1, 1, 1))
    >>> sp.simplify(Q * sp.ones(Q.rows, 1)).T
    Matrix([[0, 0, 0]])
    """
    states = lemma_states(model, K_)
    index = {st: n for n, st in enumerate(states)}
    Q = sp.zeros(len(states), len(states))
    for st in states:
        for target, rate in _events(model, K_, chi, st):
            Q[index[st], index[target]] += rate
    for n in range(len(states)):
        Q[n, n] = -sum(Q[n, c] for c in range(len(states)) if c != n)
    return Q


def _eye(n):
    return sp.eye(n)


def _kron(*factors):
    out = factors[0]
    for f in factors[1:]:
        out = sp.kronecker_product(out, f)
    return out


def lemma_recipe(level: int, target: int, K_: int) -> list[tuple]:
    """The block Q_{level,target} of the Lemma as a sum of Kronecker products,
    each term a tuple of factor tokens (plain data, no SymPy):

    ``("D", k)`` D_k^(chi(level)); ``("Dtail", k)`` sum_{k'>=k} D_k'; ``("D1",)``
    D(1); ``("I", a, b, c)`` the identity of size W̄^a M^b R^c; ``("beta",)``;
    ``("gamma", l)`` γ^{⊗l}; ``("S",)``; ``("S0",)``; ``("S0beta",)`` S_0 β;
    ``("eR",)`` the column of R ones; ``("Gamma",)``; ``("Gamma0",)``.

    Kronecker sums are expanded (A ⊕ B = A ⊗ I + I ⊗ B), Γ^{⊕n} and
    Γ_0^{⊕n} as sums over the buffer position q.  Corrections to the printed
    Lemma: level 0 uses the mode chi(0) (printed: N); Γ_0^{⊕n} is
    sum_q I_{R^{q-1}} ⊗ Γ_0 ⊗ I_{R^{n-q}} (printed: "Γ_0 ⊕ ... ⊕ Γ").

    >>> lemma_recipe(1, 0, 3)
    [(('I', 1, 0, 0), ('S0',))]
    """
    if level == 0:
        if target == 0:
            return [(("D", 0),)]
        head = ("D", target) if target < K_ else ("Dtail", K_)
        return [(head, ("beta",), ("gamma", target - 1))]
    n = level - 1  # pages in the buffer
    if target == level - 1:
        if level == 1:
            return [(("I", 1, 0, 0), ("S0",))]
        return ([(("I", 1, 0, 0), ("S0beta",), ("eR",), ("I", 0, 0, n - 1))]
                + [(("I", 1, 1, q - 1), ("Gamma0",), ("I", 0, 0, n - q)) for q in range(1, n + 1)])
    if target == level:
        arrivals = ("D", 0) if level < K_ else ("D1",)
        return ([(arrivals, ("I", 0, 1, n)), (("I", 1, 0, 0), ("S",), ("I", 0, 0, n))]
                + [(("I", 1, 1, q - 1), ("Gamma",), ("I", 0, 0, n - q)) for q in range(1, n + 1)])
    if target > level:
        jump = target - level
        head = ("D", jump) if jump < K_ - level else ("Dtail", jump)
        return [(head, ("I", 0, 1, n), ("gamma", jump))]
    return []


def generated_sources() -> dict:
    """Rule functions emitted verbatim by ``crawlmath codegen`` (plain Python,
    no SymPy): :func:`lemma_recipe` goes to
    ``numeric/generated/avrachenkov_lemma.py``, from which
    ``numeric/bmap_model.kronecker_blocks`` assembles the generator.  The
    recipe emitted is the one :func:`lemma_residuals` verifies symbolically
    (claim ``avrachenkov.lemma.derived.blocks``).

    >>> [fn.__name__ for fn in generated_sources()["avrachenkov_lemma"]["functions"]]
    ['lemma_recipe']
    """
    doc = ("The Lemma of §3 (Avrachenkov et al.) as a recipe of Kronecker products:\n"
           "the rule function of crawlmath.derive.avrachenkov, verified there against the\n"
           "generator built symbolically from the model's rules (claim\n"
           "avrachenkov.lemma.derived.blocks); numeric/bmap_model.kronecker_blocks\n"
           "interprets its tokens.")
    return {"avrachenkov_lemma": {"doc": doc, "functions": (lemma_recipe,)}}


def _factor(model: LemmaModel, mode: int, token: tuple) -> sp.Matrix:
    name = token[0]
    if name == "D":
        return model.D(mode, token[1])
    if name == "Dtail":
        return model.D_tail(mode, token[1])
    if name == "D1":
        return model.D_one(mode)
    if name == "I":
        return _eye(model.W ** token[1] * model.M ** token[2] * model.R ** token[3])
    if name == "gamma":
        return _kron(sp.ones(1, 1), *[model.gamma] * token[1])
    fixed = {"beta": model.beta, "S": model.S, "S0": model.S0, "S0beta": model.S0 * model.beta,
             "eR": sp.ones(model.R, 1), "Gamma": model.Gamma, "Gamma0": model.G0}
    if name not in fixed:
        raise DerivationError(f"unknown recipe token {token}")
    return fixed[name]


def lemma_block(model: LemmaModel, level: int, target: int, K_: int, chi) -> sp.Matrix | None:
    """Q_{level,target} assembled from :func:`lemma_recipe` (None: a zero block).

    >>> lemma_block(LemmaModel(1, 1, 1, kmax=1, modes=1), 1, 0, 2, (1, 1, 1))
    Matrix([[s0_0]])
    """
    terms = lemma_recipe(level, target, K_)
    if not terms:
        return None
    return sum((_kron(*[_factor(model, chi[level], tok) for tok in term]) for term in terms[1:]),
               _kron(*[_factor(model, chi[level], tok) for tok in terms[0]]))


def level_offsets(model: LemmaModel, K_: int) -> list[int]:
    """First row of each level 0..K (and the total) in the state order of §3.

    >>> level_offsets(LemmaModel(2, 2, 2), 3)
    [0, 2, 6, 14, 30]
    """
    sizes = [model.W if lv == 0 else model.W * model.M * model.R ** (lv - 1) for lv in range(K_ + 1)]
    return [sum(sizes[:lv]) for lv in range(K_ + 2)]


@functools.cache
def lemma_residuals(W_=2, M_=2, R_=2, kmax=3, K_=3, chi=(1, 2, 2, 1)) -> dict:
    """Compare, block by block, the generator derived from the rules
    (:func:`generator_from_rules`) with the Lemma's Kronecker form
    (:func:`lemma_block`) on a generic symbolic instance; returns
    ``{(i, j): residual}`` for the blocks whose difference does not expand
    to the zero matrix (empty: the corrected Lemma holds).  The default mode
    map uses mode 1 at level 0 and mode 2 = N elsewhere, so the level-0
    correction is exercised; kmax = K exercises the tail blocks.

    >>> lemma_residuals(W_=1, M_=2, R_=2, kmax=2, K_=2, chi=(1, 1, 1))
    {}
    """
    model = LemmaModel(W_, M_, R_, kmax, max(chi))
    Q = generator_from_rules(model, K_, chi)
    off = level_offsets(model, K_)
    bad = {}
    for lv in range(K_ + 1):
        for tg in range(K_ + 1):
            block = Q[off[lv]:off[lv + 1], off[tg]:off[tg + 1]]
            kron = lemma_block(model, lv, tg, K_, chi)
            diff = (block if kron is None else block - kron).applyfunc(sp.expand)
            if not diff.is_zero_matrix:
                bad[(lv, tg)] = diff
    return bad


def printed_level0_block(model: LemmaModel, target: int, K_: int) -> sp.Matrix:
    """Q_{0,target} as printed: mode N (all robots) at level 0, whatever chi(0).

    >>> printed_level0_block(LemmaModel(1, 1, 1, kmax=1, modes=2), 0, 2)
    Matrix([[-d2_1_00]])
    """
    return lemma_block(model, 0, target, K_, {0: model.modes})


def formulas() -> list[Formula]:
    """The closed forms emitted to ``numeric/generated/avrachenkov.py``.

    >>> [f.name for f in formulas()]
    ['avrachenkov_states', 'avrachenkov_alpha2', 'avrachenkov_h2_variance']
    """
    return [
        Formula("avrachenkov_states", (W, M, R, K), state_space_dimension(), CITE, "state-space dimension of the chain xi_t",
                printed=printed_dimension(), domain={"W": (1, 4), "M": (1, 4), "R": (1, 4), "K": (1, 20)}),
        Formula("avrachenkov_alpha2", (alpha1, b1, beta1), alpha2_for_mean(), "(Avrachenkov et al., §7)",
                "alpha2 keeping the hyperexponential mean at b1 (needs alpha1 b1 > beta1)",
                domain={"alpha1": (2.0, 10.0), "b1": (0.6, 2.0), "beta1": (0.05, 0.9)}),
        Formula("avrachenkov_h2_variance", (alpha1, alpha2, beta1), hyperexponential_variance(), "(Avrachenkov et al., §7)",
                "variance of the two-phase hyperexponential",
                domain={"alpha1": (0.1, 10.0), "alpha2": (0.1, 10.0), "beta1": (0.01, 0.99)}),
    ]
