"""The matrix-free BMAP/PH/1/K solver (numeric/bmap/_structured.py) on models whose obsolescence does not lump
(R = 2 with distinct exit rates; R = 3 with complex eigenvalues), against the assembled generator and SuperLU."""
import numpy as np
import pytest
import scipy.sparse as sps

from crawlmath.numeric import bmap as bm
from crawlmath.numeric.bmap import _structured as bs
from crawlmath.numeric.linalg import _gmres as gm
from crawlmath.numeric.bmap import load_model
from crawlmath.numeric.errors import SolverError, TooLarge
from crawlmath.numeric.bmap import PhaseType
from crawlmath.numeric.validate import MEMORY_ENV

DISTINCT = PhaseType(np.array([0.6, 0.4]), np.array([[-0.3, 0.1], [0.05, -0.15]]))  # exit rates 0.2 and 0.1
# a cycle through three phases: Γ has a pair of complex eigenvalues, so the level solves run in complex arithmetic
CYCLIC = PhaseType(np.array([0.5, 0.3, 0.2]), np.array([[-1.0, 0.8, 0.0], [0.0, -1.0, 0.9], [0.7, 0.0, -1.0]]))
# one phase (exponential obsolescence): every axis has stride 1, the kernels must still visit each page once
EXPONENTIAL = PhaseType(np.array([1.0]), np.array([[-0.2]]))


def example(K, obsolescence=DISTINCT):
    m = load_model("avrachenkov-example.json", K=K).with_(obsolescence=obsolescence)
    assert m.R == obsolescence.order and m.states == m.full_states  # nothing lumped: the full chain
    return m


def measure_vector(m):
    return np.array([m.p_star, m.n_act, m.lam, m.p_loss, m.p_obs, m.p_success, m.v1, m.v2, m.cost])


@pytest.mark.parametrize("K, obsolescence, policy", [(7, DISTINCT, bm.Policy((3, 1), (3,))),
                                                      (9, DISTINCT, bm.Policy((4, 2, 1), (1, 5))),
                                                      (5, CYCLIC, bm.Policy((3, 1), (2,)))])
def test_structured_equals_sparse_direct(K, obsolescence, policy):
    m = example(K, obsolescence)
    lv = m.check_policy(policy)
    direct = bm.evaluate_levels(m, lv, "sparse")
    ours = bm.evaluate_levels(m, lv, "structured")
    assert ours.method.startswith("structured") and ours.residual <= 1e-12
    np.testing.assert_allclose(measure_vector(ours), measure_vector(direct), rtol=1e-10, atol=0)


def test_complex_eigenvalues_are_exercised():
    lam, _ = bs._eig(CYCLIC.S)
    assert np.iscomplexobj(lam) and np.abs(lam.imag).max() > 0.1
    assert bs.LevelOperators(example(3, CYCLIC), (3, 3, 1, 1)).dtype == np.complex128


@pytest.mark.parametrize("obsolescence, n", [(DISTINCT, 6), (DISTINCT, 2), (CYCLIC, 4), (DISTINCT, 0)])
def test_merged_axes_equal_explicit_kronecker_sum(obsolescence, n):
    """One level block, inner axes merged into one dense factor and outer axes looped, against the explicit
    ``C ⊕ Γ ⊕ ... ⊕ Γ`` built by `bm.kron_sum_power` (the generator's own code)."""
    G = obsolescence.S
    rng = np.random.default_rng(n)
    C = np.kron(np.array([[-5.0, 1.0], [0.5, -2.0]]), np.eye(2)) + np.kron(np.eye(2), np.array([[-3.0, 1.0], [2.0, -3.0]]))
    blk = bs.LevelBlock(C, G, n)
    R = G.shape[0]
    dense = np.kron(C, np.eye(R**n)) + np.kron(np.eye(4), bm.kron_sum_power(G, n).toarray() if n else np.zeros((1, 1)))
    np.testing.assert_allclose(bs.kron_sum_matrix(G, min(n, 2)), (bm.kron_sum_power(G, min(n, 2)).toarray()
                                                                  if n else np.zeros((1, 1))), atol=1e-15)
    x = rng.random(4 * R**n)
    out = np.empty_like(x)
    blk.apply(x, out)
    np.testing.assert_allclose(out, x @ dense, rtol=0, atol=1e-13)
    work = x.astype(blk.dtype)
    blk.solve(work)
    np.testing.assert_allclose(work.real, np.linalg.solve(dense.T, x), rtol=1e-11, atol=1e-13)
    assert np.abs(work.imag).max(initial=0) < 1e-12


@pytest.mark.parametrize("block", [bs.BLOCK_APPLY, 16, 2])  # small blocks: the matvec's outer-axis paths
def test_operator_equals_generator(block):
    """`apply_flat` against the generator enumerated state by state.  At R = 2 levels 6 .. K go through
    `apply_pull` (with 4 and 6 rows per level); mode 4 (batches up to 4) at K = 10 sends batches of |g| = 2,
    4, 8 and 16 into them (the tail into level K among them); the levels below are `_plain_corner`, and at
    R = 3 every level goes through the level-by-level kernels."""
    three = PhaseType(np.array([0.5, 0.3, 0.2]), -np.diag([1.0, 2.0, 3.0]))  # M = 3: six rows per level
    cases = ((example(8), bm.Policy((4, 1), (2,))), (example(10), bm.Policy((4,), ())),
             (example(8).with_(service=three), bm.Policy((3, 1), (3,))), (example(4, CYCLIC), bm.Policy((2, 1), (1,))))
    sizes = set()
    for m, pol in cases:
        lv = m.check_policy(pol)
        Q = bm.generator_enumerated(m, lv)  # state by state from the model's rules, not from the Lemma
        ops = bs.LevelOperators(m, lv, block=block)
        if m.R == 2:
            assert [i for i in range(m.K + 1) if i not in ops._plain] == list(range(6, m.K + 1))
            assert ops._corner is not None
            sizes |= {g.size for i in range(6, m.K + 1) for _, _, g, _ in ops.into[i]}
        x = np.random.default_rng(1).random(Q.shape[0])
        out = np.empty_like(x)
        ops.apply_flat(x, out)
        np.testing.assert_allclose(out, Q.T @ x, rtol=0, atol=1e-13)
    assert sizes == {2, 4, 8, 16}


def test_pull_shares_are_the_whole():
    """`LevelOperators.pull_share`: three shares formed in turn, and two on two threads at once, give exactly
    the outputs of the whole `apply_pull` call (each output is summed by the same instructions in any share)."""
    from concurrent.futures import ThreadPoolExecutor
    m = example(10)
    lv = m.check_policy(bm.Policy((4,), ()))
    ops = bs.LevelOperators(m, lv)
    x = ops.vector()
    x[:] = np.random.default_rng(2).random(x.size)
    whole, thirds, halves = ops.vector(), ops.vector(), ops.vector()
    ops.apply_flat(x, whole)
    ops.apply_flat(x, thirds)
    ops.apply_flat(x, halves)
    first = int(ops.cuts[ops._pulled[0]])
    thirds[first:] = halves[first:] = np.nan  # every pulled output must be written by some share
    for part in range(3):
        ops.pull_share(x, thirds, part, 3)
    with ThreadPoolExecutor(2) as ex:
        list(ex.map(lambda part: ops.pull_share(x, halves, part, 2), range(2)))
    assert np.array_equal(thirds, whole) and np.array_equal(halves, whole)
    with pytest.raises(ValueError, match="part = 2 of parts = 2"):
        ops.pull_share(x, halves, 2, 2)


def _kron(*factors):
    out = np.ones((1, 1))
    for f in factors:
        out = np.kron(out, f)
    return out


@pytest.mark.parametrize("obsolescence, n", [(DISTINCT, 9), (DISTINCT, 7), (DISTINCT, 6), (DISTINCT, 5), (DISTINCT, 3),
                                              (DISTINCT, 1), (CYCLIC, 4), (EXPONENTIAL, 1), (EXPONENTIAL, 2),
                                              (EXPONENTIAL, 5)])
@pytest.mark.parametrize("block", [bs.BLOCK_APPLY, 32, 8, 2])
def test_fused_kernels_equal_plain_kronecker(obsolescence, n, block):
    """The level-by-level kernels (`level_apply` via `LevelBlock.apply`; `down_add` and, at R = 2 from 6 pages
    on, `down_add_pull`; `up_add`), with blocks small enough to exercise the outer axes, against the blocks
    written as plain numpy Kronecker products on a level with n waiting pages: ``C ⊗ I + Σ_q I ⊗ Γ_q``, the
    service and obsolescence exits, a batch with fresh pages.  (`apply_pull`: `test_operator_equals_generator`.)"""
    G = obsolescence.S
    R = G.shape[0]
    g0, gam = -G.sum(axis=1), obsolescence.beta
    W, M = 2, 2
    rng = np.random.default_rng(10 * n + block)
    C = np.kron(np.array([[-5.0, 1.0], [0.5, -2.0]]), np.eye(M)) + np.kron(np.eye(W), np.array([[-3.0, 1.0], [2.0, -3.0]]))
    I = np.eye
    diag = _kron(C, I(R**n)) + sum(_kron(I(W * M), I(R**q), G, I(R ** (n - 1 - q))) for q in range(n))
    blk = bs.LevelBlock(C, G, n, block)
    x = rng.random(W * M * R**n)
    out = np.empty_like(x)
    blk.apply(x, out)
    np.testing.assert_allclose(out, x @ diag, rtol=0, atol=1e-13)

    beta, S0 = np.array([0.3, 0.7]), np.array([1.5, 0.25])
    if n >= 2:  # level 1 -> 0 is a plain matrix product in `LevelOperators._down`
        service = _kron(I(W), np.outer(S0, beta), np.ones((R, 1)), I(R ** (n - 1)))
        obsolete = sum(_kron(I(W * M), I(R**q), g0.reshape(R, 1), I(R ** (n - 1 - q))) for q in range(n))
        y0 = rng.random(W * M * R ** (n - 1))
        y = y0.copy()
        bs.down_add(x, y, W, M, R, n, beta, S0, g0, bs.down_inner_matrix(g0, n), -0.5, block)
        np.testing.assert_allclose(y, y0 - 0.5 * (x @ (service + obsolete)), rtol=0, atol=1e-13)
        if R == 2 and n >= 6:
            y = y0.copy()
            bs.down_add_pull(x, y, W, M, n, beta, S0, g0, -0.5)
            np.testing.assert_allclose(y, y0 - 0.5 * (x @ (service + obsolete)), rtol=0, atol=1e-13)

    D = np.array([[0.4, 0.1], [0.2, 0.3]])
    for l in (1, 2):
        g = _kron(*[gam.reshape(1, R)] * l).ravel()
        y0 = rng.random(x.size * R**l)
        y = y0.copy()
        bs.up_add(y, x, W, np.ascontiguousarray(D.T), g, 2.0)
        np.testing.assert_allclose(y, y0 + 2.0 * (x @ _kron(D, I(M * R**n), g.reshape(1, -1))), rtol=0, atol=1e-13)


@pytest.mark.parametrize("obsolescence, n", [(DISTINCT, 10), (DISTINCT, 7), (DISTINCT, 4), (CYCLIC, 5), (DISTINCT, 0),
                                              (EXPONENTIAL, 4)])
@pytest.mark.parametrize("block, gather", [(bs.BLOCK_SOLVE, bs.GATHER), (64, 2048), (16, 64), (8, 8), (2, 1)])
def test_fused_level_solve_equals_plain_eigendecomposition(obsolescence, n, block, gather, monkeypatch):
    """`LevelBlock.solve` (`level_solve`: in-block axes three per pass, outer axes on gathered segments, the class
    solve in between), with blocks small enough to take every path, against the plain formula in numpy:
    ``Γ = V Λ V^{-1}``, ``x Q_ii^{-1} = x (I ⊗ V^{⊗n}) diag_r((C + σ_r I)^{-1}) (I ⊗ V^{-1⊗n})``, ``σ_r = Σ_q λ_{r_q}``
    (r_1 the most significant digit), V from its own `np.linalg.eig` call and each column's block inverted."""
    monkeypatch.setattr(bs, "BLOCK_SOLVE", block)
    monkeypatch.setattr(bs, "GATHER", gather)
    G = obsolescence.S
    R, P = G.shape[0], 4
    C = np.kron(np.array([[-5.0, 1.0], [0.5, -2.0]]), np.eye(2)) + np.kron(np.eye(2), np.array([[-3.0, 1.0], [2.0, -3.0]]))
    lam, V = np.linalg.eig(G)
    Vn, Vinv_n = _kron(*[V] * n), _kron(*[np.linalg.inv(V)] * n)
    # digits[q, r] = r_{q+1} of column r, r_1 most significant
    sigma = lam[np.indices([R] * n).reshape(n, -1)].sum(axis=0) if n else np.zeros(1)
    x = np.random.default_rng(n + block).random(P * R**n)
    y = x.reshape(P, -1) @ Vn
    z = np.stack([y[:, r] @ np.linalg.inv(C + sigma[r] * np.eye(P)) for r in range(R**n)], axis=1)
    plain = (z @ Vinv_n).ravel()
    blk = bs.LevelBlock(C, G, n)
    assert blk.span == min(R**n, bs.power_at_most(R, block))
    work = x.astype(blk.dtype)
    blk.solve(work)
    np.testing.assert_allclose(work, plain, rtol=0, atol=1e-13 * np.abs(plain).max())


@pytest.mark.parametrize("M", [2, 3])
def test_work_vectors_align_every_pulled_level(M):
    """`LevelOperators.vector` places each level that `apply_pull` forms on a 64-byte boundary (whole cache
    lines per 8-lane load): with M = 2 service phases (the benchmark's) and M = 3 (other level offsets)."""
    m = example(9)
    if M != 2:
        m = m.with_(service=PhaseType(np.array([0.5, 0.3, 0.2]), -np.diag([1.0, 2.0, 3.0])))  # distinct: no lumping
    lv = m.check_policy(bm.Policy((3, 1), (3,)))
    ops = bs.LevelOperators(m, lv)
    pulled = [i for i in range(m.K + 1) if i not in ops._plain]
    assert m.M == M and pulled == list(range(6, m.K + 1))
    for _ in range(3):
        x = ops.vector()
        assert x.size == ops.n and not x.any()
        assert all((x.ctypes.data + 8 * int(ops.cuts[i])) % 64 == 0 for i in pulled)


@pytest.mark.parametrize("K", [5, 8])
@pytest.mark.parametrize("block, gather", [(bs.BLOCK_SOLVE, bs.GATHER), (4, 8)])
def test_preconditioner_is_symmetric_block_gauss_seidel(K, block, gather, monkeypatch):
    """`precondition` against the textbook sweep on the assembled matrix: forward x = (L + D)^{-1} b, then
    backward x = (D + U)^{-1} (b − L x), on A = Q^T split by levels; small blocks take the outer-axis path, and
    at K = 8 the couplings down from levels 7 and 8 are `down_add_pull`."""
    monkeypatch.setattr(bs, "BLOCK_SOLVE", block)
    monkeypatch.setattr(bs, "GATHER", gather)
    m = example(K)
    lv = m.check_policy(bm.Policy((3, 1), (2,)))
    A = bm.generator_kronecker(m, lv).T.tocsr()
    ops = bs.LevelOperators(m, lv)
    assert [i for i in range(K + 1) if ops._pulls_down(i)] == list(range(7, K + 1))
    cuts = ops.cuts
    mask = sps.lil_matrix(A.shape)
    for i in range(len(cuts) - 1):
        mask[cuts[i]:cuts[i + 1], cuts[i]:cuts[i + 1]] = 1
    Dblk = A.multiply(mask.tocsr()).toarray()
    full = A.toarray()
    lower, upper = np.tril(full - Dblk), np.triu(full - Dblk)
    b = np.random.default_rng(2).random(A.shape[0])
    x = np.linalg.solve(Dblk + lower, b)
    x = np.linalg.solve(Dblk + upper, b - lower @ x)
    out = np.empty_like(b)
    ops.precondition(b, out)
    np.testing.assert_allclose(out, x, rtol=1e-11, atol=1e-13)


def test_gmres_right_solves_nonsymmetric_system():
    rng = np.random.default_rng(3)
    n = 60
    A = np.eye(n) * 4 + rng.random((n, n))
    b = rng.random(n)
    d = np.diag(A).copy()
    x, its, res = gm.gmres_right(lambda v: A @ v, lambda v: v / d, b, np.zeros(n), 1e-13, 10, 500)
    np.testing.assert_allclose(x, np.linalg.solve(A, b), rtol=1e-11)
    assert res <= 1e-13 * np.linalg.norm(b) and its > 10  # needed a restart
    with pytest.raises(SolverError, match="did not reach"):
        gm.gmres_right(lambda v: A @ v, lambda v: v / d, b, np.zeros(n), 1e-13, 3, 4)


def test_defective_obsolescence_raises():
    jordan = PhaseType(np.array([1.0, 0.0]), np.array([[-1.0, 1.0], [0.0, -1.0]]))  # Erlang-2: not diagonalisable
    m = load_model("avrachenkov-example.json", K=4, reduce=False).with_(obsolescence=jordan)
    with pytest.raises(SolverError, match="defective"):
        bs.solve_structured(m, m.check_policy(bm.Policy((3,), ())))


def test_memory_estimate_refuses_before_allocating(monkeypatch):
    m = example(24)  # 2 (1 + 2 (2^24 - 1)) states: ~67 million
    assert bs.memory_estimate(m, 40) > 8 * m.states * 41
    monkeypatch.setenv(MEMORY_ENV, "1G")
    with pytest.raises(TooLarge, match="matrix-free"):
        bs.solve_structured(m, m.check_policy(bm.Policy((3, 1), (3,))))


@pytest.mark.parametrize("m", [0, 1, 3, 4, 5, 9, 8, 15, 21])
def test_orthogonalisation_kernels_equal_numpy(m):
    """`_dots2` and `_update2` (four basis rows per pass, reassociated sums) against plain numpy, on vectors
    longer than one column block and not a multiple of it."""
    n = gm.ORTH_BLOCK + 37
    rng = np.random.default_rng(m)
    V = rng.standard_normal((m + 2, n))
    u, z = V[m].copy(), rng.standard_normal(n)
    out = np.full((m + 2, 2), np.nan)
    gm._dots2(V, m, u, z, out)
    ref = np.stack([V[:m] @ u, V[:m] @ z], axis=1)
    np.testing.assert_allclose(out[:m], ref, rtol=0, atol=1e-11)
    np.testing.assert_allclose(out[m], [u @ u, u @ z], rtol=1e-13)
    s, t = rng.standard_normal(m), rng.standard_normal(m)
    q_ref = 0.7 * (u - s @ V[:m])
    w_ref = 0.7 * (z - t @ V[:m]) - 0.3 * q_ref
    w = np.empty(n)
    norm2 = gm._update2(V, m, s, t, u, z, 0.7, 0.3, w)
    np.testing.assert_allclose(u, q_ref, rtol=0, atol=1e-12)
    np.testing.assert_allclose(w, w_ref, rtol=0, atol=1e-12)
    assert norm2 == pytest.approx(w_ref @ w_ref, rel=1e-13)


def _gmres_cycles(A, b, d, tol, restart, maxiter=500):
    """`gmres_right` on ``A x = b`` with the Jacobi preconditioner ``d``; its answer and every cycle's basis."""
    cycles = []
    x, its, res = gm.gmres_right(lambda v: A @ v, lambda v: v / d, b, np.zeros(b.size), tol, restart, maxiter,
                                 record=lambda Q, H: cycles.append((Q, H)))
    return x, its, res, cycles


def _check_arnoldi(A, d, cycles, orth):
    """Every cycle: ``||I − Q^T Q||_2 <= orth`` and the Arnoldi relation ``A M^{-1} Q_k = Q_{k+1} H`` to rounding
    (``q_{k+1}``, rounding noise when the Krylov space became invariant, ``H[k+1, k] <= 1e-14 ||H||``, is left out of
    the orthogonality: in n dimensions there is no (n+1)-th orthogonal direction)."""
    for Q, H in cycles:
        k = H.shape[1]
        rows = k + 1 if abs(H[k, k - 1]) > 1e-14 * np.linalg.norm(H) else k
        loss = np.linalg.norm(np.eye(rows) - Q[:rows] @ Q[:rows].T, 2)
        assert loss <= orth, f"loss of orthogonality {loss:.3g} after {k} steps"
        AQ = np.stack([A @ (q / d) for q in Q[:k]])
        assert np.linalg.norm(AQ - H.T @ Q) <= 1e-13 * np.linalg.norm(H)


def test_delayed_reorthogonalisation_keeps_the_basis_orthonormal():
    """A Krylov basis that one Gram–Schmidt pass cannot keep orthogonal (A = I + a random matrix of spectral
    radius ~0.5: the residual falls ~2x per step, so each new vector lies ever closer to the span of the basis and
    a single projection loses ~1e-3 in 40 steps) stays orthonormal to O(ε) with the delayed second pass."""
    rng = np.random.default_rng(5)
    n = 400
    A = np.eye(n) + 0.5 * rng.standard_normal((n, n)) / np.sqrt(n)
    b = rng.standard_normal(n)
    cycles = []
    with pytest.raises(SolverError, match="did not reach"):  # an unreachable tolerance: one full cycle of 40 steps
        gm.gmres_right(lambda v: A @ v, lambda v: v, b, np.zeros(n), 1e-30, 40, 40,
                       record=lambda Q, H: cycles.append((Q, H)))
    assert len(cycles) == 1 and cycles[0][1].shape == (41, 40)
    Q1 = _cgs1_basis(A, b, 40)
    assert np.linalg.norm(np.eye(41) - Q1 @ Q1.T, 2) > 1e-6  # the test is not vacuous: one pass is not enough
    _check_arnoldi(A, np.ones(n), cycles, 1e-14)


def _cgs1_basis(A, b, k):
    """Arnoldi with one classical Gram–Schmidt pass (the comparison that shows the loss)."""
    Q = np.zeros((k + 1, b.size))
    Q[0] = b / np.linalg.norm(b)
    for j in range(k):
        w = A @ Q[j]
        w -= (Q[: j + 1] @ w) @ Q[: j + 1]
        Q[j + 1] = w / np.linalg.norm(w)
    return Q


def test_gmres_right_near_invariant_krylov_space():
    """n = 6 with a restart of 10: the Krylov space is the whole space after 6 steps and the next candidate is
    rounding noise (the second projection then removes most of it: the explicit norm, not Pythagoras)."""
    rng = np.random.default_rng(7)
    A = np.eye(6) * 3 + rng.random((6, 6))
    b = rng.random(6)
    x, its, res, cycles = _gmres_cycles(A, b, np.diag(A).copy(), 1e-15, 10)
    np.testing.assert_allclose(x, np.linalg.solve(A, b), rtol=1e-13)
    assert its <= 7 and res <= 1e-15 * np.linalg.norm(b)
    _check_arnoldi(A, np.diag(A).copy(), cycles[:1], 1e-14)


@pytest.mark.parametrize("K, obsolescence, policy", [(6, DISTINCT, bm.Policy((3, 1), (3,))),
                                                      (4, CYCLIC, bm.Policy((2, 1), (1,))),
                                                      (6, EXPONENTIAL, bm.Policy((3, 1), (2,)))])
def test_gmres_right_on_the_stationary_system_equals_dense_solve(K, obsolescence, policy):
    """The system `solve_structured` hands to `gmres_right`, ``(Q + e c)^T x = c`` with the block Gauss–Seidel
    preconditioner and restarts short enough to take several cycles, against a dense LU solve of the assembled
    matrix; the basis of every cycle orthonormal to O(ε)."""
    m = load_model("avrachenkov-example.json", K=K, reduce=False).with_(obsolescence=obsolescence)
    lv = m.check_policy(policy)
    ops = bs.LevelOperators(m, lv)
    n = ops.n
    scale = float(np.abs(m.D(lv[0], 0)).max())
    c = np.zeros(n)
    c[: ops.sizes[0]] = scale
    A = bm.generator_kronecker(m, lv).T.toarray() + np.outer(c, np.ones(n))
    exact = np.linalg.solve(A, c)
    cycles = []

    def precond(v):
        out = np.empty(n)
        ops.precondition(v, out)
        return out

    x, its, res = gm.gmres_right(lambda v: A @ v, precond, c, np.full(n, 1.0 / n), 1e-15, 5, 500,
                                 record=lambda Q, H: cycles.append((Q, H)))
    assert len(cycles) >= 2 and res <= 1e-15 * np.linalg.norm(c)
    np.testing.assert_allclose(x, exact, rtol=0, atol=1e-12 * np.abs(exact).max())
    for Q, H in cycles:
        k = H.shape[1]
        assert np.linalg.norm(np.eye(k + 1) - Q @ Q.T, 2) <= 1e-14
        AQ = np.stack([A @ precond(q) for q in Q[:k]])
        assert np.linalg.norm(AQ - H.T @ Q) <= 1e-13 * np.linalg.norm(H)


@pytest.mark.parametrize("shape", [(3, 5), 7, (0,), (2, 0)])
def test_work_array_is_zero_filled_and_writable(shape):
    """`work_array` (anonymous mapping, no huge-page advice): float64 zeros of the shape, writable, each a fresh
    mapping (two arrays never share memory)."""
    a, b = gm.work_array(shape), gm.work_array(shape)
    assert a.dtype == np.float64 and a.shape == np.zeros(shape).shape and not a.any()
    a += 1.0
    assert a.size == 0 or (a.min() == 1.0 and not b.any())
