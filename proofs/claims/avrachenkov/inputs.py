"""Avrachenkov et al. §7: the inputs.  The example's printed matrices D_k^(r) (three sign errors) against the printed
lambda^(r), lambda_g^(r), c_cor^(r); the real-data MAP D_0, A (two significant digits) inside its rounding boxes; the
BMAP characteristics certified by ball arithmetic with a 40-digit mpmath route; the PH means; the real batch law's
mean.
"""
from __future__ import annotations

import math
from fractions import Fraction

import mpmath
import numpy as np

from ....numeric import bmap as bm
from ....numeric.bmap import load_model, read_spec
from ....numeric.bmap import BMAP
from ....numeric.errors import InvalidInput
from ....numeric.tolerance import HP_DIGITS, QUADRATURE_REL, close, digits_agreed, printed_tolerance
from ... import cells
from ...registry import Claim, Method, Outcome, TableCell, claim, register
from ...tables import avrachenkov as T
from ._common import BMAP_CHARS, MEANS, P, REAL, example, hp_cell, other_reading, prints_as, real, src
from ._real import bmap_ball, map_lam, printed_real, real_generator_rule, sig_decimals


def _rejects(spec_name: str) -> str:
    try:
        load_model(spec_name)
    except InvalidInput as exc:
        return str(exc)
    return ""


@claim(f"{P}.inputs.example-D-signs", source=src("§7", "matrices D_k^(r)"), method=Method.FLOAT,
       statement="The printed D_1^(2), D_2^(2) (negative entries -0.01, -0.02) and D_0^(3) (diagonal +3.48) are invalid; "
                 "the sign-corrected matrices reproduce every printed lambda^(r), lambda_g^(r), c_cor^(r).")
def _example_signs():
    msg = _rejects("avrachenkov-example-printed.json")
    spec = read_spec("avrachenkov-example-printed.json")
    D2 = [np.asarray(x, float) for x in spec["arrivals"]["D"][1]]
    D3 = [np.asarray(x, float) for x in spec["arrivals"]["D"][2]]
    rows2 = sum(D2).sum(axis=1)
    rows3 = sum(D3).sum(axis=1)
    m = example()
    chars = {k: [getattr(b, k) for b in m.arrivals] for k in T.BMAP_CHARACTERISTICS}
    hits = sum(abs(v - float(p)) < 2 * printed_tolerance(p) for k, ps in T.BMAP_CHARACTERISTICS.items() for v, p in zip(chars[k], ps))
    total = sum(len(ps) for ps in T.BMAP_CHARACTERISTICS.values())
    if not msg or hits < total:
        return Outcome.failed(f"validation message {msg!r}; corrected matrices match {hits}/{total} printed characteristics")
    return Outcome.erratum_(
        f"printed input rejected: {msg}; printed D^(2)(1) row sums {rows2.round(6).tolist()}, D^(3)(1) {rows3.round(6).tolist()}",
        printed="D_1^(2)[0,0] = -0.01, D_2^(2)[0,0] = -0.02, D_0^(3)[1,1] = 3.48",
        corrected="D_1^(2)[0,0] = 0.01, D_2^(2)[0,0] = 0.02, D_0^(3)[1,1] = -3.48 (proofs/models/avrachenkov-example.json)",
        evidence=f"corrected D^(r)(1) are generators (rows sum to 0) and reproduce {hits}/{total} printed lambda, lambda_g, c_cor "
                 f"to within one unit of the last printed digit "
                 f"(lambda = {[round(x, 4) for x in chars['lam']]}, lambda_g = {[round(x, 4) for x in chars['lam_g']]}, "
                 f"c_cor = {[round(x, 4) for x in chars['c_cor']]})")


@claim(f"{P}.inputs.real-D0", source=src("§7", "real-data MAP D_0, A and lambda^(r)"), method=Method.FLOAT,
       statement="The printed real-data D_0, A (two significant digits) do not sum to a generator only through rounding: a "
                 "generator with every entry inside its printed rounding box reproduces all four printed lambda^(r); the model "
                 "file holds the one closest to the print (the rule of `real_generator_rule`), checked exactly.")
def _real_d0():
    msg = _rejects("avrachenkov-real-printed.json")
    A, hA, D0, hD = printed_real()
    c = read_spec(REAL)["arrivals"]["common"]
    mine = [Fraction(repr(x)) for row in c["A"] for x in row]
    mine_D0 = [Fraction(repr(c["D0"][i][i])) for i in range(2)]
    d = [Fraction(repr(x)) for x in read_spec("avrachenkov-real-printed.json")["arrivals"]["common"]["d"]]
    generator = mine_D0 == [-(mine[0] + mine[1]), -(mine[2] + mine[3])]
    inside = [abs(x - p) / h for x, p, h in zip(mine + mine_D0, A + D0, hA + hD)]
    lam = map_lam(mine, d)
    hits = [cells.matches(cells.printing_of(MEANS), r * lam, p) for r, p in enumerate(T.REAL_LAM, start=1)]
    rule = real_generator_rule()
    as_rule = all(abs(float(x) - y) <= 0.5 * 10 ** (math.floor(math.log10(y)) - 6) for x, y in zip(mine, rule))
    # the former correction: D_0 = -diag(A e) with A as printed
    old_D0 = [-(A[0] + A[1]), -(A[2] + A[3])]
    old_lam = map_lam(A, d)
    old_hits = sum(cells.matches(cells.printing_of(MEANS), r * old_lam, p) for r, p in enumerate(T.REAL_LAM, start=1))
    old_out = [float(x) for x, p, h in zip(old_D0, D0, hD) if abs(x - p) > h]
    ok = bool(msg) and generator and max(inside) <= 1 and all(hits) and as_rule
    return Outcome.judge(ok, (
        f"printed input rejected as given ({msg}): row sums within the rounding of its two-digit entries. "
        f"Model (exact decimals): A = [[{float(mine[0]):.7g}, {float(mine[1]):.7g}], [{float(mine[2]):.7g}, {float(mine[3]):.7g}]], "
        f"D_0 = -diag(A e) = diag({float(mine_D0[0]):.9g}, {float(mine_D0[1]):.9g}) (exactly: {generator}); deviation from the print in "
        f"half-units of the last printed digit: {', '.join(f'{float(x):.3f}' for x in inside)} (all <= 1: {max(inside) <= 1}); "
        f"lambda^(r) = r x {float(lam):.9f} = {', '.join(f'{float(r * lam):.7f}' for r in range(1, 5))} vs printed "
        f"{', '.join(T.REAL_LAM)}: {sum(hits)}/4 by rounding (exact rationals); the rule's optimum (least squares in half-units "
        f"inside the boxes, lambda reproduced) is {', '.join(f'{y:.7g}' for y in rule)}, the file holds it to 7 significant "
        f"digits: {as_rule}.  The former correction D_0 = -diag(A e) with A as printed gives D_0 = diag("
        f"{', '.join(f'{float(x):g}' for x in old_D0)}), outside the printed box at {old_out} (it would print -0.0065, not "
        f"-0.0066), and reproduces {old_hits}/4 lambda^(r): not the paper's MAP; no erratum"))


def _bmap_mp(b: BMAP, what: str):
    """lambda, lambda_g, c_cor of a BMAP recomputed in mpmath from the decimal inputs."""
    with mpmath.workdps(40):
        D = [mpmath.matrix([[mpmath.mpf(repr(float(x))) for x in row] for row in Dk]) for Dk in b.D]
        n = b.order
        D1 = sum(D[1:], D[0])
        A = D1.T.copy()
        for j in range(n):
            A[n - 1, j] = 1
        rhs = mpmath.matrix([0] * (n - 1) + [1])
        theta = mpmath.lu_solve(A, rhs).T
        e = mpmath.matrix([1] * n)
        lam = sum((k * (theta * D[k] * e)[0] for k in range(1, len(D))), mpmath.mpf(0))
        lam_g = (theta * (-D[0]) * e)[0]
        inv = mpmath.inverse(-D[0])
        var = 2 / lam_g * (theta * inv * e)[0] - lam_g**-2
        c = (lam_g * (theta * inv * (D1 - D[0]) * inv * e)[0] - 1) / (var * lam_g**2)
        return {"lam": lam, "lam_g": lam_g, "c_cor": c}[what]


def _bmap_cell(r: int, what: str, printed: str):
    def check():
        b = example().arrivals[r - 1]
        v = getattr(b, what)
        cv = bm.certify(bmap_ball(b, what), v, HP_DIGITS, f"{what}^({r})")
        mp40 = _bmap_mp(b, what)
        if not abs(mp40 - cv.value) <= cv.radius + mpmath.mpf(10) ** -35 * abs(mp40):
            return Outcome.failed(f"{what}^({r}): ball value {cv.value_str()} vs 40-digit mpmath {mpmath.nstr(mp40, 38)}")
        return hp_cell(BMAP_CHARS, cv, printed, f"{what}^({r})", [other_reading(float(cv.value), printed, BMAP_CHARS)],
                       note=f"40-digit mpmath route agrees to {digits_agreed(mp40, cv.value):.1f} digits")
    return check


for _what, _vals in T.BMAP_CHARACTERISTICS.items():
    for _r, _printed in enumerate(_vals, start=1):
        register(Claim(f"{P}.bmap.{_what}.r{_r}", src("§7", f"{_what}^({_r})"),
                       f"{_what}^({_r}) = {_printed} for the example BMAP with {_r} robots (corrected matrices)", Method.NUMERIC_HP,
                       _bmap_cell(_r, _what, _printed), TableCell("Avrachenkov §7 BMAP characteristics", f"r = {_r}", _what, _printed)))


@claim(f"{P}.ph.means", source=src("§7", "b_1, g_1, real b_1 and SCV"), method=Method.FLOAT,
       statement="Mean service 0.657, mean obsolescence 5; real data: mean service 8.2, SCV 86.03.")
def _ph_means():
    m, rm = example(), real()
    pairs = [(m.service.mean, T.MEAN_SERVICE, "b_1"), (m.obsolescence.mean, T.MEAN_OBSOLESCENCE, "g_1"),
             (rm.service.mean, T.REAL_MEAN_SERVICE, "real b_1"), (rm.service.scv, T.REAL_SCV, "real SCV")]
    # second route: the numerical integral of the survival function
    from scipy.integrate import quad  # lazy: scipy.integrate takes seconds to import, only this function uses it
    integral = quad(lambda x: 1 - m.service.cdf(x), 0, np.inf)[0]
    res = [(prints_as(MEANS, v, p), f"{name} = {v:.6g} vs {p}") for v, p, name in pairs]
    ok = all(r for r, _ in res) and close(integral, m.service.mean, rel=QUADRATURE_REL)
    return Outcome.judge(ok, "; ".join(t for _, t in res) + f"; b_1 by integrating 1 - F: {integral:.10g}")


@claim(f"{P}.bmap.real-mean-batch", source=src("§7", "mean batch size"), method=Method.FLOAT,
       statement="The printed batch-size law d_1..d_8 has mean 3.263389905223716: consistent with the d_k as printed to 8 digits "
                 "(some law with every d_k within half a unit of its printed last digit and sum 1 has exactly this mean).")
def _mean_batch():
    from scipy.optimize import linprog  # lazy: scipy.optimize takes seconds to import, only this function uses it

    spec = read_spec("avrachenkov-real-printed.json")
    dk = spec["arrivals"]["common"]["d"]
    with mpmath.workdps(30):
        mean = sum(mpmath.mpf(k) * mpmath.mpf(repr(x)) for k, x in enumerate(dk, start=1))
        tot = sum(mpmath.mpf(repr(x)) for x in dk)
    half = [printed_tolerance(f"{x:.{sig_decimals(x)}f}") for x in dk]
    k = np.arange(1, len(dk) + 1)
    bounds = [(x - h, x + h) for x, h in zip(dk, half)]
    lo = linprog(k, A_eq=[np.ones(len(dk))], b_eq=[1], bounds=bounds)
    hi = linprog(-k, A_eq=[np.ones(len(dk))], b_eq=[1], bounds=bounds)
    if not (lo.success and hi.success):
        return Outcome.failed(f"the interval linear programme failed: {lo.message}; {hi.message}")
    target = float(T.REAL_MEAN_BATCH)
    ok = lo.fun <= target <= -hi.fun
    return Outcome.judge(ok, f"sum k d_k of the printed d_k = {mpmath.nstr(mean, 16)} (sum d_k = {mpmath.nstr(tot, 12)}); with each d_k "
                             f"within half a unit of its last printed digit and sum 1 the mean ranges over [{lo.fun:.12f}, {-hi.fun:.12f}], "
                             f"which {'contains' if ok else 'misses'} the printed {T.REAL_MEAN_BATCH}", computed=mpmath.nstr(mean, 16))
