"""Reference values for your own continuous-time Markov chain.

:func:`ctmc_stationary` returns the stationary vector π of an irreducible
generator Q (πQ = 0, Σπ = 1), in float64 or to a requested number of correct
digits, with the residual and the route that produced it.  It is the routine
crawlmath's own model solvers are tested against, exposed so that you can
produce reference values for *your* solver.

Routes:

- float64, n ≤ ``DENSE_MAX``: the GTH elimination (Grassmann, Taksar, Heyman
  1985), which subtracts nothing, so every entry of π -- even 1e-300 -- has
  full relative accuracy;
- float64, larger n: sparse LU of Qᵀ with one balance equation replaced by
  the normalisation, gated on its residual;
- any n, a chain whose transitions move a level by at most one (a
  quasi-birth-death chain): :func:`gth_levels`, the same GTH elimination
  level by level, O(Σ m_ℓ³) for level sizes m_ℓ; and
  :func:`refine_stationary`, which refines such a π to D digits in every
  entry (however small) from exact integer rates;
- ``digits=D``: π for the *exact* chain the input names (see
  :mod:`crawlmath.numeric.exact`: ints, Fractions, SymPy Rationals, Decimals and
  decimal strings are exact; a float means its shortest decimal, so 0.7 is
  7/10), by two independent routes that must agree to D digits.  For
  n ≤ ``EXACT_MAX`` the first is an exact rational solve (python-flint
  ``fmpq_mat``; ``pi_exact`` holds the Fractions and ``error_bound`` is 0);
  above, a rigorous ball-arithmetic solve (``arb_mat``, balls built from the
  exact rates, so every ball contains the exact π; its radius is
  ``error_bound``).  The second is the GTH elimination in mpmath from the
  exact rates.  Both take the chain to be defined by its off-diagonal rates:
  the diagonal is minus their exact sum.  Exact input must have rows summing
  to exactly 0; a float input's rows to 0 within ``STRUCTURE_ABS`` (its
  decimal diagonal may differ from minus the decimal rates by rounding).
  ``inputs`` says which: ``"exact"`` or ``"shortest-decimal"``.

>>> import numpy as np
>>> Q = np.array([[-1.0, 1.0], [2.0, -2.0]])   # an M/M/1/1 queue, λ = 1, μ = 2
>>> ctmc_stationary(Q).pi.round(12).tolist()
[0.666666666667, 0.333333333333]
>>> r = ctmc_stationary(Q, digits=30)
>>> r.pi_text[0], r.method, r.inputs, r.pi_exact
('0.666666666666666666666666666667', 'fmpq-solve+mpmath-gth', 'shortest-decimal', [Fraction(2, 3), Fraction(1, 3)])
>>> ctmc_stationary(np.array([[-1.0, 1.0, 0.0], [0.0, 0.0, 0.0], [0.0, 1.0, -1.0]]))
Traceback (most recent call last):
...
crawlmath.numeric.errors.InvalidInput: Q: must be irreducible: states [1] form a closed class of 3 states (got 'reducible')
"""
from __future__ import annotations

import math
from dataclasses import dataclass, field
from fractions import Fraction

import numpy as np
import scipy.sparse as sps
import scipy.sparse.linalg as spla

from .. import exact as ex
from ..errors import InvalidInput, SolverError, TooLarge
from ..linalg import closed_classes
from ..tolerance import CTMC_RESIDUAL_REL, FLOAT_REL, STRUCTURE_ABS
from ..validate import require_digits

DENSE_MAX = 2000  # GTH is O(n³) in float64: 2000 states ≈ 3 s
HP_MAX = 400  # the two high-precision routes are O(n³) in multiprecision
# The exact solve against the ball solve at 30 digits (benchmarks/exact_routes.py, same process):
# birth-death 0.19 s vs 1.3 s at n = 200; four random p/q (p, q < 100) per row 0.30 s vs 1.0 s;
# dense random p/q 3.1 s vs 0.85 s at 200 and 16 s vs 2.6 s at 300 (denominators grow) -- so
# exact up to 200 states, where its worst case costs about as much as the mpmath GTH route.
EXACT_MAX = 200


@dataclass(frozen=True)
class Stationary:
    """π with how it was obtained.

    ``pi`` (float64), ``pi_text`` (decimal strings to ``digits`` places when
    requested, else None), ``residual`` = max|πQ| / max|Q| (of ``pi``, or with
    ``digits`` of ``pi_mp`` at the working precision), ``method``,
    ``digits`` (significant digits on which the two high-precision routes
    agree, or None), ``error_bound`` (rigorous absolute bound on the
    distance of ``pi_mp`` from the exact π, or None), ``inputs`` (which chain
    the digits are for: ``"exact"`` or ``"shortest-decimal"``, see
    :mod:`crawlmath.numeric.exact`), ``pi_exact`` (the exact π as Fractions
    when the exact rational route ran, else None) and ``pi_mp`` (mpmath
    numbers at ``digits`` + 15 significant digits when ``digits`` was asked).
    """

    pi: np.ndarray = field(repr=False)
    residual: float
    method: str
    pi_text: list[str] | None = field(default=None, repr=False)
    digits: float | None = None
    error_bound: float | None = None
    inputs: str = ex.EXACT
    pi_exact: list[Fraction] | None = field(default=None, repr=False)
    pi_mp: list | None = field(default=None, repr=False)


def ctmc_stationary(Q, digits: int | None = None, *, max_states: int | None = None,
                    floats: str = ex.FLOATS) -> Stationary:
    """Stationary vector of an irreducible generator ``Q``: nested lists, a
    NumPy array (object arrays of exact numbers included), a scipy sparse
    matrix or `crawlmath.numeric.exact.Triplets`.

    ``digits``: deliver every entry to that many significant digits for the
    exact chain the input names, certified by two routes (see the module
    docstring); ``max_states`` raises the size limit of the high-precision
    routes (default ``HP_MAX``); ``floats="binary"`` reads a float as its
    binary value instead of its shortest decimal.  A reducible Q is refused,
    naming a closed class; a Q that is not a generator is refused, naming the
    entry; complex entries are refused.

    >>> from fractions import Fraction
    >>> ctmc_stationary([[-1, 1], [Fraction(7, 10), "-0.7"]], digits=20).pi_exact
    [Fraction(7, 17), Fraction(10, 17)]
    """
    inputs = ex.input_kind(Q, floats=floats)
    if digits is None:
        Qf = _generator(ex.float_matrix(Q, argument="Q"))
        n = Qf.shape[0]
        _require_irreducible(Qf)
        pi, method = (_gth_float(Qf.toarray()), "gth") if n <= DENSE_MAX else (_sparse_lu(Qf), "sparse-lu")
        return Stationary(pi, _residual(Qf, pi), method, inputs=inputs)
    digits = require_digits(digits)
    n = _square_size(Q)
    limit = HP_MAX if max_states is None else int(max_states)
    if n > limit:
        raise TooLarge("Q", f"{n} states exceed the high-precision limit {limit} (O(n^3) multiprecision work); "
                            "pass max_states= to raise it", value=n)
    rates = _exact_rates(Q, inputs, floats)
    _require_irreducible(_pattern(rates))
    return _high_precision(rates, digits, inputs)


# ----------------------------------------------------------------- checks


def _square_size(Q) -> int:
    shape = ex.shape(Q, argument="Q")
    if len(shape) != 2 or shape[0] != shape[1] or shape[0] == 0:
        raise InvalidInput("Q", "must be a non-empty square matrix", value=shape)
    return shape[0]


def _exact_rates(Q, inputs: str, floats: str) -> list[list[Fraction]]:
    """The exact off-diagonal rates of Q (diagonal 0), checked: rates >= 0;
    each row sums to exactly 0 for exact input, to 0 within the float
    tolerance for float input (whose decimal diagonal may be off by rounding)."""
    rows = ex.dense(Q, argument="Q", floats=floats)
    for i, row in enumerate(rows):
        for j, q in enumerate(row):
            if j != i and q < 0:
                raise InvalidInput("Q", "off-diagonal entries must be >= 0", value=str(q), entry=(i, j))
        total = sum(row)
        scale = max([Fraction(1)] + [abs(q) for q in row])
        if total != 0 and (inputs == ex.EXACT or abs(total) > Fraction(STRUCTURE_ABS) * scale):
            rule = "rows must sum to exactly 0 (exact input)" if inputs == ex.EXACT else \
                f"rows must sum to 0 (within {STRUCTURE_ABS:g} of the row's largest entry)"
            raise InvalidInput("Q", rule, value=str(total), entry=i)
        rows[i] = [q if j != i else Fraction(0) for j, q in enumerate(row)]
    return rows


def _pattern(rates: list[list[Fraction]]) -> sps.csr_matrix:
    """The transition graph of the exact rates (1 where a rate is positive), for the irreducibility check."""
    n = len(rates)
    i, j = zip(*[(i, j) for i, row in enumerate(rates) for j, q in enumerate(row) if q > 0]) if n > 1 else ((), ())
    return sps.csr_matrix((np.ones(len(i)), (i, j)), shape=(n, n))


def _mp_residual(rates: list[list[Fraction]], pi) -> float:
    """max_j |(πQ)_j| / max|Q| at the working precision (Q from the exact rates, diagonal minus
    the row sums), for the digits= routes: a float64 residual would say nothing below 1e-16."""
    import mpmath  # lazy: slow to import; only the high-precision routes need it

    n = len(rates)
    out = [sum(row, Fraction(0)) for row in rates]
    scale = max(out) if n else 0
    if not scale:
        return 0.0
    flow = [mpmath.fsum(pi[i] * ex.to_mpf(rates[i][j]) for i in range(n) if rates[i][j]) - pi[j] * ex.to_mpf(out[j])
            for j in range(n)]
    return float(max(abs(f) for f in flow) / ex.to_mpf(scale))


def _generator(M: sps.csr_matrix) -> sps.csr_matrix:
    if M.ndim != 2 or M.shape[0] != M.shape[1] or M.shape[0] == 0:
        raise InvalidInput("Q", "must be a non-empty square matrix", value=M.shape)
    if not np.all(np.isfinite(M.data)):
        bad = np.flatnonzero(~np.isfinite(M.data))[0]
        raise InvalidInput("Q", "entries must be finite", value=float(M.data[bad]), entry=_entry(M, bad))
    C = M.tocoo()
    off = (C.row != C.col) & (C.data < 0)
    if off.any():
        i = np.flatnonzero(off)[0]
        raise InvalidInput("Q", "off-diagonal entries must be >= 0", value=float(C.data[i]), entry=(int(C.row[i]), int(C.col[i])))
    rows = np.asarray(M.sum(axis=1)).ravel()
    scale = np.maximum(1.0, np.asarray(abs(M).max(axis=1).todense()).ravel())
    bad = np.flatnonzero(~(np.abs(rows) <= STRUCTURE_ABS * scale))
    if bad.size:
        raise InvalidInput("Q", f"rows must sum to 0 (within {STRUCTURE_ABS:g} of the row's largest entry)",
                           value=float(rows[bad[0]]), entry=int(bad[0]))
    return M


def _entry(M: sps.csr_matrix, k: int) -> tuple[int, int]:
    row = int(np.searchsorted(M.indptr, k, side="right") - 1)
    return row, int(M.indices[k])


def _require_irreducible(Q: sps.csr_matrix) -> None:
    n = Q.shape[0]
    A = Q.tocoo()
    keep = (A.row != A.col) & (A.data > 0)
    G = sps.csr_matrix((np.ones(keep.sum()), (A.row[keep], A.col[keep])), shape=(n, n))
    closed = closed_classes(G)
    if len(closed) == 1 and closed[0].size == n:
        return
    C = min(closed, key=len)
    shown = C[:10].tolist() + (["..."] if C.size > 10 else [])
    raise InvalidInput("Q", f"must be irreducible: states {shown} form a closed class of {n} states".replace("'...'", "..."),
                       value="reducible")


def _residual(Q: sps.csr_matrix, pi: np.ndarray) -> float:
    scale = float(abs(Q).max())  # 0 for the one-state chain [[0]], where πQ = 0 exactly
    r = float(np.abs(Q.T @ pi).max()) / scale if scale else 0.0
    if not (r <= CTMC_RESIDUAL_REL * Q.shape[0]) or not np.all(np.isfinite(pi)):
        raise SolverError(f"stationary vector residual max|πQ|/max|Q| = {r:.3g} is too large")
    return r


# ----------------------------------------------------------------- float routes


def _gth_float(Q: np.ndarray) -> np.ndarray:
    """GTH elimination: censor states n−1, …, 1 one by one (no subtraction)."""
    A = Q.copy()
    n = A.shape[0]
    np.fill_diagonal(A, 0.0)
    for k in range(n - 1, 0, -1):
        s = A[k, :k].sum()
        if not s > 0:
            raise SolverError(f"GTH: state {k} has no transition to states below it after censoring")
        A[:k, :k] += np.outer(A[:k, k] / s, A[k, :k])
        A[:k, k] /= s
    pi = np.zeros(n)
    pi[0] = 1.0
    for k in range(1, n):
        pi[k] = pi[:k] @ A[:k, k]
    return pi / pi.sum()


def _sparse_lu(Q: sps.csr_matrix) -> np.ndarray:
    n = Q.shape[0]
    A = Q.T.tolil()
    A[n - 1, :] = np.ones(n)
    b = np.zeros(n)
    b[-1] = 1.0
    try:
        pi = spla.splu(A.tocsc()).solve(b)
    except RuntimeError as exc:
        raise SolverError(f"sparse LU failed: {exc}") from None
    if pi.min() < -FLOAT_REL:
        raise SolverError(f"sparse LU gave a negative probability {pi.min():.3g}")
    pi = np.clip(pi, 0.0, None)
    return pi / pi.sum()


# ----------------------------------------------------------------- high precision


def _high_precision(rates: list[list[Fraction]], digits: int, inputs: str) -> Stationary:
    """π of the chain with exact off-diagonal ``rates`` to ``digits`` digits:
    exact (n ≤ EXACT_MAX) or ball route, checked against mpmath GTH."""
    import mpmath  # lazy: slow to import; only the high-precision routes need it

    n = len(rates)
    pi_exact = _fmpq_solve(rates) if n <= EXACT_MAX else None
    with mpmath.workdps(digits + 15):
        if pi_exact is not None:
            first, radius, method = [ex.to_mpf(p) for p in pi_exact], 0.0, "fmpq-solve+mpmath-gth"
        else:
            (first, radius), method = _arb_solve(rates, digits), "arb-solve+mpmath-gth"
        gth = _gth_mp(rates)
        agreed, worst = min((_agree(a, g), i) for i, (a, g) in enumerate(zip(first, gth)))
        if not agreed >= digits:
            raise SolverError(f"high-precision routes agree to {agreed:.1f} digits only, {digits} asked: "
                              f"pi[{worst}] = {mpmath.nstr(first[worst], digits + 5)} ({method.split('+')[0]}) vs "
                              f"{mpmath.nstr(gth[worst], digits + 5)} (mpmath GTH)")
        text = [mpmath.nstr(p, digits, min_fixed=-math.inf, max_fixed=math.inf) if p != 0 else "0" for p in first]
        pi = np.array([float(p) for p in first])
        residual = _mp_residual(rates, first)
    return Stationary(pi, residual, method, text, agreed, radius, inputs, pi_exact, first)


def _fmpq_solve(rates: list[list[Fraction]]) -> list[Fraction]:
    """Exact π: Qᵀπ = 0 with the last balance equation replaced by Σπ = 1,
    solved over the rationals (python-flint ``fmpq_mat``)."""
    from flint import fmpq, fmpq_mat  # lazy: only the exact and ball routes need it

    n = len(rates)
    out = [sum(row) for row in rates]
    rows = [[fmpq(-out[i].numerator, out[i].denominator) if j == i else
             fmpq(rates[j][i].numerator, rates[j][i].denominator) for j in range(n)] for i in range(n - 1)]
    rows.append([fmpq(1)] * n)
    try:
        x = fmpq_mat(rows).solve(fmpq_mat(n, 1, [0] * (n - 1) + [1]))
    except ZeroDivisionError:
        raise SolverError("exact solve: the balance equations are singular (the chain is reducible)") from None
    return [Fraction(int(x[i, 0].p), int(x[i, 0].q)) for i in range(n)]


def _arb_solve(rates: list[list[Fraction]], digits: int):
    """Rigorous enclosure of π: solve Qᵀπ = 0 with the last equation replaced
    by Σπ = 1 in ball arithmetic from the exact rates (each converted to a
    ball containing it), raising the precision until every ball is
    relatively smaller than 10^-(digits+2).  Returns the midpoints as mpmath
    numbers (exactly) and the largest radius."""
    from flint import arb, arb_mat, ctx  # lazy: only the exact and ball routes need it

    n = len(rates)
    old = ctx.prec
    try:
        for bits in (int(digits * 3.33) + 64, int(digits * 6.7) + 128, int(digits * 13.4) + 256):
            ctx.prec = bits
            A = arb_mat(n, n)
            for j in range(n):  # column j of Qᵀ is row j of Q, diagonal minus the exact off-diagonal sum
                total = sum(rates[j], Fraction(0))
                for i in range(n - 1):
                    if i != j and rates[j][i] != 0:
                        A[i, j] = ex.to_arb(rates[j][i])
                if j < n - 1:
                    A[j, j] = -ex.to_arb(total)
            for j in range(n):
                A[n - 1, j] = 1
            b = arb_mat(n, 1)
            b[n - 1, 0] = 1
            try:
                x = A.solve(b)
            except ZeroDivisionError:
                continue
            balls = [x[i, 0] for i in range(n)]
            if all(bl.rad() <= abs(bl.mid()) * arb(10) ** (-(digits + 2)) for bl in balls):
                mids = [_exact_mid(bl) for bl in balls]
                radius = max(float_up(bl.rad()) for bl in balls)
                return mids, radius
    finally:
        ctx.prec = old
    raise SolverError(f"ball-arithmetic solve could not certify {digits} digits (system too ill-conditioned)")


def float_up(x) -> float:
    """A float >= the (non-negative) ball or number ``x``: its upper end rounded to nearest,
    then one float up, so that a bound stays a bound after the conversion."""
    upper = x.upper() if hasattr(x, "upper") else x
    return math.nextafter(float(upper), math.inf)


def _exact_mid(ball):
    """The midpoint of an arb ball as an mpmath number, exactly (its radius then bounds it)."""
    import mpmath  # lazy: slow to import; only the high-precision routes need it

    man, exp = (int(v) for v in ball.mid().man_exp())
    with mpmath.workprec(max(53, man.bit_length() + 1)):
        return mpmath.mpf((man, exp))


def _gth_mp(rates: list[list[Fraction]]):
    """GTH elimination in mpmath at the caller's precision from the exact off-diagonal rates."""
    import mpmath  # lazy: slow to import; only the high-precision routes need it

    n = len(rates)
    A = [[ex.to_mpf(q) if i != j else mpmath.mpf(0) for j, q in enumerate(row)] for i, row in enumerate(rates)]
    for k in range(n - 1, 0, -1):
        s = mpmath.fsum(A[k][:k])
        if not s > 0:
            raise SolverError(f"GTH: state {k} has no transition to states below it after censoring")
        col = [A[i][k] / s for i in range(k)]
        row = A[k][:k]
        for i in range(k):
            ci = col[i]
            if ci:
                Ai = A[i]
                for j in range(k):
                    if row[j]:
                        Ai[j] += ci * row[j]
            A[i][k] = ci
    pi = [mpmath.mpf(1)] + [mpmath.mpf(0)] * (n - 1)
    for k in range(1, n):
        pi[k] = mpmath.fsum(pi[i] * A[i][k] for i in range(k))
    total = mpmath.fsum(pi)
    return [p / total for p in pi]


def _agree(a, b) -> float:
    import mpmath  # lazy: slow to import; only the high-precision routes need it

    if a == b:
        return math.inf
    scale = max(abs(a), abs(b))
    return float(-mpmath.log10(abs(a - b) / scale))


# ----------------------------------------------------------------- skip-free chains


def gth_levels(rates, level) -> np.ndarray:
    """Stationary law of an irreducible CTMC whose transitions change the
    level by at most one (a level-dependent quasi-birth-death chain), by the
    GTH elimination carried out level by level.

    ``rates``: the n × n off-diagonal rates (sparse or dense; the diagonal is
    ignored); ``level``: an integer level per state, every positive rate
    joining states whose levels differ by at most one.

    The states are ordered by level and eliminated from the top level down
    (Grassmann, Taksar & Heyman 1985).  Censoring the levels above ℓ leaves
    the rates from level ℓ down to ℓ − 1 unchanged (a path through the levels
    above returns to ℓ first), so eliminating level ℓ only touches the dense
    block of levels ℓ − 1 and ℓ: O(Σ_ℓ (m_{ℓ−1} + m_ℓ)² m_ℓ) work for level
    sizes m_ℓ instead of O(n³).  The pivot of state k is the sum of its rates
    to the states not yet eliminated,

        s_k = Σ_{j<k} A_kj,   A_ij += A_ik A_kj / s_k  (i, j < k),

    and the back substitution π_k = Σ_{i<k} π_i A_ik / s_k adds products of
    positive numbers: nothing is subtracted, so every entry of π, however
    small, has a relative error of a modest multiple of the unit roundoff
    (O'Cinneide 1993).  SolverError when a pivot vanishes (Q reducible),
    InvalidInput when a rate skips a level.

    >>> import numpy as np
    >>> R = np.array([[0, 1.0, 0], [2.0, 0, 1e-20], [0, 3.0, 0]])   # birth-death, one tiny rate
    >>> gth_levels(R, [0, 1, 2]).tolist()                            # π_2 = π_1 · 1e-20 / 3
    [0.6666666666666666, 0.3333333333333333, 1.1111111111111112e-21]
    """
    R = sps.csr_matrix(rates, dtype=float)
    n = R.shape[0]
    lev = np.asarray(level)
    if R.shape != (n, n) or lev.shape != (n,):
        raise InvalidInput("level", f"must give one level per state of the {R.shape} rate matrix", value=lev.shape)
    C = R.tocoo()
    keep = (C.row != C.col) & (C.data != 0)
    if (C.data[keep] < 0).any() or not np.all(np.isfinite(C.data)):
        raise InvalidInput("rates", "off-diagonal rates must be finite and >= 0")
    skip = np.flatnonzero(keep & (np.abs(lev[C.row] - lev[C.col]) > 1))
    if skip.size:
        i, j = int(C.row[skip[0]]), int(C.col[skip[0]])
        raise InvalidInput("rates", "a transition skips a level", value=(int(lev[i]), int(lev[j])), entry=(i, j))
    R = sps.csr_matrix((C.data[keep], (C.row[keep], C.col[keep])), shape=(n, n))
    levels = np.unique(lev)
    members = [np.flatnonzero(lev == v) for v in levels]
    pi = np.zeros(n)
    for idx, x, _ in gth_back_substitute(gth_eliminate_levels(R, members), members):
        pi[idx] = x
    return pi / pi.sum()


def gth_back_substitute(saved: list[np.ndarray], members: list[np.ndarray], *, scaled: bool = False):
    """The back substitution of `gth_levels` from `gth_eliminate_levels`' columns: yields, level by level,
    (the level's states, their unnormalised π, e) with π_k = Σ_{i<k} π_i A_ik / s_k (sums of positive products).
    ``scaled``: each level's vector is divided by 2^e (its largest entry in [1/2, 1)) before the next level reads
    it, so levels hundreds of orders of magnitude apart stay representable; π of a level is then its vector times
    2 to the sum of the e's so far.  Unscaled, e is 0."""
    prev = None
    for t, idx in enumerate(members):
        A = saved[t]
        mb = A.shape[0] - idx.size
        x = np.zeros(idx.size)
        start = np.zeros(idx.size) if prev is None else prev @ A[:mb]
        if prev is None:
            x[0] = 1.0
        for k in range(1 if prev is None else 0, idx.size):
            x[k] = start[k] + x[:k] @ A[mb:mb + k, k]
        e = math.frexp(float(x.max()))[1] if scaled else 0
        x = np.ldexp(x, -e) if scaled else x
        yield idx, x, e
        prev = x


# ----------------------------------------------------------------- fixed point with exact residuals


_to_int = np.frompyfunc(int, 1, 1)


def gth_eliminate_levels(R: sps.csr_matrix, members: list[np.ndarray]) -> list[np.ndarray]:
    """The elimination phase of `gth_levels`: the off-diagonal rates ``R`` (CSR, zero diagonal not required) and
    the states of each level (``members[ℓ]``, levels 0, 1, ... in order), eliminated from the top level down.
    Returns, per level ℓ, the columns A_{:k,k}/s_k of its states restricted to levels ℓ−1 and ℓ (rows of level
    ℓ−1 first): what the back substitution π_k = Σ_{i<k} π_i A_ik / s_k reads.  SolverError when a pivot
    vanishes (the chain is reducible)."""
    saved = [None] * len(members)
    block = R[members[-1]][:, members[-1]].toarray()
    for t in range(len(members) - 1, -1, -1):
        below = members[t - 1] if t > 0 else np.empty(0, dtype=np.int64)
        mb, mt = below.size, members[t].size
        both = np.concatenate([below, members[t]])
        A = R[both][:, both].toarray()  # one extraction; the level's own block is the reduced one
        A[mb:, mb:] = block
        np.fill_diagonal(A, 0.0)
        for k in range(mb + mt - 1, mb - 1, -1) if t > 0 else range(mt - 1, 0, -1):
            s = A[k, :k].sum()
            if not s > 0:
                raise SolverError(f"GTH: state {int(members[t][k - mb])} has no transition to the states left "
                                  "after censoring (the chain is reducible)")
            col = A[:k, k] / s
            A[:k, :k] += np.outer(col, A[k, :k])
            A[:k, k] = col
        saved[t] = A[:, mb:].copy()
        block = A[:mb, :mb]
    return saved


def fixed_point(x, F: int) -> np.ndarray:
    """round(x · 2^F) as Python integers (dtype object), for any F: x is first
    scaled so that its largest entry has 60 bits (exact in float64)."""
    x = np.asarray(x, dtype=float)
    big = float(np.abs(x).max()) if x.size else 0.0
    if big == 0.0:
        return np.zeros(x.shape, dtype=object)
    k = 60 - math.frexp(big)[1]
    ints = _to_int(np.rint(np.ldexp(x, k)))
    return ints << (F - k) if F >= k else ints >> (k - F)


def integer_ratio(R: np.ndarray, S: int) -> tuple[np.ndarray, int]:
    """(y, k) with y = R · 2^k / S in float64 and the largest |y| near 2^60:
    an exact integer residual R/S handed to a float solver without
    underflow (the solver's answer is then scaled back by 2^-k)."""
    top = max(int(R.max()), -int(R.min())).bit_length() if len(R) else 0
    k = 60 - top + S.bit_length() if top else 0
    shifted = R << k if k >= 0 else R >> -k
    return (shifted / S).astype(float), k


@dataclass(frozen=True)
class RefinedStationary:
    """The stationary law of :func:`refine_stationary` as exact integers.

    ``mass[i]`` is proportional to π_i (π_i = mass[i] / Σ mass, exactly, for
    the refined vector); ``steps`` refinement steps were made and the last
    correction was below 10^-``digits`` relative in every entry.
    """

    mass: np.ndarray = field(repr=False)  # Python ints (dtype object)
    steps: int
    digits: float


def refine_stationary(src, dst, weight, pi, digits: int, *, max_steps: int = 40) -> RefinedStationary:
    """Refine a stationary vector to ``digits`` significant digits in *every*
    entry, however small, by iterative refinement of the scaled balance
    equations with exact residuals.

    The chain is given by its transitions i -> j (``src``, ``dst``) with
    exact integer ``weight`` (rates times any common factor; self-loops are
    ignored); ``pi`` is a float64 approximation with small *relative* error
    in every entry (e.g. from :func:`gth_levels`).  Writing π_i = π̂_i y_i,
    the balance equation of state j divided by its outflow π̂_j w_j,

        e_j(y) = Σ_i (π̂_i w_ij / (π̂_j w_j)) y_i − y_j = 0,   w_j = Σ_k w_jk,

    has the coefficients of the time-reversed jump chain (between 0 and 1,
    whatever the spread of π), so y ≈ 1 is found to the same *relative*
    accuracy in every entry.  y is kept in fixed point (integers over 2^F),
    the residuals e_j are computed exactly in integer arithmetic, and each
    correction is solved with one float64 sparse LU of the scaled system (one
    equation replaced by y_{j0} fixed, j0 the largest entry).  SolverError when
    the corrections stop shrinking.
    """
    src, dst = np.asarray(src, dtype=np.int64), np.asarray(dst, dtype=np.int64)
    w = np.asarray(weight, dtype=object)
    move = src != dst
    src, dst, w = src[move], dst[move], w[move]
    pi = np.asarray(pi, dtype=float)
    if not np.all(pi > 0) or not np.all(np.isfinite(pi)):
        raise InvalidInput("pi", "must be a positive finite approximation of the stationary vector",
                           entry=int(np.flatnonzero(~(pi > 0) | ~np.isfinite(pi))[0]))
    # π̂_i = P_i / 2^E exactly (a float is a dyadic rational)
    ratios = [float(p).as_integer_ratio() for p in pi]
    E = max(d.bit_length() - 1 for _, d in ratios)
    P = np.array([num << (E - d.bit_length() + 1) for num, d in ratios], dtype=object)
    j0 = int(np.argmax(pi))
    mass, steps, reached = refine_balance(src, dst, w, P, pi[src] / pi[dst], j0, digits, max_steps,
                                          "refine_stationary: ")
    return RefinedStationary(mass, steps, reached)


def refine_balance(src, dst, w, P, ratio, j0: int, digits: int, max_steps: int, who: str = ""):
    """The refinement loop shared by :func:`refine_stationary` and the scaled start of
    :mod:`crawlmath.numeric.markov._sparse_refine`: π_i = P_i y_i / 2^E with ``P`` exact integers, ``ratio`` the float
    π̂_src/π̂_dst per transition, ``j0`` the state whose y stays fixed.  Returns (P ∘ Y, steps, digits reached),
    π = P ∘ Y / Σ exactly; SolverError (prefixed by ``who``) when the corrections stop shrinking."""
    n = P.size
    out = np.zeros(n, dtype=object)
    np.add.at(out, src, w)
    if any(o == 0 for o in out):
        raise SolverError(f"{who}a state has no transition out (the chain is not irreducible)")
    coef = ratio * w.astype(float) / out.astype(float)[dst]
    keep = dst != j0
    others = np.delete(np.arange(n), j0)
    A = sps.csc_matrix((np.concatenate([coef[keep], -np.ones(n - 1), [1.0]]),
                        (np.concatenate([dst[keep], others, [j0]]), np.concatenate([src[keep], others, [j0]]))),
                       shape=(n, n))
    lu = spla.splu(A)
    F = math.ceil((digits + 8) * math.log2(10))
    Y = np.full(n, 1 << F, dtype=object)
    order = np.argsort(dst, kind="stable")
    starts = np.searchsorted(dst[order], np.arange(n))
    last = math.inf
    for step in range(1, max_steps + 1):
        inflow = np.add.reduceat((P[src] * Y[src] * w)[order], starts)
        # e_j = (inflow_j − P_j Y_j out_j) / (P_j out_j 2^F), divided exactly, each in its own scale
        e = [Fraction(int(f), int(d) << F) for f, d in zip(inflow - P * out * Y, P * out)]
        e[j0] = Fraction(0)
        big = max(abs(v) for v in e)
        if big == 0:
            return P * Y, step, float(digits + 8)
        k = 60 - (big.numerator.bit_length() - big.denominator.bit_length())
        delta = lu.solve(-np.array([float(v * Fraction(2) ** k) for v in e]))
        size = float(np.abs(delta).max())
        Y = Y + fixed_point(delta, F - k)
        log_size = math.log10(size) - k * math.log10(2) if size > 0 else -math.inf
        if log_size < -(digits + 2):
            return P * Y, step, -log_size
        if not log_size < last - 0.3:
            break
        last = log_size
    raise SolverError(f"{who}corrections stopped shrinking at 10^{log_size:.1f} (step {step}); "
                      f"{digits} digits not reached")
