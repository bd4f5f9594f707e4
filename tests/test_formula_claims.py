"""The provenance claims (proofs/claims/formulas.py) and the proof tools
behind them (derive/stable.py) decide both ways: each check is shown to
PASS on a true statement and to FAIL or give ERRATUM on a false one."""
from __future__ import annotations

import subprocess
import sys

import pytest
import sympy as sp
from sympy.codegen.cfunctions import expm1

from crawlmath.derive import DerivationError, codegen
from crawlmath.derive.formula import Formula
from crawlmath.derive.stable import prove_identity, series_bound
from crawlmath.numeric.generated import manifest
from crawlmath.proofs.claims.formulas import REGISTERED, check_printed, check_stable
from crawlmath.proofs.registry import Status

x = sp.Symbol("x", positive=True)
K = sp.Symbol("K", integer=True, positive=True)


def _taylor(expr, n):
    return sp.series(expr, x, 0, n + 1).removeO()


def test_printed_equal_passes_with_its_route():
    f = Formula("geo", (x, K), (1 - x ** (K + 1)) / (1 - x), "(synthetic)", "geometric sum",
                printed=(x ** (K + 1) - 1) / (x - 1))
    out = check_printed(f)
    assert out.status is Status.PASS and "route" in out.detail


def test_printed_different_is_an_erratum_showing_both_values():
    f = Formula("states", (x,), 2 ** (x + 2) - 2, "(synthetic)", "a count", printed=2 ** (x + 1) - 2,
                domain={"x": (1.0, 10.0)})
    out = check_printed(f)
    assert out.status is Status.ERRATUM
    assert "derived" in out.detail and "printed" in out.detail and out.erratum.printed == str(f.printed)


def test_printed_fill_of_a_removable_singularity_is_compared_on_the_general_branch():
    rho = sp.Symbol("rho", positive=True)
    derived = sp.Piecewise((1 / (K + 1), sp.Eq(rho, 1)), ((1 - rho) / (1 - rho ** (K + 1)), True))
    f = Formula("p0", (rho, K), derived, "(synthetic)", "empty probability", printed=(rho - 1) / (rho ** (K + 1) - 1))
    out = check_printed(f)
    assert out.status is Status.PASS and "Eq(rho, 1)" in out.detail


def test_stable_expm1_identity_passes():
    f = Formula("em1", (x,), (sp.exp(x) - 1) / x, "(synthetic)", "(e^x - 1)/x", stable=expm1(x) / x)
    assert check_stable(f).status is Status.PASS


def test_stable_with_a_certified_taylor_branch_passes_and_a_short_one_fails():
    g = (sp.exp(x) - 1) / x
    good = sp.Piecewise((_taylor(g, 18), x < sp.Rational(1, 2)), (expm1(x) / x, True))
    short = sp.Piecewise((_taylor(g, 2), x < sp.Rational(1, 2)), (expm1(x) / x, True))
    ok = check_stable(Formula("em1", (x,), g, "(synthetic)", "", stable=good))
    assert ok.status is Status.PASS and "Taylor polynomial of degree 18" in ok.detail
    bad = check_stable(Formula("em1", (x,), g, "(synthetic)", "", stable=short))
    assert bad.status is Status.FAIL and "exceeds" in bad.detail


def test_stable_wrong_fill_or_wrong_form_fails():
    rho = sp.Symbol("rho", positive=True)
    general = (1 - rho) / (1 - rho ** (K + 1))
    wrong_fill = sp.Piecewise((1 / K, sp.Eq(rho, 1)), (general, True))
    assert check_stable(Formula("p0", (rho, K), general, "(synthetic)", "", stable=wrong_fill)).status is Status.FAIL
    assert check_stable(Formula("em1", (x,), sp.exp(x) - 1, "(synthetic)", "", stable=expm1(x) + x**3)).status is Status.FAIL


def test_series_bound_refuses_a_polynomial_that_is_not_the_taylor_polynomial():
    g = -expm1(-x) / x
    with pytest.raises(DerivationError, match="does not agree"):
        series_bound(2 - x / 2, g, x, sp.Rational(1, 4))  # g = 1 - x/2 + ...: wrong already at order 0
    assert series_bound(1 + x, g, x, sp.Rational(1, 4)).rel > 0.1  # right only at order 0: a weak bound, honestly large
    assert series_bound(_taylor(g, 12), g, x, sp.Rational(1, 4)).rel < 1e-12


def test_prove_identity_does_not_accept_a_false_identity():
    assert prove_identity(sp.exp(x) - 1, expm1(x)) is not None
    assert prove_identity(sp.exp(x), 1 + x + x**2 / 2) is None


def test_every_formula_with_a_printed_or_stable_form_has_its_claim():
    ids = set(REGISTERED)
    for module in codegen.derivation_modules():
        for f in codegen.formulas_of(module):
            for kind, form in (("printed", f.printed), ("stable", f.stable)):
                if form is not None:
                    assert any(i.endswith(f".formula.{f.name}.{kind}") or i.endswith(f".formula.{module}.{f.name}.{kind}")
                               for i in ids), (module, f.name, kind)


def test_claims_register_from_the_manifest_without_deriving():
    """Registering the formula claims reads numeric/generated/manifest.py (kept current by `codegen --check`): no
    derivation runs until a claim is checked, and each row is what the derivation says."""
    from crawlmath.proofs.claims import formulas as F

    rows = {(r["module"], r["name"]): r for r in manifest.FORMULAS}
    for module in codegen.derivation_modules():
        for f in codegen.formulas_of(module):
            r = rows.pop((module, f.name))
            assert (r["printed"], r["stable"], r["series"]) == (f.printed is not None, f.stable is not None,
                                                               codegen.has_series_pieces(f))
            assert (r["paper"], r["source"]) == (f.paper_key, f.source)
    assert not rows
    code = ("import sys\nfrom crawlmath.proofs import registry\nregistry.all_claims()\n"
            "from crawlmath.proofs.claims import formulas as F\nprint(F._derived.cache_info().currsize)")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=300)
    assert out.returncode == 0 and out.stdout.strip() == "0", out.stderr


def test_a_formula_missing_from_its_module_is_a_fail(monkeypatch):
    from crawlmath.proofs.claims import formulas as F

    monkeypatch.setattr(F, "_derived", lambda module: {})
    out = F._check_lazily(F.check_printed, "golden", "golden_R")
    assert out.status.value == "FAIL" and "manifest.py is stale" in out.detail


def test_a_point_difference_skips_identity_routes_only_when_the_piece_really_differs():
    """_differs_at_a_point lets _check_piece go straight to the series bound; it must say True only for a difference
    that is nonzero (30- and 60-digit values agree), and "not shown" for an identity or a non-rational piece."""
    from crawlmath.proofs.claims.formulas import _differs_at_a_point

    general = (sp.exp(x) - 1) / x
    assert _differs_at_a_point(_taylor(general, 6), general)
    assert not _differs_at_a_point((x**2 - 1) / (x - 1), x + 1)
    assert not _differs_at_a_point(sp.exp(x), sp.exp(x))  # not a rational piece: the routes decide
