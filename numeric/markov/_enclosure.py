"""The second route to π of a large sparse chain: a rigorous enclosure by block elimination over breadth-first
levels in ball arithmetic (python-flint ``arb_mat``), independent of the refinement of
:mod:`crawlmath.numeric.markov._sparse_refine` (no float start, no iteration).

Levels are the breadth-first distances from one recurrent state; the generator restricted to the recurrent class is
block tridiagonal in them, and eliminating the levels from the top down (interval LU on M-matrix blocks, whose
Schur complements stay M-matrices) gives R_l with π_l = π_{l-1} R_l, so every π_i is a ball.  Cost Σ m_l² (m_l + 2
m_{l-1}) for level sizes m_l, estimated before any ball is allocated.
"""
from __future__ import annotations

import math

import numpy as np
import scipy.sparse as sps
from scipy.sparse import csgraph

from ..errors import SolverError
from ..validate import require_memory
from ._sparse_refine import IntegerChain


# Work Σ m_l^2 (m_l + 2 m_{l-1}) for level sizes m_l; measured on 2 shared cores (python-flint 0.9, ~300 bits):
# tandem 101 x 101, work 1.5e8, 15-29 s (1-2e-7 s per unit, benchmarks/pi_enclosure.py).  The cap keeps it near
# a minute; beyond it the command says "one route only".
ENCLOSURE_MAX_WORK = 4e8
ENCLOSURE_BYTES_PER_BALL = 128  # arb_mat entry at ~300 bits, the saved R_l dominate


def stationary_enclosure(chain: IntegerChain, digits: int):
    """Rigorous balls (python-flint ``arb``) containing π of the recurrent class,
    each relatively narrower than 10^-(digits + 2), or None when the work
    would exceed ``ENCLOSURE_MAX_WORK``.

    The linear level reduction of a level-dependent QBD (Gaver, Jacobs &
    Latouche 1984; block GTH) in ball arithmetic from the exact rates
    q = W / L, on the breadth-first levels from the first recurrent state (so
    level 0 is one state and every transition changes the level by at most
    one): see :func:`_level_reduction_arb`.  An independent second route for
    the refined π of :func:`refined_stationary` (no float64 start, no
    refinement, no sparse LU).  The precision is raised once by the bits the
    first attempt lost; SolverError when the balls stay too wide.
    """
    from flint import arb, ctx  # lazy: only the exact and ball routes need it

    rec = chain.recurrent
    m = rec.size
    pos = np.full(chain.n, -1)
    pos[rec] = np.arange(m)
    keep = (pos[chain.src] >= 0) & (pos[chain.dst] >= 0)
    src, dst, W = pos[chain.src[keep]], pos[chain.dst[keep]], chain.weight[keep]
    G = sps.csr_matrix((np.ones(src.size), (src, dst)), shape=(m, m))
    level = csgraph.shortest_path(G, unweighted=True, directed=False, indices=0).astype(np.int64)
    sizes = np.bincount(level)
    work = float(sizes[0]) ** 3 + float((sizes[1:].astype(float) ** 2 * (sizes[1:] + 2 * sizes[:-1])).sum())
    if work > ENCLOSURE_MAX_WORK:
        return None
    require_memory(ENCLOSURE_BYTES_PER_BALL * float((sizes[1:] * sizes[:-1]).sum() + 4 * int(sizes.max()) ** 2),
                   "FILE", f"the ball-arithmetic enclosure of π ({m} states)", value=m)
    target = (digits + 2) * math.log2(10)
    bits = int(target) + 64 + 2 * m.bit_length() + int(sizes.max())
    old = ctx.prec
    try:
        for attempt in range(2):
            ctx.prec = used = bits
            try:
                balls = _level_reduction_arb(src, dst, W, chain.scale, level)
            except SolverError:
                if attempt:
                    raise
                bits *= 2
                continue
            total = sum(balls, arb(0))
            pi = [b / total for b in balls]
            have = min(_relative_bits(b) for b in pi)
            if have >= target:
                return pi
            bits = bits + 2 * int(target - have) + 64 if math.isfinite(have) else 2 * bits
    finally:
        ctx.prec = old
    raise SolverError(f"the ball-arithmetic enclosure of π stayed wider than 10^-{digits + 2} relative "
                      f"(2^{-have:.0f}) at {used} bits")


def _relative_bits(ball) -> float:
    """−log2(radius / |midpoint|) of a ball (inf for an exact one, −inf when it contains 0)."""
    if ball.rad() == 0:
        return math.inf
    mid = abs(ball.mid())
    if not mid > ball.rad():
        return -math.inf
    return -float((ball.rad() / mid).log()) / math.log(2)


def agrees_with_enclosure(mass, balls, digits: int) -> bool:
    """True when every π_i = mass_i / Σ mass is certainly within 10^-digits
    (relative) of every point of its ball: the printed digits then hold for the
    exact π.  Evaluated in ball arithmetic at enough precision."""
    from flint import arb, ctx, fmpq  # lazy: only the exact and ball routes need it

    total = int(sum(mass))
    old = ctx.prec
    try:
        ctx.prec = int((digits + 10) * 3.33) + 64
        tol = arb(10) ** (-digits)
        return all(abs(b - arb(fmpq(int(x), total))) < b * tol for b, x in zip(balls, mass))
    finally:
        ctx.prec = old


def _level_reduction_arb(src, dst, W, scale: int, level: np.ndarray) -> list:
    """Unnormalised π (a ball per state) of the irreducible chain with rates
    W_k / scale from ``src[k]`` to ``dst[k]`` whose states have breadth-first
    ``level`` (level 0 one state), in ball arithmetic at the current precision.

    With A⁺_l, A⁰_l, A⁻_l the rates from level l up, within, down, the
    generator of the chain censored on levels ≤ l has level-l block

        U_L = A⁰_L,   U_{l−1} = A⁰_{l−1} + R_l A⁻_l,   R_l = A⁺_{l−1} (−U_l)^{-1},

    and its balance at level l reads π_{l−1} A⁺_{l−1} + π_l U_l = 0, so
    π_0 = 1 and π_l = π_{l−1} R_l (Gaver, Jacobs & Latouche 1984).  A path
    above level l returns to l first, so the rows of [U_l, A⁻_l] sum to 0:
    the diagonal of U_l is set to minus the sum of the other (positive)
    rates, GTH's device (Grassmann, Taksar & Heyman 1985), and −U_l is an
    M-matrix, solved by interval Gaussian elimination (``algorithm="lu"``;
    the preconditioned solver's normwise bound loses the small entries'
    relative accuracy).  R_l ≥ 0, so the back substitution adds positive
    products only.  SolverError when a −U_l is not proven non-singular.
    """
    from flint import arb_mat, fmpq  # lazy: only the exact and ball routes need it

    members = [np.flatnonzero(level == v) for v in range(int(level.max()) + 1)]
    where = np.empty(level.size, dtype=np.int64)
    for idx in members:
        where[idx] = np.arange(idx.size)
    blocks: dict = {}
    for i, j, w in zip(src, dst, W):
        blocks.setdefault((int(level[i]), int(level[j])), []).append((int(where[i]), int(where[j]), fmpq(int(w), scale)))

    def block(a: int, b: int):
        M = arb_mat(members[a].size, members[b].size)
        for i, j, q in blocks.get((a, b), ()):
            M[i, j] += q
        return M

    def ones(k: int):
        return arb_mat([[1]] * k)

    top = len(members) - 1
    R = [None] * (top + 1)
    U = block(top, top)
    for t in range(top, 0, -1):
        down = block(t, t - 1)
        k = members[t].size
        for i in range(k):
            U[i, i] = 0
        out = U * ones(k) + down * ones(members[t - 1].size)
        for i in range(k):
            U[i, i] = -out[i, 0]
        try:  # R_t = A⁺ (−U_t)^{-1}, as (−U_t)ᵀ R_tᵀ = A⁺ᵀ
            R[t] = (-U).transpose().solve(block(t - 1, t).transpose(), algorithm="lu").transpose()
        except ZeroDivisionError:
            raise SolverError(f"ball-arithmetic level reduction: the censored block of level {t} is not proven "
                              "non-singular at this precision") from None
        U = block(t - 1, t - 1) + R[t] * down
    pi = [None] * level.size
    x = arb_mat([[1]])
    pi[int(members[0][0])] = x[0, 0]
    for t in range(1, top + 1):
        x = x * R[t]
        for k, s in enumerate(members[t]):
            pi[int(s)] = x[0, k]
    return pi
