"""BMAP/PH/1/K with PH obsolescence and threshold control of the number of
active robots (Avrachenkov, Dudin, Klimenok, Nain, Semenova; seed 000).

Notation (§2–§4 of the paper):

- ``K``: at most K pages in the system (buffer K-1, one in service);
- ``arrivals[r-1]``: the BMAP ``(D_0^(r), D_1^(r), ...)`` when r robots are
  active (interpretation 4 of §2; the other three build such a list, see
  :mod:`crawlmath.numeric.bmap._phase_type`);
- ``service = (beta, S)`` of order ``M``; ``obsolescence = (gamma, Gamma)`` of
  order ``R``: each page *waiting in the buffer* carries its own obsolescence
  phase and leaves, lost, when it is absorbed;
- ``chi(i)``: robots active when i pages are in the system (the policy).

The chain ``xi_t = (i, nu, m, r_1, ..., r_{i-1})`` has levels of size
``W̄`` (i = 0) and ``W̄ M R^(i-1)`` (i >= 1), states in lexicographic order,
buffered pages in arrival order (``r_1`` is next into service).  Its
generator is built twice: from the Lemma of §3 (`kronecker_blocks`) and by
enumerating states and events (`enumerate_generator`).

Measures (Theorems 1–3, Corollary 1): ``P_star = p_0 e``, ``N_act``, ``lam``
(eq. 9), ``P_loss`` (the direct count of lost pages, and eq. 8), ``P_obs``
(eq. 14), ``P_success`` (eq. 15), the mean sojourn times ``V1`` (served
pages), ``V2`` (obsolete pages) and ``V = V1 P_success + V2 P_obs`` from a
tagged-page absorbing chain, and the cost ``J`` of eq. (2):
``J = lam (c_loss P_loss + c_obs P_obs) + a V1 + c_rob N_act + c_star P_star``.

Threshold optimisation (`optimize`, §7's direct approach) evaluates every
candidate at once (`batched_costs`): a level's rows of Q and its weights in
every measure depend only on the robots active at that level.

Certified values (issues 17, 30): `certified_cost` encloses J in arb balls
at >= 30 digits for the model's exact inputs (the decimals of the model
file as printed, kept as Fractions through lumping and scaling), cross-
checked against float64; `certify_argmin` decides the cheapest of finitely
many policies from those enclosures.

>>> m = example_model()                    # §7 example, corrected D-matrices
>>> r = evaluate(m, Policy((3,), ()))
>>> round(r.cost, 3)
89.405
"""
from __future__ import annotations

import itertools
import math
import sys
from fractions import Fraction
from dataclasses import dataclass, field
from functools import cached_property
from typing import Callable, Sequence

import numpy as np
import scipy.sparse as sps
import scipy.sparse.linalg as spla

from ..errors import InvalidInput, SolverError, TooLarge
from ..generated import avrachenkov_lemma as lemma
from ..tolerance import FLOAT_REL, STRUCTURE_ABS
from ._phase_type import BMAP, Lumping, PhaseType, exact, random_bmap, random_phase_type
from ..validate import require_int, require_memory, require_real, require_seconds

# --- model and policy -------------------------------------------------------


@dataclass(frozen=True)
class Costs:
    """Cost coefficients of eq. (2), all >= 0."""

    c_loss: float = 0.0
    c_obs: float = 0.0
    a: float = 0.0
    c_rob: float = 0.0
    c_star: float = 0.0

    def __post_init__(self):
        for name in ("c_loss", "c_obs", "a", "c_rob", "c_star"):
            v = require_real(getattr(self, name), name)
            if v < 0:
                raise InvalidInput(name, "cost coefficients must be >= 0", value=v)


@dataclass(frozen=True)
class Policy:
    """A threshold policy: ``modes`` are robot counts in the order in which
    they are used as the queue grows (normally decreasing), ``thresholds`` the
    ``j_1 <= ... <= j_{n-1}``: mode ``modes[r]`` is used for
    ``j_r + 1 <= i <= j_{r+1}`` pages in the system (``j_0 = -1``, ``j_n = K``).
    Equal thresholds (non-strict, §2) leave a mode unused."""

    modes: tuple[int, ...]
    thresholds: tuple[int, ...] = ()

    def __post_init__(self):
        if not self.modes:
            raise InvalidInput("modes", "must name at least one mode", value=self.modes)
        if len(self.thresholds) != len(self.modes) - 1:
            raise InvalidInput("thresholds", f"need {len(self.modes) - 1} thresholds for {len(self.modes)} modes", value=self.thresholds)
        for k, j in enumerate(self.thresholds):
            require_int(j, "thresholds", minimum=-1)
            if k and j < self.thresholds[k - 1]:
                raise InvalidInput("thresholds", "must be non-decreasing", value=self.thresholds, entry=k)

    @property
    def strict(self) -> bool:
        """True when every mode is used for at least one level."""
        t = (-1, *self.thresholds)
        return all(b > a for a, b in zip(t, t[1:]))

    def levels(self, K: int) -> tuple[int, ...]:
        """``(chi(0), ..., chi(K))``."""
        if self.thresholds and self.thresholds[-1] > K:
            raise InvalidInput("thresholds", f"must be <= K = {K}", value=self.thresholds)
        bounds = (*self.thresholds, K)
        return tuple(self.modes[next(r for r, j in enumerate(bounds) if i <= j)] for i in range(K + 1))


class BmapModel:
    """The model of §2: ``arrivals[r-1]`` is the BMAP with r robots active.

    With ``reduce=True`` (the default) the chain is built on the exactly
    lumped representations of service and obsolescence (`Lumping`): same
    measures, fewer phases.  ``service`` and ``obsolescence`` are then the
    reduced representations; ``given_service`` / ``given_obsolescence`` keep
    what was passed, ``lumpings`` how they were reduced (None when
    ``reduce=False``).  The §7 example's obsolescence ``(γ, Γ)`` has equal
    exit rates 0.2, so it is exponential and R drops from 2 to 1: the chain
    has ``W̄ (1 + M K)`` states instead of ``W̄ (1 + M (2^K - 1))``.
    """

    def __init__(self, arrivals: Sequence[BMAP], service: PhaseType, obsolescence: PhaseType, K: int, costs: Costs = Costs(),
                 reduce: bool = True):
        if not arrivals:
            raise InvalidInput("arrivals", "needs at least one BMAP", value=0)
        W = arrivals[0].order
        for r, b in enumerate(arrivals, start=1):
            if not isinstance(b, BMAP):
                raise InvalidInput("arrivals", "must be BMAP objects", value=type(b).__name__, entry=r - 1)
            if b.order != W:
                raise InvalidInput(f"D^({r})", f"must have order {W} like D^(1)", value=b.order)
        self.arrivals = tuple(arrivals)
        self.given_service, self.given_obsolescence = service, obsolescence
        self.reduce = bool(reduce)
        self.lumpings = (Lumping(service), Lumping(obsolescence)) if self.reduce else None
        self.service = self.lumpings[0].reduced if self.reduce else service
        self.obsolescence = self.lumpings[1].reduced if self.reduce else obsolescence
        self.K = require_int(K, "K", minimum=1)
        self.costs = costs
        self.kmax = max(b.kmax for b in arrivals)
        self._D = [b.batch_rates(self.kmax) for b in arrivals]
        self._D_exact = [b.batch_rates_exact(self.kmax) for b in arrivals]
        self._memo: dict = {}  # policy-independent blocks and tagged-page vectors

    def memo(self, key, build: Callable):
        """``build()`` computed once per ``key`` and cached on the model (policy-independent blocks, tagged-page vectors)."""
        if key not in self._memo:
            self._memo[key] = build()
        return self._memo[key]

    @property
    def N(self) -> int:
        """The number of robot modes, i.e. of BMAPs given (r = 1..N)."""
        return len(self.arrivals)

    @property
    def W(self) -> int:
        """W̄, the order of the arrival BMAPs (the same for every r)."""
        return self.arrivals[0].order

    @property
    def M(self) -> int:
        """M, the order of the service PH (after lumping when ``reduce``)."""
        return self.service.order

    @property
    def R(self) -> int:
        """R, the order of the obsolescence PH (after lumping when ``reduce``)."""
        return self.obsolescence.order

    def level_size(self, i: int) -> int:
        """Size of level i of the chain: W̄ for i = 0, W̄ M R^(i-1) for i >= 1."""
        return self.W if i == 0 else self.W * self.M * self.R ** (i - 1)

    @property
    def states(self) -> int:
        """``W̄ (1 + M (R^K - 1)/(R - 1))`` (``W̄ (1 + M K)`` when R = 1)."""
        return sum(self.level_size(i) for i in range(self.K + 1))

    def D(self, r: int, k: int) -> np.ndarray:
        """``D_k^(r)`` (zero beyond the largest batch)."""
        return self._D[r - 1][k] if k <= self.kmax else np.zeros((self.W, self.W))

    def D_exact(self, r: int, k: int) -> np.ndarray:
        """``D_k^(r)`` as the exact (Fraction) array the model was given (zero beyond the largest batch)."""
        return self._D_exact[r - 1][k] if k <= self.kmax else np.full((self.W, self.W), 0, dtype=object)

    def D_tail(self, r: int, k: int) -> np.ndarray:
        """``sum_{k' >= k} D_{k'}^(r)`` for k >= 1 (= ``D(1) - sum_{k'<k} D_k'``)."""
        return self._D[r - 1][k:].sum(axis=0)

    @property
    def full_states(self) -> int:
        """States of the chain on the representations as given (before
        lumping), an exact integer: ``W̄ (1 + M (R^K - 1)/(R - 1))``."""
        W, M, R = self.W, self.given_service.order, self.given_obsolescence.order
        return W * (1 + M * (self.K if R == 1 else (R**self.K - 1) // (R - 1)))

    def reduction(self) -> str:
        """One line: phases and states before and after lumping."""
        if not self.reduce:
            return f"not reduced (--no-reduce): M = {self.M}, R = {self.R}, {self.states} states"
        (ls, lo) = self.lumpings
        return (f"service M = {ls.order_before} -> {ls.order_after}, obsolescence R = {lo.order_before} -> {lo.order_after}; "
                f"states {self.full_states} -> {self.states}")

    def with_K(self, K: int) -> "BmapModel":
        """A copy of the model with buffer bound ``K``."""
        return self.with_(K=K)

    def with_(self, **kw) -> "BmapModel":
        """A new model with the given constructor arguments replaced (from the representations as given, not lumped)."""
        args = dict(arrivals=self.arrivals, service=self.given_service, obsolescence=self.given_obsolescence, K=self.K,
                    costs=self.costs, reduce=self.reduce)
        args.update(kw)
        return BmapModel(**args)

    def check_policy(self, policy: Policy) -> tuple[int, ...]:
        """Validate the policy's modes (robot counts in 1..N) and return its levels (chi(0), ..., chi(K))."""
        for k, r in enumerate(policy.modes):
            if isinstance(r, bool) or not isinstance(r, (int, np.integer)) or not 1 <= r <= self.N:
                raise InvalidInput("modes", f"robot counts must lie in 1..{self.N}", value=r, entry=k)
        return policy.levels(self.K)


# --- the generator, two ways -----------------------------------------------


def _kron(*ms):
    out = ms[0]
    for m in ms[1:]:
        out = sps.kron(out, m, format="csr")
    return sps.csr_matrix(out)


def _eye(n):
    return sps.identity(n, format="csr")


def kron_dense(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    """``a ⊗ b`` of two 2-D float arrays, entry ``(i b_rows + k, j b_cols + l) = a_ij b_kl``: one product per entry, as
    ``np.kron`` (so the same bits, signed zeros included), by a single broadcast multiply instead of ``np.kron``'s
    generic n-dimensional path (~6x less overhead on the small blocks built here by the thousand)."""
    return (a[:, None, :, None] * b[None, :, None, :]).reshape(a.shape[0] * b.shape[0], a.shape[1] * b.shape[1])


def kron_sum_power(F: np.ndarray, n: int):
    """``F^{⊕n} = sum_q I_{R^{q-1}} ⊗ F ⊗ I_{R^{n-q}}`` (the Lemma's notation):
    for the square Γ the sum of its n copies acting on the buffered pages;
    for the column Γ_0 (R^n x R^{n-1}) the buffered page at position q
    becoming obsolete (the Lemma prints Γ_0^{⊕n} as ``Γ_0 ⊕ ... ⊕ Γ``, a
    Kronecker sum of column vectors ending in Γ).  With one phase (R = 1,
    e.g. after lumping) the n terms are equal: n F.  ``n = 0`` gives the
    1 x 1 zero."""
    F = np.asarray(F, dtype=float)
    F = F.reshape(-1, 1) if F.ndim == 1 else F
    R = F.shape[0]
    if n == 0:
        return sps.csr_matrix((1, 1))
    if R == 1:
        return sps.csr_matrix(n * F)
    return sum(_kron(_eye(R ** (q - 1)), sps.csr_matrix(F), _eye(R ** (n - q))) for q in range(1, n + 1))


def A_block(model: BmapModel, n: int):
    """``A_n = S ⊕ Γ^{⊕n}`` (M R^n square)."""
    return model.memo(("A", n), lambda: _A_block(model, n))


def _A_block(model: BmapModel, n: int):
    S = sps.csr_matrix(model.service.S)
    if n == 0:
        return S
    return _kron(S, _eye(model.R**n)) + _kron(_eye(model.M), kron_sum_power(model.obsolescence.S, n))


def A_dense(model: BmapModel, n: int) -> np.ndarray:
    """`A_block` as a numpy array, built with numpy's Kronecker products
    (the same products and sums; scipy's per-product overhead dominates at
    these sizes)."""
    S = model.service.S
    if n == 0:
        return S.copy()
    F, R = model.obsolescence.S, model.R
    G = n * F if R == 1 else sum(kron_dense(kron_dense(np.eye(R ** (q - 1)), F), np.eye(R ** (n - q))) for q in range(1, n + 1))
    return kron_dense(S, np.eye(R**n)) + kron_dense(np.eye(model.M), G)


def _gamma_pow(model: BmapModel, l: int):
    return model.memo(("gamma", l), lambda: _gamma_pow_build(model, l))


def _gamma_pow_dense(model: BmapModel, l: int) -> np.ndarray:
    """``γ^{⊗l}`` as a 1 x R^l array, from ``γ^{⊗(l-1)}`` (cached)."""
    if l == 0:
        return np.ones((1, 1))
    return model.memo(("gamma dense", l), lambda: kron_dense(_gamma_pow_dense(model, l - 1), model.obsolescence.beta.reshape(1, -1)))


def _gamma_pow_build(model: BmapModel, l: int):
    g = sps.csr_matrix(model.obsolescence.beta.reshape(1, -1))
    out = sps.csr_matrix(np.ones((1, 1)))
    for _ in range(l):
        out = _kron(out, g)
    return out


def kronecker_blocks(model: BmapModel, levels: Sequence[int], *, level0_mode: int | None = None) -> dict:
    """Non-zero blocks ``Q_{i,i'}`` of the Lemma (§3), assembled from the
    recipe derived and verified in :mod:`crawlmath.derive.avrachenkov`
    (``lemma_recipe``, emitted to ``generated/avrachenkov_lemma.py``), with
    its two corrections: level 0 uses ``D^(chi(0))`` (the Lemma prints
    ``D^(N)``, wrong when mode N is not used) unless ``level0_mode`` is
    given; ``Γ_0^{⊕n}`` as in `kron_sum_power`."""
    r0 = levels[0] if level0_mode is None else level0_mode
    return {(i, j): model.memo(("Q", r, i, j), lambda r=r, i=i, j=j: recipe_block(model, r, i, j))
            for i, r in enumerate((r0, *levels[1:])) for j in block_columns(model, i)}


def block_columns(model: BmapModel, i: int) -> range:
    """The levels j with a non-zero block ``Q_{i,j}``: one down (a service completion or an obsolete page), up to ``kmax``
    up (a batch), capped at K."""
    return range(max(i - 1, 0), min(i + model.kmax, model.K) + 1)


SMALL_BLOCK = 1 << 16  # entries of a block built densely even when a sparse block is asked for (`recipe_block`)


def recipe_block(model: BmapModel, r: int, i: int, j: int, dense: bool = False):
    """``Q_{i,j}`` with r robots active at level i: the sum over the terms of
    ``lemma_recipe(i, j, K)`` of the Kronecker products of their factors
    (`_factor`).  Terms that coincide once identities are merged (all the
    positions q of ``Γ^{⊕n}`` when R = 1, e.g. after lumping) are built once
    and scaled by their count, so a level costs O(1) products, not O(n).
    ``dense``: a numpy array, else scipy CSR.  A CSR block of at most
    ``SMALL_BLOCK`` entries is the dense sum converted: the same sums of the
    same products, and CSR keeps the non-zeros in row order as the sparse sum
    (`recipe_block_sparse`; scipy's CSR addition drops zero results) does, so
    the same matrix bit for bit, without scipy's per-product overhead."""
    shape = (model.level_size(i), model.level_size(j))
    if not dense:
        if shape[0] * shape[1] > SMALL_BLOCK:
            return recipe_block_sparse(model, r, i, j)
        return sps.csr_matrix(recipe_block(model, r, i, j, dense=True))
    counts = model.memo(("terms", i, j), lambda: _term_counts(model, i, j))
    return sum((_term_matrix(model, r, key, True) * n for key, n in counts.items()), np.zeros(shape))


def recipe_block_sparse(model: BmapModel, r: int, i: int, j: int):
    """`recipe_block` with scipy's sparse Kronecker products and sums (for large levels; any size)."""
    counts = model.memo(("terms", i, j), lambda: _term_counts(model, i, j))
    shape = (model.level_size(i), model.level_size(j))
    return sum((_term_matrix(model, r, key) * n for key, n in counts.items()), sps.csr_matrix(shape))


def _term_counts(model: BmapModel, i: int, j: int) -> dict:
    """``{canonical term: multiplicity}`` of the recipe of ``Q_{i,j}`` (the same for every mode)."""
    terms = lemma.lemma_recipe(i, j, model.K)
    if not terms:
        raise SolverError(f"the Lemma has no block Q_({i},{j}) (K = {model.K})")
    if model.R == 1:  # R^c = 1: the buffer-position terms of Γ^{⊕n}, Γ_0^{⊕n} coincide; count them before canonicalising
        terms = [tuple(("I", t[1], t[2], 0) if t[0] == "I" else t for t in term) for term in terms]
    raw: dict = {}
    for term in terms:
        raw[term] = raw.get(term, 0) + 1
    counts: dict = {}
    for term, n in raw.items():
        key = _canonical_term(model, term)
        counts[key] = counts.get(key, 0) + n
    return counts


def _canonical_term(model: BmapModel, term: tuple) -> tuple:
    """A recipe term with each identity token ``("I", a, b, c)`` replaced by
    its size ``W̄^a M^b R^c``, adjacent identities merged and size-1
    identities dropped (I_a ⊗ I_b = I_ab, I_1 ⊗ A = A)."""
    out: list = []
    for tok in term:
        if tok[0] == "I":
            size = model.W ** tok[1] * model.M ** tok[2] * model.R ** tok[3]
            if out and out[-1][0] == "I":
                size *= out.pop()[1]
            tok = ("I", size)
        out.append(tok)
    return tuple(t for t in out if t != ("I", 1)) or (("I", 1),)


def _term_matrix(model: BmapModel, r: int, term: tuple, dense: bool = False):
    if dense:
        out = _factor_array(model, r, term[0])
        for tok in term[1:]:
            out = kron_dense(out, _factor_array(model, r, tok))
        return out
    return _kron(*[_factor(model, r, tok) for tok in term])


def _factor(model: BmapModel, r: int, token: tuple):
    """The matrix of one recipe token (see ``lemma_recipe``) for mode r (scipy CSR; identities stay sparse)."""
    if token[0] == "I":
        return _eye(token[1])
    if token[0] == "gamma":
        return _gamma_pow(model, token[1])
    return sps.csr_matrix(_factor_array(model, r, token))


def _factor_array(model: BmapModel, r: int, token: tuple) -> np.ndarray:
    """The matrix of one recipe token (see ``lemma_recipe``) for mode r, as a numpy array."""
    ph, ob = model.service, model.obsolescence
    name = token[0]
    if name == "D":
        return model.D(r, token[1])
    if name == "Dtail":
        return model.D_tail(r, token[1])
    if name == "D1":
        return model.D(r, 0) + model.D_tail(r, 1)
    if name == "I":
        return np.eye(token[1])
    if name == "gamma":
        return _gamma_pow_dense(model, token[1])
    fixed = {"beta": lambda: ph.beta.reshape(1, -1), "S": lambda: ph.S, "S0": lambda: ph.exit.reshape(-1, 1),
             "S0beta": lambda: np.outer(ph.exit, ph.beta), "eR": lambda: np.ones((model.R, 1)),
             "Gamma": lambda: ob.S, "Gamma0": lambda: ob.exit.reshape(-1, 1)}
    if name not in fixed:
        raise SolverError(f"unknown token {token!r} in the generated Lemma recipe")
    return np.asarray(fixed[name](), dtype=float)


def assemble(model: BmapModel, blocks: dict):
    """The generator Q as one CSR matrix from level blocks ``{(i, j): Q_ij}`` (missing diagonal blocks are zero)."""
    sizes = [model.level_size(i) for i in range(model.K + 1)]
    rows = [[blocks.get((i, j)) if (i, j) in blocks else None for j in range(model.K + 1)] for i in range(model.K + 1)]
    for i in range(model.K + 1):
        if rows[i][i] is None:
            rows[i][i] = sps.csr_matrix((sizes[i], sizes[i]))
    return sps.csr_matrix(sps.bmat(rows, format="csr"))


def generator_kronecker(model: BmapModel, levels: Sequence[int]):
    """Q assembled from the Lemma's Kronecker blocks (scipy CSR)."""
    return assemble(model, kronecker_blocks(model, levels))


def state_list(model: BmapModel) -> list[tuple]:
    """States ``(i, nu, m, r_1, ..., r_{i-1})`` in lexicographic order (0-based phases)."""
    out = [(0, nu) for nu in range(model.W)]
    for i in range(1, model.K + 1):
        out += [(i, *s) for s in itertools.product(range(model.W), range(model.M), *[range(model.R)] * (i - 1))]
    return out


def enumerate_transitions(model: BmapModel, levels: Sequence[int], num: Callable = float):
    """Yield ``(state, state', rate)`` for every event of §2, from the model's
    rules, not from the Lemma.  ``num`` converts input numbers: ``float``
    reads the float64 copies; any other converter (arb balls, Fractions)
    reads the model's exact inputs (`PhaseType.S_exact`, `BmapModel.D_exact`)."""
    K, W, M, R = model.K, model.W, model.M, model.R
    ph, ob, ex = model.service, model.obsolescence, num is not float
    beta = [num(x) for x in (ph.beta_exact if ex else ph.beta)]
    S = [[num(x) for x in row] for row in (ph.S_exact if ex else ph.S)]
    S0 = [-sum(row) for row in S]
    gam = [num(x) for x in (ob.beta_exact if ex else ob.beta)]
    G = [[num(x) for x in row] for row in (ob.S_exact if ex else ob.S)]
    G0 = [-sum(row) for row in G]
    D = {(r, k): [[num(x) for x in row] for row in (model.D_exact(r, k) if ex else model.D(r, k))]
         for r in set(levels) for k in range(model.kmax + 1)}

    def new_pages(n):  # phases and probability of n fresh buffered pages
        for rs in itertools.product(range(R), repeat=n):
            w = num(1)
            for x in rs:
                w *= gam[x]
            yield rs, w

    for s in state_list(model):
        i, nu = s[0], s[1]
        r = levels[i]
        for nu2 in range(W):
            if nu2 != nu and D[(r, 0)][nu][nu2]:
                yield s, (i, nu2, *s[2:]), D[(r, 0)][nu][nu2]
            for k in range(1, model.kmax + 1):
                rate = D[(r, k)][nu][nu2]
                if not rate:
                    continue
                a = min(k, K - i)
                if a == 0:
                    if nu2 != nu:
                        yield s, (K, nu2, *s[2:]), rate
                elif i == 0:
                    for m in range(M):
                        for rs, w in new_pages(a - 1):
                            yield s, (a, nu2, m, *rs), rate * beta[m] * w
                else:
                    for rs, w in new_pages(a):
                        yield s, (i + a, nu2, *s[2:], *rs), rate * w
        if i == 0:
            continue
        m, buf = s[2], s[3:]
        for m2 in range(M):
            if m2 != m and S[m][m2]:
                yield s, (i, nu, m2, *buf), S[m][m2]
        if S0[m]:
            if i == 1:
                yield s, (0, nu), S0[m]
            else:
                for m2 in range(M):
                    if beta[m2]:
                        yield s, (i - 1, nu, m2, *buf[1:]), S0[m] * beta[m2]
        for q, rq in enumerate(buf):
            for r2 in range(R):
                if r2 != rq and G[rq][r2]:
                    yield s, (i, nu, m, *buf[:q], r2, *buf[q + 1 :]), G[rq][r2]
            if G0[rq]:
                yield s, (i - 1, nu, m, *buf[:q], *buf[q + 1 :]), G0[rq]


def generator_enumerated(model: BmapModel, levels: Sequence[int]):
    """Q built state by state from `enumerate_transitions` (scipy CSR)."""
    index = {s: n for n, s in enumerate(state_list(model))}
    rows, cols, vals = [], [], []
    for s, t, rate in enumerate_transitions(model, levels):
        rows.append(index[s])
        cols.append(index[t])
        vals.append(rate)
    n = len(index)
    Q = sps.csr_matrix((vals, (rows, cols)), shape=(n, n))
    Q = Q - sps.diags(np.asarray(Q.sum(axis=1)).ravel())
    return sps.csr_matrix(Q)


# --- stationary solvers ------------------------------------------------------


@dataclass(frozen=True)
class Stationary:
    """Stationary vector split by level, and how it was obtained."""

    p: tuple  # p[i]: level-i probability vector
    method: str
    residual: float  # max |p Q| (computed by the caller's generator or matrix-free)
    iterations: int = 0
    seconds: float = 0.0

    @property
    def flat(self) -> np.ndarray:
        """The stationary vector p = (p_0, ..., p_K) as one array."""
        return np.concatenate(self.p)


DIRECT_LIMIT = 300_000


def _gated(st: Stationary, Q) -> Stationary:
    """Result gate of the direct solvers: p finite, p >= 0 and p e = 1 up to
    rounding (``STRUCTURE_ABS``), and max|pQ| within ``FLOAT_REL`` of the
    generator's largest rate (``not res <= tol``, so nan fails).  A singular
    or ill-conditioned system raises `SolverError` instead of a silent answer."""
    x = st.flat
    scale = max(1.0, float(abs(Q).max()))
    if not (np.all(np.isfinite(x)) and x.min() >= -STRUCTURE_ABS and abs(float(x.sum()) - 1) <= STRUCTURE_ABS):
        raise SolverError(f"{st.method}: the stationary vector is not a probability vector (min {x.min()!r}, sum {x.sum()!r})")
    if not st.residual <= FLOAT_REL * scale:
        raise SolverError(f"{st.method}: residual max|pQ| = {st.residual:.3g} above {FLOAT_REL:g} x max|Q| = {scale:.3g}")
    return st


def split_levels(model: BmapModel, x) -> tuple:
    """Split a flat vector over the chain's states into its K + 1 level pieces (p_0, ..., p_K)."""
    out, start = [], 0
    for i in range(model.K + 1):
        n = model.level_size(i)
        out.append(x[start : start + n])
        start += n
    return tuple(out)


LARGE_DIRECT = 2000  # states from which `solve_sparse_direct` orders by minimum degree on A^T + A


def solve_sparse_direct(model: BmapModel, levels: Sequence[int], Q=None) -> Stationary:
    """Sparse LU (SuperLU) of ``Q^T`` with the last equation replaced by ``p e = 1``."""
    if model.states > DIRECT_LIMIT:
        raise TooLarge("K", f"sparse direct solve limited to {DIRECT_LIMIT} states", value=model.K)
    Q = generator_kronecker(model, levels) if Q is None else Q
    n = Q.shape[0]
    A = sps.lil_matrix(Q.T)
    A[n - 1, :] = np.ones(n)
    b = np.zeros(n)
    b[-1] = 1
    # The row of ones is dense: on chains of thousands of states COLAMD (SuperLU's default) orders it into ~2.8x the time
    # of a minimum-degree ordering of A^T + A (K = 10, 4094 states: 4.8 s against 1.7 s, the same p to 4e-13 relative)
    spec = "MMD_AT_PLUS_A" if n >= LARGE_DIRECT else "COLAMD"
    x = spla.spsolve(sps.csc_matrix(A), b, permc_spec=spec)
    return _gated(Stationary(split_levels(model, x), "sparse-direct (SuperLU)", float(np.abs(Q.T @ x).max())), Q)


def generator_dense(model: BmapModel, levels: Sequence[int]) -> np.ndarray:
    """Q as a dense array from the Lemma's blocks built densely (`recipe_block`, cached); for small models."""
    sizes = [model.level_size(i) for i in range(model.K + 1)]
    off = np.concatenate([[0], np.cumsum(sizes)])
    Q = np.zeros((off[-1], off[-1]))
    for i in range(model.K + 1):
        for j in block_columns(model, i):
            blk = model.memo(("Q dense", levels[i], i, j), lambda i=i, j=j: recipe_block(model, levels[i], i, j, dense=True))
            Q[off[i] : off[i + 1], off[j] : off[j + 1]] = blk
    return Q


def solve_dense(model: BmapModel, levels: Sequence[int]) -> Stationary:
    """p by the GTH elimination (`crawlmath.numeric.markov._ctmc.ctmc_stationary`) of the dense-assembled generator restricted to
    its closed class (small models); p = 0 on the other states (phases that nothing enters, e.g. of a PH representation
    whose β and S never reach a phase).

    GTH subtracts nothing, so p >= 0 and every entry, however small, has full relative accuracy: the top levels of a
    long buffer (p ~ 1e-28 at K = 70 in the §7 example) and P_loss with them.  An LU solve leaves such entries at
    ±1e-17 absolute, and P_loss printed as -1.8e-17."""
    from ..markov._ctmc import ctmc_stationary

    if model.states > 3000:
        raise TooLarge("K", "dense solve limited to 3000 states", value=model.K)
    Q = generator_dense(model, levels)
    keep = closed_class(Q)
    st = ctmc_stationary(Q[np.ix_(keep, keep)])
    x = np.zeros(Q.shape[0])
    x[keep] = st.pi
    method = f"ctmc_stationary ({st.method}) of the dense-assembled generator, {keep.size} recurrent states"
    return _gated(Stationary(split_levels(model, x), method, float(np.abs(x @ Q).max())), Q)


def closed_class(Q: np.ndarray) -> np.ndarray:
    """The states of the only closed communicating class of the generator Q (sorted indices); `SolverError` when there
    are several (no unique stationary vector).  The other states are transient: p = 0 there."""
    from scipy.sparse import csgraph

    rates = sps.csr_matrix((Q > 0) & ~np.eye(Q.shape[0], dtype=bool))
    count, label = csgraph.connected_components(rates, directed=True, connection="strong")
    if count == 1:
        return np.arange(Q.shape[0])
    rows, cols = rates.nonzero()
    leaving = np.unique(label[rows[label[rows] != label[cols]]])
    closed = np.setdiff1d(np.arange(count), leaving)
    if closed.size != 1:
        first = [int(np.flatnonzero(label == c)[0]) for c in closed]
        raise SolverError(f"the chain has {closed.size} closed classes (containing states {first}): its stationary vector is not unique")
    return np.flatnonzero(label == closed[0])


def solve_block_recursion(model: BmapModel, levels: Sequence[int]) -> Stationary:
    """The algorithm of §3 (from [9]): matrices G_i by backward recursion,
    censored blocks Q̄_{i,l}, F_l, then p_0 and p_i = p_0 F_i.  Dense blocks."""
    if model.states > 20_000:
        raise TooLarge("K", "dense block recursion limited to 20000 states", value=model.K)
    K = model.K
    Qb = {k: v.toarray() for k, v in kronecker_blocks(model, levels).items()}
    Z = lambda i, j: Qb.get((i, j), np.zeros((model.level_size(i), model.level_size(j))))  # noqa: E731
    G: dict[int, np.ndarray] = {}
    prod: dict[tuple[int, int], np.ndarray] = {}  # prod[(a, b)] = G_{a-1} ... G_b : level a -> level b

    def chain(top: int, bottom: int) -> np.ndarray:
        if (top, bottom) not in prod:
            prod[(top, bottom)] = G[top - 1] if top - 1 == bottom else G[top - 1] @ chain(top - 1, bottom)
        return prod[(top, bottom)]

    for i in range(K - 1, -1, -1):
        T = -Z(i + 1, i + 1)
        for l in range(1, K - i):
            T -= Z(i + 1, i + 1 + l) @ chain(i + 1 + l, i + 1)
        G[i] = np.linalg.solve(T, Z(i + 1, i))
    Qbar: dict[tuple[int, int], np.ndarray] = {}
    for l in range(K, -1, -1):
        for i in range(0, l + 1):
            Qbar[(i, l)] = Z(i, l) if l == K else Z(i, l) + Qbar[(i, l + 1)] @ G[l]
    F = [np.eye(model.W)]
    for l in range(1, K + 1):
        acc = sum(F[i] @ Qbar[(i, l)] for i in range(l))
        F.append(np.linalg.solve(-Qbar[(l, l)].T, acc.T).T)
    return _from_level_zero(model, levels, Qbar[(0, 0)], F, "block recursion (§3)")


def _from_level_zero(model: BmapModel, levels: Sequence[int], boundary: np.ndarray, F: list, method: str) -> Stationary:
    """Finish a level recursion p_l = p_0 F_l: p_0 solves p_0 boundary = 0
    with sum_l p_0 F_l e = 1 (the stacked system is consistent, so its
    least-squares solution is exact); the residual max|pQ| is reported."""
    A = np.vstack([boundary.T, sum(f.sum(axis=1) for f in F)])
    b = np.zeros(model.W + 1)
    b[-1] = 1
    p0, *_ = np.linalg.lstsq(A, b, rcond=None)
    if not float(np.abs(A @ p0 - b).max()) <= FLOAT_REL * max(1.0, float(np.abs(A).max())):
        raise SolverError(f"{method}: the level-0 system is inconsistent (least-squares residual "
                          f"{float(np.abs(A @ p0 - b).max()):.3g}); the recursion lost accuracy")
    p = tuple([p0] + [p0 @ f for f in F[1:]])
    Q = generator_kronecker(model, levels)
    return _gated(Stationary(p, method, float(np.abs(np.concatenate(p) @ Q).max())), Q)


def solve_qbd(model: BmapModel, levels: Sequence[int]) -> Stationary:
    """The QBD recursion of §6 (single arrivals only)."""
    if model.kmax > 1:
        raise InvalidInput("arrivals", "the QBD recursion of §6 needs D_k = 0 for k >= 2", value=model.kmax)
    K = model.K
    Qb = {k: v.toarray() for k, v in kronecker_blocks(model, levels).items()}
    G = {K - 1: np.linalg.solve(-Qb[(K, K)], Qb[(K, K - 1)])}
    for i in range(K - 2, -1, -1):
        G[i] = np.linalg.solve(-(Qb[(i + 1, i + 1)] + Qb[(i + 1, i + 2)] @ G[i + 1]), Qb[(i + 1, i)])
    F = [np.eye(model.W)]
    for i in range(1, K + 1):
        T = Qb[(i, i)] + (Qb[(i, i + 1)] @ G[i] if i < K else 0)
        F.append(np.linalg.solve(-T.T, (F[-1] @ Qb[(i - 1, i)]).T).T)
    return _from_level_zero(model, levels, Qb[(0, 0)] + Qb[(0, 1)] @ G[0], F, "QBD recursion (§6)")


# --- measures ----------------------------------------------------------------


@dataclass(frozen=True)
class Measures:
    """Performance measures and the cost of eq. (2) under one policy."""

    levels: tuple[int, ...]
    p_star: float
    phi: tuple  # phi[n-1]: probability that n robots are active
    n_act: float
    lam: float
    p_loss: float  # lost pages counted per batch (no cancellation: accurate when tiny)
    p_loss_eq8: float  # eq. (8), 1 - accepted/lambda (a cross-check; cancels to ~1e-16 absolute)
    p_obs: float
    p_success: float
    p_success_tagged: float  # from the tagged-page chain
    v1: float
    v2: float
    v: float
    mean_number: float  # L = sum_i i p_i e (Little: L = lam V)
    cost: float
    states: int
    method: str
    residual: float
    seconds: float = 0.0

    def as_json(self) -> dict:
        """The measures as a JSON-ready dict (field names as keys; ``p_loss_eq8``, ``p_success_tagged``, ``mean_number`` and ``seconds`` left out)."""
        return {
            "p_star": self.p_star,
            "n_act": self.n_act,
            "phi": list(self.phi),
            "lam": self.lam,
            "p_loss": self.p_loss,
            "p_obs": self.p_obs,
            "p_success": self.p_success,
            "v1": self.v1,
            "v2": self.v2,
            "v": self.v,
            "cost": self.cost,
            "states": self.states,
            "method": self.method,
            "residual": self.residual,
        }


class _Arith:
    """float64, mpmath or arb-ball arithmetic for the measure formulas (same
    code).  ``ball`` is the converter of one exact input to an ``arb`` (see
    `exact_ball`); it selects ball arithmetic.  The mpmath and ball routes
    read the model's exact inputs (`input`), the float64 route its float
    copies."""

    def __init__(self, mp: bool, ball: Callable | None = None, rational: bool = False):
        self.mp = mp or ball is not None or rational
        self.ball = ball
        self.rational = rational
        if rational:
            self.conv = lambda a: np.vectorize(exact_fmpq, otypes=[object])(np.asarray(a, dtype=object)) if np.ndim(a) else exact_fmpq(a)
        elif ball is not None:
            self.conv = lambda a: np.vectorize(ball, otypes=[object])(np.asarray(a, dtype=object)) if np.ndim(a) else ball(a)
        elif mp:
            import mpmath

            self.mpmath = mpmath
            def one(x):  # the exact input at the working precision
                q = exact(x, argument="input")
                return mpmath.mpf(q.numerator) / q.denominator

            self.conv = lambda a: np.vectorize(one, otypes=[object])(np.asarray(a, dtype=object)) if np.ndim(a) else one(a)
        else:
            self.conv = lambda a: np.asarray(a, dtype=float) if np.ndim(a) else float(a)

    def input(self, floats: np.ndarray, exact_values: np.ndarray) -> np.ndarray:
        """A model input as this arithmetic uses it: the float64 copy, or the exact value converted."""
        return self.conv(exact_values) if self.mp else floats

    def is_zero(self, x) -> bool:
        """x == 0 exactly (an arb ball is truthy even when it is exactly 0)."""
        return bool(x.is_zero()) if self.ball is not None else not x

    def solve(self, A, b):
        """x with A x = b (A square, b vector)."""
        if not self.mp:
            return np.linalg.solve(A, b)
        if self.rational:
            import flint

            x = flint.fmpq_mat([list(row) for row in A]).solve(flint.fmpq_mat([[v] for v in b]))
            return np.array([x[k, 0] for k in range(len(b))], dtype=object)
        if self.ball is not None:
            import flint

            n = len(b)
            x = flint.arb_mat([[A[i, j] for j in range(n)] for i in range(n)]).solve(flint.arb_mat([[v] for v in b]))
            return np.array([x[k, 0] for k in range(n)], dtype=object)
        mm = self.mpmath
        x = mm.lu_solve(mm.matrix(A.tolist()), mm.matrix(list(b)))
        return np.array([x[k] for k in range(len(b))], dtype=object)


def _contract_last(x: np.ndarray, vec: np.ndarray, times: int) -> np.ndarray:
    """Contract the last ``times`` R-factors of a flattened tensor with ``vec``."""
    R = vec.shape[0]
    for _ in range(times):
        x = x.reshape(-1, R) @ vec
    return x


def _tagged_vectors(model: BmapModel, ar: _Arith, A_solve: Callable | None = None):
    """For t pages ahead (t = 0: tagged in service), vectors over
    ``(m, r_1..r_{t-1}, r_tag)``: h1 = P(served), g1 = E[T; served],
    h2 = P(obsolete), g2 = E[T; obsolete].  Recursion of Corollary 1 with
    ``B̂_0 = S_0 β ⊗ e_R`` (undefined in the paper) and
    ``B̂_t = B_t ⊗ I_R`` otherwise."""
    ph, ob = model.service, model.obsolescence
    M, R = model.M, model.R
    S = ar.input(ph.S, ph.S_exact)
    S0 = -S.sum(axis=1)
    beta = ar.input(ph.beta, ph.beta_exact)
    Gamma = ar.input(ob.S, ob.S_exact)
    G0 = -Gamma.sum(axis=1)
    eM = ar.conv(np.ones(M))
    h1 = [eM]
    g1 = [ar.solve(-S, eM)]
    h2 = [ar.conv(np.zeros(M))]
    g2 = [ar.conv(np.zeros(M))]
    for t in range(1, model.K):
        n_ahead = t - 1  # buffered pages ahead of the tagged one

        def Bhat(v):  # B̂_t v, v over (m, r_1..r_{t-2}, r_tag') at level t-1
            v = v.reshape(M, -1)
            # service completion: the head of the buffer (r_1, or the tagged page when t = 1) starts service
            out = np.multiply.outer(S0, (beta @ v).reshape(-1))  # (M, R^{t-1}) over (r_2..r_tag)
            out = np.repeat(out.reshape(M, 1, -1), R, axis=1).reshape(-1)
            if R == 1 and n_ahead:  # one obsolescence phase: the n_ahead positions give the same term, formed once
                return out + n_ahead * _insert_axis(v, M, G0)
            for q in range(n_ahead):  # obsolescence of buffered page q ahead of the tagged one
                out = out + _insert_axis(v, M * R**q, G0)
            return out

        own = np.multiply.outer(ar.conv(np.ones(M * R**n_ahead)), G0).reshape(-1)
        if A_solve:
            solve = lambda rhs, t=t: A_solve(t, rhs)  # noqa: E731
        else:
            A = -(_kron_sum_obj([S] + [Gamma] * t) if ar.mp else A_dense(model, t))
            solve = lambda rhs, A=A: ar.solve(A, rhs)  # noqa: E731
        h1.append(solve(Bhat(h1[-1])))
        g1.append(solve(h1[-1] + Bhat(g1[-1])))
        h2.append(solve(Bhat(h2[-1]) + own))
        g2.append(solve(h2[-1] + Bhat(g2[-1])))
    return h1, g1, h2, g2


def _insert_axis(v: np.ndarray, before: int, G0: np.ndarray) -> np.ndarray:
    """``v`` over (m, r_1, .., r_tag) of the smaller level lifted to the
    larger one: a new phase axis after the first ``before`` entries (i.e. at
    buffer position q for ``before = M R^q``) weighted by ``Γ_0``.  Three axes
    whatever the level, so any K works (numpy allows at most 64 axes)."""
    R = G0.shape[0]
    return (v.reshape(before, 1, -1) * G0.reshape(1, R, 1)).reshape(-1)


def _kron_sum_obj(factors) -> np.ndarray:
    """``F_1 ⊕ ... ⊕ F_n`` in exact object arithmetic (mpmath entries)."""
    out = factors[0]
    for F in factors[1:]:
        out = np.kron(out, np.eye(F.shape[0], dtype=int).astype(object)) + np.kron(np.eye(out.shape[0], dtype=int).astype(object), F)
    return out


def _contracted(model: BmapModel, ar: _Arith, A_solve) -> dict:
    """For a page arriving as the l-th of a batch to i pages: the tagged-page
    vectors (h1, g1, h2, g2) at t = i + l - 1 pages ahead, with the fresh
    phases of the l - 1 batch-mates ahead and of the page itself averaged
    over gamma (and the server's over beta when i = 0).  Policy-independent."""
    h1, g1, h2, g2 = _tagged_vectors(model, ar, A_solve)
    beta = ar.input(model.service.beta, model.service.beta_exact)
    gam = ar.input(model.obsolescence.beta, model.obsolescence.beta_exact)
    M = model.M
    out = {}
    for i in range(model.K):
        for l in range(1, min(model.K - i, model.kmax) + 1):
            t = i + l - 1
            cols = [_contract_last(v[t], gam, l - (i == 0)) for v in (h1, g1, h2, g2)]
            mat = np.stack(cols, axis=1)
            out[(i, l)] = beta @ mat.reshape(M, 4) if i == 0 else mat
    return out


def measures(model: BmapModel, levels: Sequence[int], st: Stationary, *, mp: bool = False, A_solve: Callable | None = None,
             ball: Callable | None = None, rational: bool = False) -> Measures:
    """Theorems 1–3, Corollary 1 and eq. (2) from the stationary vector.
    ``mp``: mpmath numbers (p from `solve_mp`); ``ball``: arb balls, with the
    model's inputs converted by ``ball`` (p from `_arb_stationary` with the
    same converter), so every measure is an enclosure; ``rational``: exact
    rationals (``flint.fmpq``, p from `rational_stationary`)."""
    ar = _Arith(mp, ball, rational)
    mp = ar.mp
    K, W, M, R = model.K, model.W, model.M, model.R
    p = [np.asarray(x, dtype=object) if mp else np.asarray(x, dtype=float) for x in st.p]
    marg_nu = [x.reshape(W, -1).sum(axis=1) for x in p]  # over nu
    # D_k^(r) e per mode and batch size, converted once: the loops below read them O(K kmax) times
    De = {(r, k): ar.input(model.D(r, k), model.D_exact(r, k)).sum(axis=1) for r in set(levels) for k in range(model.kmax + 1)}
    tot = [x.sum() for x in p]
    p_star = tot[0]
    phi = [sum((tot[i] for i in range(K + 1) if levels[i] == n), ar.conv(0.0)) for n in range(1, model.N + 1)]
    n_act = sum(n * f for n, f in zip(range(1, model.N + 1), phi))
    lam = 0
    loss_rate = 0
    accepted8 = 0
    for i in range(K + 1):
        r = levels[i]
        for k in range(0, model.kmax + 1):
            rate = marg_nu[i] @ De[(r, k)]
            if k >= 1:
                lam = lam + k * rate
                loss_rate = loss_rate + max(k - (K - i), 0) * rate
            if k <= K - i:
                accepted8 = accepted8 + (k - K + i) * rate
    p_loss_eq8 = 1 - accepted8 / lam
    p_loss = loss_rate / lam
    S0 = -ar.input(model.service.S, model.service.S_exact).sum(axis=1)
    G0 = -ar.input(model.obsolescence.S, model.obsolescence.S_exact).sum(axis=1)
    succ_rate = sum((x.reshape(W, M, -1).sum(axis=(0, 2)) @ S0 for x in p[1:]), ar.conv(0.0))
    obs_rate = ar.conv(0.0)
    for i in range(2, K + 1):
        for q in range(i - 1):  # the buffered page at position q becomes obsolete
            if q == 0 or R > 1:  # with one obsolescence phase every position gives the same term: computed once
                term = p[i].reshape(W * M * R**q, R, -1).sum(axis=(0, 2)) @ G0
            obs_rate = obs_rate + term
    p_obs = obs_rate / lam
    p_success = succ_rate / lam
    if rational:
        contracted = model.memo("contracted rational", lambda: _contracted(model, ar, None))
    elif ball is not None:  # policy-independent: one per input converter and working precision
        import flint

        contracted = model.memo(("contracted", ball, flint.ctx.prec), lambda: _contracted(model, ar, None))
    elif A_solve:
        contracted = _contracted(model, ar, A_solve)
    elif mp:  # policy-independent: one per working precision (the 50- and 70-digit routes stay apart)
        contracted = model.memo(("contracted mp", ar.mpmath.mp.prec), lambda: _contracted(model, ar, None))
    else:
        contracted = model.memo("contracted", lambda: _contracted(model, ar, None))
    E = 0  # (E[1; served], E[T; served], E[1; obsolete], E[T; obsolete]) per unit time
    at_least: dict = {}  # (r, l) -> rate of batches of size >= l, per nu
    for i in range(K):
        r = levels[i]
        for l in range(1, min(K - i, model.kmax) + 1):
            if (r, l) not in at_least:
                at_least[(r, l)] = sum(De[(r, k)] for k in range(l, model.kmax + 1))
            u = at_least[(r, l)]
            q = p[0] @ u if i == 0 else (p[i].reshape(W, -1) * u.reshape(W, 1)).sum(axis=0)
            E = E + q @ contracted[(i, l)] if i else E + q * contracted[(i, l)]
    E = {"h1": E[0], "g1": E[1], "h2": E[2], "g2": E[3]}
    v1 = E["g1"] / E["h1"]
    v2 = ar.conv(0.0) if ar.is_zero(E["h2"]) else E["g2"] / E["h2"]
    p_success_tagged = E["h1"] / lam
    v = v1 * p_success + v2 * p_obs
    mean_number = sum(i * tot[i] for i in range(K + 1))
    # the coefficients as given (exact for the mpmath and ball routes: a cost of 0.1 is 1/10)
    c_loss, c_obs, a, c_rob, c_star = (ar.conv(getattr(model.costs, n)) for n in ("c_loss", "c_obs", "a", "c_rob", "c_star"))
    cost = lam * (c_loss * p_loss + c_obs * p_obs) + a * v1 + c_rob * n_act + c_star * p_star
    f = (lambda x: x) if mp else float
    return Measures(
        tuple(levels), f(p_star), tuple(f(x) for x in phi), f(n_act), f(lam), f(p_loss), f(p_loss_eq8), f(p_obs), f(p_success),
        f(p_success_tagged), f(v1), f(v2), f(v), f(mean_number), f(cost), model.states, st.method, st.residual,
    )


# --- high precision ----------------------------------------------------------


HP_STATE_LIMIT = 600  # ball-arithmetic solves: a dense arb LU of at most this many states


def exact_ball(x) -> "flint.arb":
    """The arb ball enclosing the exact input ``x`` (a Fraction of the model,
    or any `exact` number: a float stands for its shortest decimal, so 0.2
    encloses 1/5, not the float nearest to it).

    >>> import flint
    >>> exact_ball(Fraction(1, 5)).contains(flint.fmpq(1, 5)), exact_ball(0.2).contains(flint.fmpq(1, 5))
    (True, True)
    """
    import flint

    q = exact(x, argument="input")
    return flint.arb(flint.fmpq(q.numerator, q.denominator))


def exact_fmpq(x) -> "flint.fmpq":
    """The exact input ``x`` (see `exact`) as a python-flint rational."""
    import flint

    q = exact(x, argument="input")
    return flint.fmpq(q.numerator, q.denominator)


RATIONAL_STATE_LIMIT = 200  # exact rational solves (`exact_cost`): rationals grow with the chain, keep it small


def rational_stationary(model: BmapModel, levels: Sequence[int]) -> np.ndarray:
    """p of the *enumerated* generator in exact rational arithmetic
    (``flint.fmpq_mat`` solve of ``Q^T`` with its last row replaced by
    ``p e = 1``), every rate the model's exact input; up to
    ``RATIONAL_STATE_LIMIT`` states (`TooLarge` before any work)."""
    import flint

    if model.states > RATIONAL_STATE_LIMIT:
        raise TooLarge("K", f"the exact rational solve is limited to {RATIONAL_STATE_LIMIT} states (this chain has {model.states})",
                       value=model.K)
    index = {s: n for n, s in enumerate(state_list(model))}
    n = len(index)
    A = [[flint.fmpq(0)] * n for _ in range(n)]
    for s, t, rate in enumerate_transitions(model, levels, num=exact_fmpq):
        A[index[t]][index[s]] += rate
        A[index[s]][index[s]] -= rate
    A[n - 1] = [flint.fmpq(1)] * n
    x = flint.fmpq_mat(A).solve(flint.fmpq_mat([[0]] * (n - 1) + [[1]]))
    return np.array([x[k, 0] for k in range(n)], dtype=object)


def exact_cost(model: BmapModel, levels: Sequence[int]) -> Fraction:
    """J (eq. 2) of the policy with levels ``(chi(0), ..., chi(K))`` as an
    exact rational: p from `rational_stationary`, every measure in exact
    arithmetic from the model's exact inputs (small chains only).  A
    reference the certified enclosures are tested against.

    >>> from crawlmath.numeric.bmap._io import load_model
    >>> m = load_model("avrachenkov-example.json", K=2)
    >>> J = exact_cost(m, (3, 3, 1))
    >>> abs(float(J) - evaluate(m, Policy((3, 1), (1,))).cost) < 1e-12 * float(J)
    True
    """
    levels = tuple(levels)
    _check_level_vectors(model, [levels])
    st = Stationary(split_levels(model, rational_stationary(model, levels)), "exact rational solve", 0.0)
    J = measures(model, levels, st, rational=True).cost
    return Fraction(int(J.p), int(J.q))


def _arb_stationary(model: BmapModel, levels: Sequence[int], ball: Callable) -> np.ndarray:
    """p of the *enumerated* generator as arb balls (at the caller's
    ``flint.ctx.prec``): ``Q^T`` with its last row replaced by ``p e = 1``,
    solved by arb's LU; every input rate converted by ``ball``."""
    import flint

    if model.states > HP_STATE_LIMIT:
        raise TooLarge("K", f"the ball-arithmetic solve is limited to {HP_STATE_LIMIT} states (this chain has {model.states})",
                       value=model.K)
    index = {s: n for n, s in enumerate(state_list(model))}
    n = len(index)
    A = flint.arb_mat(n, n)
    diag = [flint.arb(0)] * n
    for s, t, rate in enumerate_transitions(model, levels, num=ball):
        A[index[t], index[s]] += rate
        diag[index[s]] -= rate
    for j in range(n):
        A[j, j] += diag[j]
        A[n - 1, j] = 1
    b = flint.arb_mat(n, 1)
    b[n - 1, 0] = 1
    try:
        # plain ball LU: ~10x faster than arb's default preconditioned solve on these chains, and its enclosures (a few
        # digits wider) stay far below what the callers need (checked by them: they test the radius they get)
        x = A.solve(b, algorithm="lu")
    except ZeroDivisionError:
        raise SolverError(f"arb LU: the {n}-state system is singular at {flint.ctx.prec} bits (a reducible chain?)") from None
    return np.array([x[k, 0] for k in range(n)], dtype=object)


def solve_mp(model: BmapModel, levels: Sequence[int], dps: int = 50) -> Stationary:
    """Ball-arithmetic (python-flint ``arb``) LU of the *enumerated* generator
    at about ``dps`` digits (small K only).  The entries enclose the model's
    exact inputs; ``residual`` is the largest relative radius of the enclosures of
    ``p``, i.e. a rigorous bound ``10^-digits``."""
    import flint
    import mpmath

    old = flint.ctx.prec
    flint.ctx.prec = int(dps * 3.33) + 20
    try:
        x = _arb_stationary(model, levels, exact_ball)
        xs = np.array([_arb_to_mpf(v, mpmath) for v in x], dtype=object)
        rel = max(float(v.rad()) / max(abs(float(v.mid())), 1e-300) for v in x)
    finally:
        flint.ctx.prec = old
    return Stationary(split_levels(model, xs), f"arb ball LU ({dps} digits, enumerated generator)", rel)


def ball_cost(model: BmapModel, levels: Sequence[int], ball: Callable | None = None, prec: int = 170) -> "flint.arb":
    """An arb ball enclosing J (eq. 2) of the model whose exact inputs x are
    replaced by the balls ``ball(x)`` (default `exact_ball`): p from
    `_arb_stationary`, the measures in ball arithmetic, at ``prec`` bits
    (restored afterwards)."""
    ball = exact_ball if ball is None else ball
    import flint

    old = flint.ctx.prec
    flint.ctx.prec = prec
    try:
        x = _arb_stationary(model, levels, ball)
        st = Stationary(split_levels(model, x), "arb ball LU", 0.0)
        return measures(model, levels, st, ball=ball).cost
    finally:
        flint.ctx.prec = old


@dataclass(frozen=True)
class CertifiedValue:
    """A measure certified by ball arithmetic (issues 17, 30).

    ``value`` (mpmath) is the midpoint of an arb enclosure of the measure of
    the model with its exact inputs (the decimals of the model file as
    printed, kept exact through scaling and lumping); ``radius`` bounds
    ``|value - that measure|`` rigorously, so ``digits`` =
    ``-log10(radius/|value|)`` significant digits are certified.
    ``float_value`` is the float64 route (Lemma blocks, SuperLU), checked to
    agree within ``FLOAT_REL``."""

    value: object  # mpmath.mpf
    radius: float
    float_value: float
    digits: float
    method: str

    @property
    def error_bound(self) -> float:
        """Bound on ``|float(value) - J|``: the radius plus the float conversion of ``value`` (half an ulp, doubled for
        safety)."""
        return self.radius + float(np.spacing(abs(float(self.value))))

    def value_str(self, n: int = 35) -> str:
        """The value with ``n`` significant digits and its bound, for a claim's detail."""
        import mpmath

        return f"{mpmath.nstr(self.value, n)} (± {self.radius:.1e} for the model's exact decimal inputs; {self.digits:.0f} digits)"

    def ball(self):
        """The enclosure ``value ± radius`` as an arb (for propagating bounds
        through formulas such as R = 100 (1 - C*/min C_r)).  Its midpoint is
        ``value`` exactly (a binary mpmath number, moved bit for bit), so the
        ball is as narrow as the certificate, not float64-wide (issue 30: it
        was ``float(value) ± error_bound``, ~1e-16 relative)."""
        import flint

        man, exp = self.value.man_exp
        old = flint.ctx.prec
        flint.ctx.prec = max(old, int(man).bit_length() + 8)  # man · 2^exp exactly
        try:
            mid = flint.arb(int(man)) * flint.arb(2) ** int(exp)
        finally:
            flint.ctx.prec = old
        return flint.arb(mid.mid(), self.radius)


def certified_cost(model: BmapModel, levels: Sequence[int], digits: int = 30, float_cost: float | None = None) -> CertifiedValue:
    """J (eq. 2) of the policy with levels ``(chi(0), ..., chi(K))`` to at
    least ``digits`` significant digits, with rigorous bounds (`certify` of
    `ball_cost`; the float route is ``float_cost`` or `evaluate_levels`);
    cached per (model, levels, digits).  Above ``HP_STATE_LIMIT`` states:
    `TooLarge`, before any work."""
    if model.states > HP_STATE_LIMIT:
        raise TooLarge("K", f"certified values need the ball-arithmetic solve, limited to {HP_STATE_LIMIT} states "
                            f"(this chain has {model.states})", value=model.K)
    digits = require_int(digits, "digits", minimum=1)
    levels = tuple(levels)
    return model.memo(("certified", levels, digits),
                      lambda: certify(lambda ball, prec: ball_cost(model, levels, ball, prec),
                                      evaluate_levels(model, levels).cost if float_cost is None else float_cost, digits, "J"))


def certify(compute: Callable, float_value: float, digits: int = 30, what: str = "value") -> CertifiedValue:
    """Certify a number given ``compute(ball, prec) -> arb`` (its enclosure
    when every exact input x is replaced by ``ball(x)``, at ``prec`` bits).

    (1) ``compute(exact_ball, prec)`` from ``(digits + 15) log2(10)`` bits,
    doubled (at most 3 times) until the enclosure is ``10^-digits``
    relative; (2) ``float_value``, the float64 route, which must lie within
    ``FLOAT_REL`` of (1).  A failed check is a `SolverError` naming both
    values.  The inputs are exact, so no widening for input rounding is
    needed: the enclosure is that of the model as written."""
    import mpmath

    prec = int((digits + 15) * 3.33) + 10
    for _ in range(4):
        x = compute(exact_ball, prec)
        mid, rad = _arb_to_mpf(x, mpmath), float(x.rad())
        if mid and rad <= abs(mid) * 10.0 ** -digits:
            break
        prec *= 2
    else:
        raise SolverError(f"{what}: enclosure {x.str(20)} not {digits}-digit accurate at {prec // 2} bits")
    fl = float(float_value)
    if not abs(fl - float(mid)) <= FLOAT_REL * abs(fl):
        raise SolverError(f"{what}: float64 {fl!r} disagrees with the ball-arithmetic {mpmath.nstr(mid, 30)} "
                          f"(relative {abs(fl - float(mid)) / abs(fl):.2e} > {FLOAT_REL:g})")
    with mpmath.workdps(digits + 20):
        dig = float(-mpmath.log10(mpmath.mpf(rad) / abs(mid))) if rad else math.inf
    return CertifiedValue(mid, rad, fl, dig, f"arb balls at {prec} bits from the exact inputs, float64 cross-check")


ARGMIN_GAP = 1e-6  # candidates within this relative distance of the float minimum are recomputed with balls


@dataclass(frozen=True)
class CertifiedArgmin:
    """The cheapest of a finite set of policies, decided from enclosures.

    ``label``/``levels``: the argmin; ``cost``: its certified J; ``decided``:
    its enclosure lies strictly below that of every other candidate
    recomputed (those whose float J is within ``gap`` of the float minimum);
    ``tied``: labels of the candidates whose enclosures overlap it (a genuine
    or unresolved tie; empty when decided); ``cost_bound``: a bound on
    ``|float(cost.value) - min J|`` that holds even under a tie.  Candidates
    beyond the gap are taken as larger from their float J: float64 J agrees
    with the ball value to ``FLOAT_REL`` on every recomputed candidate
    (``float_dev`` is the largest relative deviation seen), and ``gap`` is
    1000 times that."""

    label: object
    levels: tuple
    cost: CertifiedValue
    decided: bool
    tied: tuple
    cost_bound: float
    recomputed: int
    candidates: int
    float_dev: float
    gap: float

    @property
    def error_bound(self) -> float | None:
        """0 when the argmin is decided (the cell engine then calls an exact cell certain), else None."""
        return 0.0 if self.decided else None

    def summary(self) -> str:
        """One line for a claim's detail: how the argmin was decided."""
        how = ("decided by disjoint enclosures" if self.decided else
               f"NOT decided: enclosures overlap with {', '.join(map(str, self.tied))} (a tie)")
        return (f"argmin {how}; {self.recomputed} of {self.candidates} candidates within {self.gap:g} (relative) of the float minimum "
                f"recomputed with balls (float64 vs ball J: <= {self.float_dev:.1e} relative); J = {self.cost.value_str()}")


def certify_argmin(model: BmapModel, candidates: Sequence[tuple], gap: float = ARGMIN_GAP, digits: int = 30) -> CertifiedArgmin:
    """The argmin of J over ``candidates`` = ``[(label, levels, float J), ...]``.

    Candidates with the same levels are the same chain (the first label
    stands for them).  Every distinct chain whose float J is at most
    ``(1 + gap)`` times the float minimum gets `certified_cost`; the argmin
    is the smallest enclosure (``value ± error_bound``), decided when it lies
    below all the others."""
    if not candidates:
        raise InvalidInput("candidates", "needs at least one policy", value=0)
    gap = require_real(gap, "gap")
    if not 0 < gap < 1:
        raise InvalidInput("gap", "must lie in (0, 1)", value=gap)
    distinct: dict = {}
    for label, levels, cost in candidates:
        distinct.setdefault(tuple(levels), (label, float(cost)))
    low = min(c for _, c in distinct.values())
    near = [(lab, lv, c) for lv, (lab, c) in distinct.items() if c <= low + gap * abs(low)]
    cert = [(lab, lv, certified_cost(model, lv, digits, c)) for lab, lv, c in near]
    lab, lv, best = min(cert, key=lambda x: x[2].value)
    hi = best.value + best.error_bound
    tied = tuple(l for l, v, c in cert if v != lv and c.value - c.error_bound <= hi)
    bound = max([best.error_bound] + [c.error_bound for l, _, c in cert if l in tied])
    dev = max(abs(c.float_value - float(c.value)) / abs(float(c.value)) for _, _, c in cert)
    return CertifiedArgmin(lab, lv, best, not tied, tied, bound, len(cert), len(distinct), dev, gap)


def certified_optimum(model: BmapModel, opt: Optimum, gap: float = ARGMIN_GAP, digits: int = 30) -> CertifiedArgmin:
    """`certify_argmin` over the threshold candidates of one mode set (``opt.curve`` from `optimize`); labels are the thresholds."""
    return certify_argmin(model, [(th, Policy(opt.modes, th).levels(model.K), c) for th, c in opt.curve], gap, digits)


def _arb_to_mpf(a, mpmath):
    """The midpoint of the arb ``a`` as an exact mpmath number (whatever the current mpmath precision)."""
    man, exp = a.mid().man_exp()
    with mpmath.workprec(max(53, int(man).bit_length())):
        return mpmath.ldexp(mpmath.mpf(int(man)), int(exp))


def evaluate_mp(model: BmapModel, policy: Policy, dps: int = 50) -> Measures:
    """All measures at ``dps`` digits (mpmath numbers in the result); the
    stationary vector from `solve_mp`, the measures in mpmath."""
    import mpmath

    levels = model.check_policy(policy)
    with mpmath.workdps(dps):
        st = solve_mp(model, levels, dps)
        return measures(model, levels, st, mp=True)


# --- batched costs: every threshold candidate in one solve -------------------
#
# The row block of level i of Q depends only on chi(i) (`recipe_block` takes the mode of its own level), and every measure of
# `measures` is a linear functional of p whose weights on level i depend only on chi(i), or on nothing.  So the chains of all
# candidates are assembled from N precomputed generators (one per mode) by picking, state by state, the row of the state's
# mode, and J follows from three weight vectors per mode.

BATCH_STATE_LIMIT = 600  # chains solved by the batched dense route ('auto' solves these densely too)
BATCH_CHUNK_BYTES = 48 * 2**20  # working memory of one chunk of the batched solve


def level_weights(model: BmapModel, i: int, r: int) -> dict:
    """Weight vectors over the states of level i, with r robots active there, of the rates behind every measure of
    `measures`: the measure's rate is ``sum_i p_i · w(i, chi(i))``.

    - ``p_star``: ``e`` on level 0 (``P_* = p_0 e``), 0 elsewhere;
    - ``n_act``: ``r e`` (``N_act = sum_i chi(i) p_i e``);
    - ``lam``: ``sum_k k D_k^(r) e ⊗ e`` (eq. 9);
    - ``loss``: ``sum_k max(k - (K - i), 0) D_k^(r) e ⊗ e`` (pages of a batch beyond the free places);
    - ``success``: ``e_W̄ ⊗ S_0 ⊗ e`` (i >= 1, service completions);
    - ``obs``: ``sum_{q=1}^{i-1} e ⊗ Γ_0 (at buffer position q) ⊗ e`` (eq. 14's rate);
    - ``h1, g1, h2, g2``: the tagged-page rates (Corollary 1): a batch of size >= l arriving to i < K pages places its l-th
      page t = i + l - 1 pages ahead, weight ``sum_l (sum_{k>=l} D_k^(r) e) ⊗ c_{i,l}`` with ``c_{i,l}`` from `_contracted`.

    ``lam``, ``loss`` and the tagged-page rates depend on r through ``D^(r)``, ``n_act`` through r, the others not at all.
    Then ``lam P_loss = p·loss``, ``lam P_obs = p·obs``, ``lam P_success = p·success``, ``V1 = p·g1 / p·h1`` and
    ``V2 = p·g2 / p·h2``."""
    K, W = model.K, model.W
    n = model.level_size(i)
    rest = n // W

    def per_nu(v):  # a vector over nu, constant over the other coordinates of the level
        return np.repeat(v, rest)

    De = _batch_rates_e(model, r)
    w = {"p_star": np.full(n, float(i == 0)), "n_act": np.full(n, float(r)),
         "lam": per_nu(sum(k * De[k] for k in range(1, model.kmax + 1))),
         "loss": per_nu(sum((max(k - (K - i), 0) * De[k] for k in range(1, model.kmax + 1)), np.zeros(W)))}
    S0, M = model.service.exit, model.M
    w["success"] = np.zeros(n) if i == 0 else np.broadcast_to(S0.reshape(1, M, 1), (W, M, rest // M)).reshape(-1).copy()
    w["obs"] = model.memo(("obs weight", i), lambda: _obs_weight(model, i)).copy()
    tagged = np.zeros((n, 4))
    if i < K:
        contracted = model.memo("contracted", lambda: _contracted(model, _Arith(False), None))
        for l in range(1, min(K - i, model.kmax) + 1):
            u = _batches_at_least(model, r, l)
            c = contracted[(i, l)]
            tagged += (u.reshape(W, 1, 1) * (c.reshape(1, 1, 4) if i == 0 else c.reshape(1, rest, 4))).reshape(n, 4)
    w.update(zip(("h1", "g1", "h2", "g2"), tagged.T.copy()))
    return w


def _obs_weight(model: BmapModel, i: int) -> np.ndarray:
    """``sum_{q=1}^{i-1} e ⊗ Γ_0 (at buffer position q) ⊗ e`` over level i (the same for every mode: `level_weights`
    caches it, a level costs i numpy operations)."""
    W, M, R, n = model.W, model.M, model.R, model.level_size(i)
    G0 = model.obsolescence.exit
    out = np.zeros(n)
    for q in range(i - 1):  # the buffered page at position q + 1 becomes obsolete
        out += np.broadcast_to(G0.reshape(1, R, 1), (W * M * R**q, R, n // (W * M * R ** (q + 1)))).reshape(-1)
    return out


def _batch_rates_e(model: BmapModel, r: int) -> list:
    """``[D_k^(r) e for k = 0..kmax]`` (cached on the model: `level_weights` reads them at every level)."""
    return model.memo(("D e", r), lambda: [model.D(r, k).sum(axis=1) for k in range(model.kmax + 1)])


def _batches_at_least(model: BmapModel, r: int, l: int) -> np.ndarray:
    """``sum_{k >= l} D_k^(r) e``, the rate of batches of size >= l per arrival phase (cached on the model)."""
    De = _batch_rates_e(model, r)
    return model.memo(("D e >=", r, l), lambda: sum(De[k] for k in range(l, model.kmax + 1)))


def cost_weights(model: BmapModel, i: int, r: int) -> np.ndarray:
    """Columns ``(a_lin, g1, h1)`` over level i with r robots, such that eq. (2) reads
    ``J = p·a_lin + a (p·g1)/(p·h1)`` with ``a_lin = c_loss loss + c_obs obs + c_rob n_act + c_star p_star`` (`level_weights`;
    ``lam P_loss`` is the loss rate, ``lam P_obs`` the obsolescence rate and ``V1 = E[T; served]/E[1; served]``)."""
    w, c = level_weights(model, i, r), model.costs
    a_lin = c.c_loss * w["loss"] + c.c_obs * w["obs"] + c.c_rob * w["n_act"] + c.c_star * w["p_star"]
    return np.stack([a_lin, w["g1"], w["h1"]], axis=1)


@dataclass(frozen=True)
class ModeTables:
    """Per mode r = 1..N: ``Q[r-1]``, the generator with r robots at every level (its level-i rows are the rows of any
    policy with chi(i) = r), and ``weights[r-1]`` (n x 3), the `cost_weights` stacked over the levels; ``level`` the level
    of each state.  ``rows``, ``cols``, ``indptr``: the CSR pattern (row-major) of the union of the ``Q[r-1]`` and the
    last column, where any policy's Q, and Q with its last column replaced by e, have their non-zeros."""

    Q: np.ndarray
    weights: np.ndarray
    level: np.ndarray
    rows: np.ndarray
    cols: np.ndarray
    indptr: np.ndarray


def mode_tables(model: BmapModel) -> ModeTables:
    """The `ModeTables` of the model (built once, cached on it)."""
    def build():
        K, N = model.K, model.N
        Q = np.stack([generator_dense(model, (r,) * (K + 1)) for r in range(1, N + 1)])
        weights = np.stack([np.concatenate([cost_weights(model, i, r) for i in range(K + 1)]) for r in range(1, N + 1)])
        level = np.repeat(np.arange(K + 1), [model.level_size(i) for i in range(K + 1)])
        union = (Q != 0).any(axis=0)
        union[:, -1] = True
        rows, cols = np.nonzero(union)
        indptr = np.concatenate([[0], np.cumsum(np.bincount(rows, minlength=len(union)))])
        return ModeTables(Q, weights, level, rows, cols, indptr)

    return model.memo("mode tables", build)


def batched_costs(model: BmapModel, level_vectors: Sequence[Sequence[int]]) -> np.ndarray:
    """J (eq. 2) of every policy in ``level_vectors`` (each ``(chi(0), ..., chi(K))``), float64, by one batched dense solve.

    Candidate b's generator ``Q_b`` takes the row of each state from ``Q[chi_b(level)]`` (`mode_tables`); ``p_b`` solves
    ``Q_b^T`` with its last equation replaced by ``p e = 1``, as in `solve_sparse_direct`, for a chunk of candidates at
    once (`_solve_batch`; chunks of ``BATCH_CHUNK_BYTES``).  Each p_b passes the gate of the direct
    solvers (finite, ``p >= -STRUCTURE_ABS``, ``p e = 1`` within ``STRUCTURE_ABS``, ``max|p Q_b| <= FLOAT_REL max(1,
    max|Q_b|)``), or `SolverError` names the candidate.  Then ``J_b = p_b·a_lin + a (p_b·g1)/(p_b·h1)`` (`cost_weights`).
    Values are cached on the model per level vector."""
    n = model.states
    if n > BATCH_STATE_LIMIT:
        raise TooLarge("K", f"the batched dense solve is limited to {BATCH_STATE_LIMIT} states (this chain has {n})", value=model.K)
    known = model.memo("batched J", dict)
    todo = list(dict.fromkeys(tuple(lv) for lv in level_vectors if tuple(lv) not in known))
    if todo:
        _check_level_vectors(model, todo)
        tabs = mode_tables(model)
        # dense: Q_b, its transposed copy and |Q_b|; sparse: Q_b and its copy on the pattern; both: p_b and the weights
        per = (3 * 8 * n * n if n <= BATCH_LAPACK_STATES else 3 * 8 * tabs.rows.size) + 8 * 8 * n
        size = min(len(todo), max(1, BATCH_CHUNK_BYTES // per))
        require_memory(size * per, "K", f"the batched dense solve ({size} candidates of {n} states at once)", value=model.K)
        for s in range(0, len(todo), size):
            chunk = todo[s : s + size]
            known.update(zip(chunk, _chunk_costs(model, tabs, chunk)))
    return np.array([known[tuple(lv)] for lv in level_vectors])


def _check_level_vectors(model: BmapModel, vectors: list) -> None:
    """Each level vector has K + 1 robot counts in 1..N (`InvalidInput` naming the first that does not)."""
    def fits(lv) -> bool:
        return len(lv) == model.K + 1 and all(isinstance(r, (int, np.integer)) and not isinstance(r, bool) and 1 <= r <= model.N
                                              for r in lv)

    if all(len(lv) == model.K + 1 for lv in vectors):
        arr = np.asarray(vectors)
        if arr.dtype.kind in "iu" and arr.min() >= 1 and arr.max() <= model.N:
            return
    k = next(k for k, lv in enumerate(vectors) if not fits(lv))
    raise InvalidInput("level_vectors", f"each must hold K + 1 = {model.K + 1} robot counts in 1..{model.N}", value=vectors[k], entry=k)


def _chunk_costs(model: BmapModel, tabs: ModeTables, chunk: list) -> np.ndarray:
    """J of the level vectors ``chunk`` (see `batched_costs`)."""
    modes = np.asarray(chunk, dtype=np.intp)[:, tabs.level] - 1  # (b, n): the mode of every state
    solve = _solve_batch_dense if model.states <= BATCH_LAPACK_STATES else _solve_batch_sparse
    p, residual, scale = solve(tabs, modes, chunk)
    ok = (np.isfinite(p).all(axis=1) & (p.min(axis=1) >= -STRUCTURE_ABS) & (np.abs(p.sum(axis=1) - 1) <= STRUCTURE_ABS)
          & (residual <= FLOAT_REL * scale))
    if not ok.all():
        b = int(np.flatnonzero(~ok)[0])
        raise SolverError(f"batched dense solve, levels {chunk[b]}: not a stationary vector (min p {p[b].min()!r}, "
                          f"sum {p[b].sum()!r}, residual max|pQ| = {residual[b]:.3g} against max|Q| = {scale[b]:.3g})")
    s = np.einsum("bs,bsk->bk", p, tabs.weights[modes, np.arange(model.states)])
    return s[:, 0] + model.costs.a * s[:, 1] / s[:, 2]


# OpenBLAS factors an n x n system on one thread while n^2 < 10000 (its getrf/gesv threshold); above, its threads slow the
# solve 10-100x when the cores are shared (measured: 0.2 ms -> 3-27 ms per 122-state system), so larger systems go to SuperLU
BATCH_LAPACK_STATES = 99


def _solve_batch_dense(tabs: ModeTables, modes: np.ndarray, chunk: list) -> tuple:
    """``(p, max|p Q_b|, max(1, max|Q_b|))`` per candidate: ``Q_b`` assembled densely (row s from ``Q[mode of s]``) and
    ``Q_b^T``, last equation replaced by ``p e = 1``, solved by one ``np.linalg.solve`` on the (b, n, n) array."""
    b, n = modes.shape
    Q = tabs.Q[modes, np.arange(n)]
    A = np.swapaxes(Q, 1, 2).copy()
    A[:, -1, :] = 1.0
    e = np.zeros((1, n, 1))
    e[0, -1] = 1.0
    try:
        p = np.linalg.solve(A, np.broadcast_to(e, (b, n, 1)))[..., 0]
    except np.linalg.LinAlgError:
        bad = next((chunk[k] for k in range(b) if np.linalg.matrix_rank(A[k]) < n), f"one of {chunk}")
        raise SolverError(f"batched dense solve: the generator of levels {bad} is singular (a reducible chain?)") from None
    return p, np.abs(np.einsum("bs,bst->bt", p, Q)).max(axis=1), np.maximum(1.0, np.abs(Q).max(axis=(1, 2)))


def _solve_batch_sparse(tabs: ModeTables, modes: np.ndarray, chunk: list) -> tuple:
    """As `_solve_batch_dense`, by SuperLU system by system (single-threaded) on the pattern of `ModeTables`: the CSR
    arrays of ``Q_b`` with its last column replaced by e are the CSC arrays of ``Q_b^T`` with its last row replaced."""
    b, n = modes.shape
    vals = tabs.Q[modes[:, tabs.rows], tabs.rows, tabs.cols]  # (b, nnz): Q_b on the pattern
    data = vals.copy()
    data[:, tabs.cols == n - 1] = 1.0
    e = np.zeros(n)
    e[-1] = 1.0
    p = np.empty((b, n))
    for k in range(b):
        try:
            p[k] = spla.splu(sps.csc_matrix((data[k], tabs.cols, tabs.indptr), shape=(n, n))).solve(e)
        except RuntimeError:
            raise SolverError(f"batched dense solve: the generator of levels {chunk[k]} is singular (a reducible chain?)") from None
    flow = sps.csr_matrix((np.ones(tabs.cols.size), (np.arange(tabs.cols.size), tabs.cols)), shape=(tabs.cols.size, n))
    residual = np.abs((p[:, tabs.rows] * vals) @ flow).max(axis=1)  # (p_b Q_b)_j = sum over the pattern of column j
    return p, residual, np.maximum(1.0, np.abs(vals).max(axis=1))


# --- evaluation and optimisation ---------------------------------------------

SOLVERS = {
    "dense": solve_dense,
    "sparse": solve_sparse_direct,
    "block": solve_block_recursion,
    "qbd": solve_qbd,
}


def evaluate(model: BmapModel, policy: Policy, solver: str = "auto") -> Measures:
    """Solve the chain under ``policy`` and return every measure."""
    levels = model.check_policy(policy)
    return evaluate_levels(model, levels, solver)


def evaluate_levels(model: BmapModel, levels: Sequence[int], solver: str = "auto") -> Measures:
    """Solve the chain for the levels (chi(0), ..., chi(K)) with ``solver`` ('auto': dense <= 600 states,
    sparse <= 1500, structured above) and return every measure, timed.
    """
    import time

    t0 = time.perf_counter()
    if solver == "auto":
        solver = "dense" if model.states <= 600 else "sparse" if model.states <= 1500 else "structured"
    if solver == "structured":
        from ._structured import evaluate_structured

        return evaluate_structured(model, levels)
    if solver not in SOLVERS:
        raise InvalidInput("solver", f"must be one of {sorted(SOLVERS) + ['auto', 'structured']}", value=solver)
    st = SOLVERS[solver](model, levels)
    m = measures(model, levels, st)
    return _with_seconds(m, time.perf_counter() - t0)


# --- cost model (issue 33) ------------------------------------------------------
# One estimate for every entry point (CLI, `crawlmath.api`, benchmarks/bmap_estimate.py prints it against measured runs).
# A float evaluation costs (a) building the level blocks and the tagged-page vectors: K (kmax + 1) blocks, two per level
# with O(i) recipe terms (counted in ~K^2 steps, `_term_counts`); (b) the solve: GTH on the dense generator (n^3) up to
# `DENSE_STATES`, SuperLU up to `SPARSE_STATES`, then the matrix-free structured solver, whose level operators cost
# ~K^2 (the Kronecker sums of Γ built per level) plus a per-state matvec cost.  Constants measured on the 2-core
# development machine under load (benchmarks/bmap_estimate.py; docs/performance) and rounded up.

DENSE_STATES, SPARSE_STATES = 600, 1500  # the 'auto' solver's choice (`evaluate_levels`)
SECONDS_PER_TERM = 2e-5  # counting the recipe terms, per K^2
SECONDS_PER_BLOCK = 1.2e-3  # building one level block (scipy per-block overhead), per K (kmax + 1)
SECONDS_PER_BLOCK_ENTRY = 1.5e-6  # dense Kronecker products of the level blocks, per K L^2 (L the largest level, R > 1)
SECONDS_STRUCTURED_K2 = 4e-4  # the structured solver's per-level operators, per K^2
SECONDS_STRUCTURED_START = 4.0  # first structured solve in a process: importing numba and loading its compiled kernels
SECONDS_PER_STATE = {"dense": 2e-9, "sparse": 2e-5, "structured": 7e-5}  # dense: per state^3
BYTES_PER_STATE = {"dense": 24.0, "sparse": 2000.0, "structured": 1000.0}  # dense: per state^2
SECONDS_PER_EVALUATION = 0.1
SECONDS_PER_CANDIDATE, SECONDS_PER_CANDIDATE_STATE3 = 5e-4, 4e-10  # --optimize's batched dense solves (`batched_costs`)


def approx_states(model: BmapModel) -> float:
    """``W̄ (1 + M (R^K - 1)/(R - 1))`` (``W̄ (1 + M K)`` for R = 1) as a float
    (inf when it overflows), without forming R^K or summing K levels."""
    W, M, R, K = model.W, model.M, model.R, model.K
    if R == 1:
        return float(W) * (1.0 + M * float(K))
    log = math.log(W * M) + K * math.log(R) - math.log(R - 1)
    return math.exp(log) if log < 700 else math.inf


def auto_solver(states: float) -> str:
    """The solver family 'auto' uses for a chain of ``states`` states."""
    return "dense" if states <= DENSE_STATES else "sparse" if states <= SPARSE_STATES else "structured"


def estimate_cost(model: BmapModel, evaluations: float = 1.0, solver: str = "auto") -> tuple[float, float]:
    """(seconds, bytes) estimated for ``evaluations`` float evaluations of
    policies of ``model`` with ``solver`` (see the constants above)."""
    n = approx_states(model)
    family = auto_solver(n) if solver == "auto" else ("structured" if solver == "structured" else "sparse")
    K2 = float(model.K) ** 2
    setup = SECONDS_PER_TERM * K2 + SECONDS_PER_BLOCK * model.K * (model.kmax + 1)
    if family != "structured":  # the blocks are built as Kronecker products: ~K of them on the largest level's size
        top = math.log(model.W * model.M) + (model.K - 1) * math.log(model.R)
        setup += SECONDS_PER_BLOCK_ENTRY * model.K * math.exp(min(2 * top, 700.0))
    if n <= BATCH_STATE_LIMIT and evaluations > 1 and solver == "auto":  # `optimize`: every candidate in batched solves
        return (setup + SECONDS_PER_EVALUATION + evaluations * (SECONDS_PER_CANDIDATE + SECONDS_PER_CANDIDATE_STATE3 * n**3),
                BYTES_PER_STATE["dense"] * n**2 + BATCH_CHUNK_BYTES)
    if family == "dense":
        per, mem = SECONDS_PER_STATE["dense"] * n**3, BYTES_PER_STATE["dense"] * n**2
    elif family == "sparse":
        per, mem = SECONDS_PER_STATE["sparse"] * n, BYTES_PER_STATE["sparse"] * n
    else:
        setup += 0.0 if "crawlmath.numeric.bmap._structured" in sys.modules else SECONDS_STRUCTURED_START
        per, mem = SECONDS_STRUCTURED_K2 * K2 + SECONDS_PER_STATE["structured"] * n, BYTES_PER_STATE["structured"] * n
    return setup + evaluations * (SECONDS_PER_EVALUATION + per), mem


def require_cost(model: BmapModel, evaluations: float = 1.0, solver: str = "auto", *, argument: str = "K", value=None) -> None:
    """Refuse (`TooLarge`, naming ``argument``) before any work when `estimate_cost` exceeds the limits
    (``CRAWLMATH_MAX_SECONDS`` / ``CRAWLMATH_MAX_MEMORY``)."""
    seconds, nbytes = estimate_cost(model, evaluations, solver)
    what = f"{evaluations:.3g} evaluation(s) of K = {model.K} ({approx_states(model):.3g} states after lumping)"
    require_memory(nbytes, argument, what, value=model.K if value is None else value)
    require_seconds(seconds, argument, what, value=model.K if value is None else value)


def _with_seconds(m: Measures, s: float) -> Measures:
    from dataclasses import replace

    return replace(m, seconds=s)


CONVENTIONS = ("strict", "nonstrict", "paper")


def threshold_candidates(n_modes: int, K: int, convention: str = "paper") -> list[tuple[int, ...]]:
    """Threshold vectors ``j_1, ..., j_{n-1}`` searched by `optimize`.

    - ``strict``: ``-1 < j_1 < ... < j_{n-1} < K`` (§2: every mode used);
    - ``nonstrict``: ``-1 <= j_1 <= ... <= j_{n-1} <= K`` (§2, "virtual robots");
    - ``paper``: ``0 <= j_1 <= ... <= j_{n-1} <= K``: the first mode always
      serves the empty system, later ranges may be empty.  This is the one
      that reproduces Tables 1 and 5 (see the claims module).
    """
    if convention not in CONVENTIONS:
        raise InvalidInput("convention", f"must be one of {CONVENTIONS}", value=convention)
    if n_modes == 1:
        return [()]
    if convention == "strict":
        return list(itertools.combinations(range(0, K), n_modes - 1))
    low = -1 if convention == "nonstrict" else 0
    return list(itertools.combinations_with_replacement(range(low, K + 1), n_modes - 1))


def candidate_levels(modes: Sequence[int], candidates: Sequence[tuple], K: int) -> list[tuple[int, ...]]:
    """``(chi(0), ..., chi(K))`` of ``Policy(modes, th)`` for every threshold vector th in ``candidates`` (as
    `Policy.levels`: level i uses ``modes[r]`` with r the number of thresholds below i), computed for all at once."""
    if len(modes) == 1 or not candidates:
        return [(modes[0],) * (K + 1)] * len(candidates)
    th = np.asarray(candidates)
    below = (th[:, None, :] < np.arange(K + 1)[None, :, None]).sum(axis=2)
    return [tuple(row) for row in np.asarray(modes)[below].tolist()]


@dataclass(frozen=True)
class Optimum:
    """Cheapest threshold policy for a set of modes (§7, direct approach): modes, thresholds, cost J (eq. 2),
    its measures, the count of policies evaluated and the cost curve over all candidates.  ``cost`` is the curve's
    value at the argmin; ``measures`` comes from `evaluate_levels` (under `batched_costs` its J may differ from
    ``cost`` in the last bits: both are float64 routes to the same number), solved on first use (``evaluate``):
    most callers read only the curve, and the table claims optimise hundreds of mode sets.
    """
    modes: tuple[int, ...]
    thresholds: tuple[int, ...]
    cost: float
    evaluated: int  # policies evaluated
    curve: tuple = field(default=(), repr=False)  # ((thresholds, cost), ...) over all candidates
    evaluate: Callable[[], Measures] | None = field(default=None, repr=False, compare=False)  # the argmin's measures

    @cached_property
    def measures(self) -> Measures:
        """Every measure of the argmin policy (`evaluate_levels`, computed once)."""
        if self.evaluate is None:
            raise SolverError("this Optimum was built without a way to evaluate its measures")
        return self.evaluate()


def optimize(model: BmapModel, modes: Sequence[int], convention: str = "paper", solver: str = "auto", cache: dict | None = None) -> Optimum:
    """Direct approach of §7: enumerate every threshold vector for the given
    modes (used in decreasing order of robots) and keep the cheapest.

    With ``solver="auto"`` on a chain of at most ``BATCH_STATE_LIMIT`` states
    the curve comes from `batched_costs` (all candidates at once, cached on
    the model) and only the argmin is solved again by `evaluate_levels` for
    its `Measures` (when they are first read); otherwise every distinct level vector is evaluated with
    ``solver``.  ``cache`` (levels -> Measures) may be shared between calls."""
    modes = tuple(sorted(set(modes), reverse=True))
    cache = {} if cache is None else cache
    cands = threshold_candidates(len(modes), model.K, convention)
    if not cands:
        raise InvalidInput("modes", f"the {convention} convention uses all {len(modes)} modes, impossible with K = {model.K}",
                           value=modes)
    model.check_policy(Policy(modes, cands[0]))  # the modes; the candidates are valid thresholds by construction
    levels = candidate_levels(modes, cands, model.K)
    if solver == "auto" and model.states <= BATCH_STATE_LIMIT:
        costs = [float(c) for c in batched_costs(model, levels)]
    else:
        for lv in levels:
            if lv not in cache:
                cache[lv] = evaluate_levels(model, lv, solver)
        costs = [cache[lv].cost for lv in levels]
    best = 0
    for k, c in enumerate(costs):
        if c < costs[best] - 1e-12:
            best = k

    def evaluate() -> Measures:
        if levels[best] not in cache:
            cache[levels[best]] = evaluate_levels(model, levels[best], solver)
        return cache[levels[best]]

    return Optimum(modes, cands[best], costs[best], len(cands), tuple(zip(cands, costs)), evaluate)


def optimize_all(model: BmapModel, mode_sets: Sequence[Sequence[int]] | None = None, convention: str = "paper", solver: str = "auto") -> dict:
    """`optimize` for every mode set (all non-empty subsets by default),
    sharing solves between sets; ``{modes: Optimum}``."""
    cache: dict = {}
    sets = all_mode_sets(model.N) if mode_sets is None else [tuple(sorted(set(m), reverse=True)) for m in mode_sets]
    return {m: optimize(model, m, convention, solver, cache) for m in sets}


def all_mode_sets(N: int) -> list[tuple[int, ...]]:
    """Every non-empty subset of 1..N, robots in decreasing order."""
    return [tuple(sorted(c, reverse=True)) for n in range(1, N + 1) for c in itertools.combinations(range(1, N + 1), n)]


# --- the paper's examples -----------------------------------------------------


def example_model(K: int = 5, printed: bool = False) -> BmapModel:
    """The §7 example (Model 4, N = 4).  ``printed=True`` loads the matrices
    exactly as printed (rejected by validation); the default loads the
    corrected file.  See ``proofs/models/avrachenkov-example*.json``."""
    from ._io import load_model

    name = "avrachenkov-example-printed.json" if printed else "avrachenkov-example.json"
    return load_model(name, K=K)


def random_model(seed: int, W: int = 2, M: int = 2, R: int = 2, K: int = 3, kmax: int = 2, N: int = 2) -> "BmapModel":
    """A random valid model with N robot modes (for structural checks and
    property tests; costs fixed at (1, 2, 1, 1, 3))."""
    rng = np.random.default_rng(seed)
    return BmapModel([random_bmap(rng, W, kmax) for _ in range(N)], random_phase_type(rng, M),
                     random_phase_type(rng, R), K, Costs(1, 2, 1, 1, 3))
