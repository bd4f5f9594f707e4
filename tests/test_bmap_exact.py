"""Model files keep their decimals (issue 30 item 3): exact reading, exact
lumping, and certified enclosures that hold for the model as printed,
checked against an exact rational evaluation (Avrachenkov et al. §7)."""
import json
from decimal import Decimal
from fractions import Fraction

import flint
import mpmath
import numpy as np
import pytest

from crawlmath.numeric import bmap as bm
from crawlmath.numeric.bmap import _measures  # exact_ball, an internal
from crawlmath.numeric.bmap import MODELS_DIR, load_model
from crawlmath.numeric.errors import InvalidInput, TooLarge
from crawlmath.numeric.bmap import BMAP, Lumping, PhaseType
from crawlmath.numeric.bmap._phase_type import DecimalText, exact


def _file(name: str) -> dict:
    """The shipped model file read independently of bmap_io: every decimal straight to a Fraction."""
    return json.loads((MODELS_DIR / name).read_text(), parse_float=Fraction, parse_int=Fraction)


def test_exact_reads_numbers_as_written():
    assert exact(0.2, argument="x") == Fraction(1, 5)  # a float stands for its shortest decimal
    assert exact(0.6 - 0.4, argument="x") == Fraction("0.19999999999999996")
    assert exact("6.58e-05", argument="x") == Fraction(658, 10**7)
    assert exact(Decimal("0.30000000000000000001"), argument="x") == Fraction("0.30000000000000000001")
    assert exact(DecimalText("0.30000000000000000001"), argument="x") == Fraction("0.30000000000000000001")
    assert exact(np.int64(3), argument="x") == 3 and exact(Fraction(1, 3), argument="x") == Fraction(1, 3)
    for bad in (True, float("nan"), float("inf"), "abc", Decimal("NaN"), None, [1]):
        with pytest.raises(InvalidInput, match="^x: "):
            exact(bad, argument="x")


def test_lumping_is_exact():
    # the §7 obsolescence (gamma, Gamma): both exit rates are exactly 1/5, so R = 2 -> 1 with rate exactly 1/5
    lp = Lumping(PhaseType([0.3, 0.7], [[-0.6, 0.4], [0.1, -0.3]]))
    assert lp.reduced.S_exact.tolist() == [[Fraction(-1, 5)]] and lp.reduced.S[0, 0] == -0.2
    # rates that are equal only to 3e-17 are different rates: no lumping (the floats 0.2 and 0.6 - 0.4 differ)
    assert Lumping(PhaseType([0.5, 0.5], [[-0.3, 0.1], [0.0, -(0.6 - 0.4)]])).trivial
    # exact inputs of any kind
    ph = PhaseType(["0.3", Fraction(7, 10)], [[Decimal("-0.6"), "0.4"], [Fraction(1, 10), -0.3]])
    assert Lumping(ph).reduced.S_exact.tolist() == [[Fraction(-1, 5)]]


def test_model_files_keep_their_decimals():
    ex, ex_file = load_model("avrachenkov-example.json", K=5), _file("avrachenkov-example.json")
    for r, mats in enumerate(ex_file["arrivals"]["D"], start=1):
        for k, D in enumerate(mats):
            assert ex.D_exact(r, k).tolist() == D, (r, k)
    G = np.array(ex_file["obsolescence"]["Gamma"], dtype=object)
    assert set((-G.sum(axis=1)).tolist()) == {Fraction(1, 5)}  # the file's exit rates, exactly
    assert ex.obsolescence.S_exact.tolist() == [[Fraction(-1, 5)]]  # ... and the lumped rate the chain uses
    assert ex.obsolescence.S.tolist() == [[-0.2]]  # its float copy: not -0.19999999999999996
    real, c = load_model("avrachenkov-real.json"), _file("avrachenkov-real.json")["arrivals"]["common"]
    A = np.array(c["A"], dtype=object)
    for r in range(1, 5):
        assert real.D_exact(r, 0).tolist() == (r * np.array(c["D0"], dtype=object)).tolist()
        for k, d in enumerate(c["d"], start=1):
            assert real.D_exact(r, k).tolist() == (r * d * A).tolist(), (r, k)


def test_decimals_beyond_double_precision_survive_reading(tmp_path):
    spec = json.loads((MODELS_DIR / "avrachenkov-example.json").read_text())
    text = json.dumps(spec).replace('"beta": [0.4, 0.6]', '"beta": [0.39999999999999999999, 0.60000000000000000001]')
    assert "0.39999999999999999999" in text
    (tmp_path / "m.json").write_text(text)
    (tmp_path / "m.toml").write_text(f"K = 3\nservice = {{ beta = [0.39999999999999999999, 0.60000000000000000001], "
                                     f"S = [[-3, 1], [2, -3]] }}\nobsolescence = {{ gamma = [1.0], Gamma = [[-0.2]] }}\n"
                                     f"[arrivals]\ninterpretation = \"scaled\"\nrobots = 1\ncommon = {{ D = [[[-1.0]], [[1.0]]] }}\n")
    for name in ("m.json", "m.toml"):
        m = load_model(tmp_path / name)
        assert m.given_service.beta_exact.tolist() == [Fraction("0.39999999999999999999"), Fraction("0.60000000000000000001")]
        assert m.given_service.beta.tolist() == [0.4, 0.6]


def _contains(cv: bm.CertifiedValue, J: Fraction) -> bool:
    with mpmath.workdps(120):
        return abs(mpmath.mpf(J.numerator) / J.denominator - cv.value) <= cv.radius


CASES = [("avrachenkov-example.json", 5, bm.Policy((3, 1), (2,))),  # Table 1's highlighted row
         ("avrachenkov-real.json", None, bm.Policy((4, 1), (3,)))]


@pytest.mark.parametrize("name,K,policy", CASES)
def test_certified_enclosure_contains_the_exact_J_of_the_printed_decimals(name, K, policy):
    m = load_model(name) if K is None else load_model(name, K=K)
    lv = m.check_policy(policy)
    cv = bm.certified_cost(m, lv, digits=30)
    J = bm.exact_cost(m, lv)  # exact rationals (fmpq_mat solve, exact measures): no rounding anywhere
    assert cv.digits >= 30 and _contains(cv, J)
    # the chain of the stored floats of the old route (lumped rate 0.19999999999999996 for the example, float products
    # r d_k A for the real model) has another J, and the enclosure tells them apart
    floats = m.with_(arrivals=[BMAP(b.D) for b in m.arrivals],
                     obsolescence=PhaseType(m.obsolescence.beta, [[-(0.6 - 0.4)]]) if K else m.given_obsolescence)
    J_floats = bm.exact_cost(floats, lv)
    assert J_floats != J and not _contains(cv, J_floats)


def test_exact_cost_limits_and_checks():
    m = load_model("avrachenkov-example.json", K=5, reduce=False)  # 126 states
    with pytest.raises(InvalidInput, match="level_vectors"):
        bm.exact_cost(m, (3, 1))
    big = load_model("avrachenkov-example.json", K=7, reduce=False)  # 510 states
    with pytest.raises(TooLarge, match="200 states"):
        bm.exact_cost(big, (1,) * 8)
    assert isinstance(_measures.exact_ball(Fraction(1, 3)), flint.arb)
