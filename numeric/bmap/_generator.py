"""The generator Q of the chain ``xi_t = (i, nu, m, r_1, ..., r_{i-1})`` of Avrachenkov et al. (seed 000, §3),
built two ways: from the Lemma of §3 (`kronecker_blocks`, `assemble`, `generator_kronecker`) and by enumerating
states and events (`state_list`, `enumerate_transitions`, `generator_enumerated`).

Levels have ``W̄`` (i = 0) and ``W̄ M R^(i-1)`` (i >= 1) states, in lexicographic order, buffered pages in
arrival order (``r_1`` is next into service).

>>> from ._optimise import example_model
>>> m = example_model(K=3)
>>> Q = generator_kronecker(m, (3, 3, 1, 1))
>>> bool(abs(Q.sum(axis=1)).max() < 1e-9), Q.shape == generator_enumerated(m, (3, 3, 1, 1)).shape
(True, True)
"""
from __future__ import annotations

import itertools
from typing import Callable, Sequence

import numpy as np
import scipy.sparse as sps

from ..errors import SolverError
from ..generated import avrachenkov_lemma as lemma
from ._core import BmapModel


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
