"""The §7 real-data inputs (Table 5's crawler): the printed MAP read as exact decimals with the half-units of their last
printed digits, lambda^(1) of the two-state MAP, the rule that chooses the model's MAP inside the printed rounding boxes
(issue 32), the model variants tried as readings, and the BMAP characteristics in ball arithmetic.
"""
from __future__ import annotations

from fractions import Fraction
from functools import lru_cache

import flint
import numpy as np

from ....numeric import bmap as bm
from ....numeric.bmap import read_spec
from ....numeric.bmap import BMAP, PhaseType
from ....numeric.errors import SolverError
from ....numeric.tolerance import SLSQP_FTOL
from ...cells import decimals
from ...tables import avrachenkov as T
from ._common import REAL, real


def printed_real() -> tuple[list[Fraction], list[Fraction], list[Fraction], list[Fraction]]:
    """The printed real-data MAP as exact decimals: A's entries (row by row), their half-units, D_0's diagonal and its
    half-units (the last printed digit of each, e.g. 6.58e-5 -> 5e-8)."""
    c = read_spec("avrachenkov-real-printed.json")["arrivals"]["common"]
    A = [Fraction(repr(x)) for row in c["A"] for x in row]
    D0 = [Fraction(repr(c["D0"][i][i])) for i in range(2)]
    half = [Fraction(1, 2 * 10 ** sig_decimals(float(x))) for x in A + D0]
    return A, half[:4], D0, half[4:]


def map_lam(A, d) -> Fraction | float:
    """lambda^(1) = (sum_k k d_k / sum_k d_k) theta A e of the 2-state MAP D_0 = -diag(A e), D_1 = A (theta its stationary
    vector: theta is proportional to (A[1,0], A[0,1])); exact for Fraction inputs.

    >>> map_lam([Fraction(1), Fraction(1), Fraction(1), Fraction(1)], [Fraction(1, 2), Fraction(1, 2)])  # rate 2, batches 1.5
    Fraction(3, 1)
    """
    a00, a01, a10, a11 = A
    mean_batch = sum(k * x for k, x in enumerate(d, start=1)) / sum(d)
    return mean_batch * (a10 * (a00 + a01) + a01 * (a10 + a11)) / (a01 + a10)


def lam_window(r: int, printed: str) -> tuple[Fraction, Fraction]:
    """The lambda^(1) for which r lambda^(1) rounds to ``printed`` (MEANS: rounding)."""
    p, h = Fraction(printed), Fraction(1, 2 * 10 ** decimals(printed))
    return (p - h) / r, (p + h) / r


@lru_cache(maxsize=None)
def real_generator_rule() -> tuple[float, ...]:
    """The rule that chooses the real-data MAP (issue 32): the A (with D_0 = -diag(A e)) that minimises the sum of squared
    deviations of A's four entries and D_0's two from their printed values, each measured in half-units of its last
    printed digit, subject to every entry inside its rounding box (|deviation| <= 1) and the four printed lambda^(r)
    reproduced by rounding with 5% of the lambda^(1) window they leave to spare.  SLSQP from 12 seeded starts; the model
    file holds the optimum to 7 significant digits, which `_real_d0` then checks exactly."""
    from scipy.optimize import minimize  # lazy: scipy.optimize takes seconds to import, only this function uses it

    A, hA, D0, hD = printed_real()
    P, H = np.array([float(x) for x in A]), np.array([float(x) for x in hA + hD])
    target = np.array([float(x) for x in A] + [-float(x) for x in D0])
    d = [float(x) for x in read_spec("avrachenkov-real-printed.json")["arrivals"]["common"]["d"]]
    windows = [lam_window(r, p) for r, p in enumerate(T.REAL_LAM, start=1)]
    lo, hi = float(max(w[0] for w in windows)), float(min(w[1] for w in windows))
    span = hi - lo

    def dev(z):
        x = P + z * H[:4]
        return (np.r_[x, x[0] + x[1], x[2] + x[3]] - target) / H

    cons = [{"type": "ineq", "fun": lambda z: 1 - np.abs(dev(z))},
            {"type": "ineq", "fun": lambda z: (map_lam(P + z * H[:4], d) - lo) / span - 0.05},
            {"type": "ineq", "fun": lambda z: (hi - map_lam(P + z * H[:4], d)) / span - 0.05}]
    runs = [minimize(lambda z: float(np.sum(dev(z) ** 2)), np.random.default_rng(seed).uniform(-1, 1, 4), constraints=cons,
                     method="SLSQP", options={"maxiter": 1000, "ftol": SLSQP_FTOL}) for seed in range(12)]
    ok = [r for r in runs if r.success]
    if not ok:
        raise SolverError(f"no generator inside the printed rounding boxes reproduces the printed lambda^(r): {runs[0].message}")
    best = min(ok, key=lambda r: r.fun)
    return tuple(P + best.x * H[:4])


def bmap_ball(b: BMAP, what: str):
    """``compute(ball, prec)`` for `bm.certify`: lambda, lambda_g or c_cor of ``b`` in arb ball arithmetic (same formulas as
    `_bmap_mp`: theta from D(1) with p e = 1, lambda = sum_k k theta D_k e, lambda_g = theta (-D_0) e, c_cor from (-D_0)^-1)."""
    def compute(ball, prec):
        old = flint.ctx.prec
        flint.ctx.prec = prec
        try:
            n = b.order
            D = [flint.arb_mat([[ball(x) for x in row] for row in Dk]) for Dk in b.D_exact]
            D1 = sum(D[1:], D[0])
            A = D1.transpose()
            for j in range(n):
                A[n - 1, j] = 1
            theta = A.solve(flint.arb_mat([[0]] * (n - 1) + [[1]])).transpose()
            e = flint.arb_mat([[1]] * n)
            lam = sum(((theta * D[k] * e)[0, 0] * k for k in range(1, len(D))), flint.arb(0))
            lam_g = (theta * (-D[0]) * e)[0, 0]
            if what == "lam":
                return lam
            if what == "lam_g":
                return lam_g
            inv = (-D[0]).inv()
            var = 2 / lam_g * (theta * inv * e)[0, 0] - 1 / lam_g**2
            return (lam_g * (theta * inv * (D1 - D[0]) * inv * e)[0, 0] - 1) / (var * lam_g**2)
        finally:
            flint.ctx.prec = old
    return compute


def sig_decimals(x: float) -> int:
    """Decimals of ``x`` as printed in §7 (its shortest repr, e.g. 8.8163983e-4 -> 11)."""
    text = repr(float(x))
    if "e" in text:
        mant, exp = text.split("e")
        return (len(mant.split(".")[1]) if "." in mant else 0) - int(exp)
    return len(text.split(".")[1]) if "." in text else 0


def real_variant(name: str) -> bm.BmapModel:
    """Other readings of the real-data model (Table 5 hypotheses; none is tuned to the print)."""
    spec = read_spec("avrachenkov-real-printed.json")
    c = spec["arrivals"]["common"]
    A, D0p, dk = np.asarray(c["A"], float), np.asarray(c["D0"], float), np.asarray(c["d"], float)
    m = real()
    if name == "A-diagonal":  # keep the printed D_0, raise A's diagonal so that D_0 + A is a generator
        A2 = A.copy()
        A2[np.diag_indices(2)] = -D0p.diagonal() - (A.sum(axis=1) - A.diagonal())
        return m.with_(arrivals=[BMAP([r * D0p] + [r * x * A2 for x in dk / dk.sum()]) for r in range(1, 5)])
    if name == "212.03":  # the corrected MAP rescaled to the stated mean interval between batches
        f = (1 / float(T.REAL_MEAN_INTERVAL)) / m.arrivals[0].lam_g
        return m.with_(arrivals=[b.scaled(f) for b in m.arrivals])
    if name == "K=21":  # 'the buffer capacity is K = 20' read as a buffer of 20 (K - 1 = 20)
        return m.with_K(21)
    raise KeyError(name)


REAL_VARIANTS = ("A-diagonal", "212.03", "K=21")


@lru_cache(maxsize=None)
def moved_real(which: str, idx, h: float) -> bm.BmapModel:
    """The real-data model with the printed input ``which[idx]`` moved by h (cached: `_input_spread` moves the same inputs
    for every mode set)."""
    m = real()
    sv, A = m.given_service, read_spec(REAL)["arrivals"]["common"]
    if which == "beta":
        beta = sv.beta + np.array([h, -h])
        return m.with_(service=PhaseType(beta, sv.S))
    if which == "S":
        S = sv.S.copy()
        S[idx] -= h
        return m.with_(service=PhaseType(sv.beta, S))
    Am = np.asarray(A["A"], float)
    Am[idx] += h
    D0 = -np.diag(Am.sum(axis=1))
    dk = np.asarray(A["d"], float)
    return m.with_(arrivals=[BMAP([r * D0] + [r * x * Am for x in dk]) for r in range(1, 5)])
