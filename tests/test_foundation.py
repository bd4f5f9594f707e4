"""The registry, the CLI contract, codegen freshness, and the numeric/SymPy boundary."""
import json
import subprocess
import sys

import pytest

from crawlmath.cli import main
from crawlmath.numeric.errors import InvalidInput
from crawlmath.numeric import validate as v
from crawlmath.proofs import registry as R


def test_numeric_imports_without_sympy():
    code = ("import sys; sys.modules['sympy'] = None\n"
            "import pkgutil, importlib, crawlmath.numeric as n, crawlmath.numeric.generated as g\n"
            "for pkg in (n, g):\n"
            "    for m in pkgutil.iter_modules(pkg.__path__):\n"
            "        importlib.import_module(pkg.__name__ + '.' + m.name)\n")
    subprocess.run([sys.executable, "-c", code], check=True)


def test_generated_code_is_fresh():
    assert main(["codegen", "--check"]) == 0


def test_claim_ids_are_unique_and_cite_their_paper():
    claims = R.all_claims()
    assert len({c.id for c in claims}) == len(claims)
    for c in claims:
        assert c.id.startswith(c.source.paper + ".") and c.statement and str(c.source)


def test_a_raising_check_is_a_fail_not_a_crash():
    c = R.Claim("liu-nain.test.raises", R.Source("liu-nain", "§0", "none"), "raises", R.Method.FLOAT, lambda: 1 / 0)
    r = R.run_claim(c)
    assert r.outcome.status is R.Status.FAIL and "ZeroDivisionError" in r.outcome.detail


def test_verify_json_contract(capsys):
    assert main(["verify", "--only", "liu-nain.static.eq-1.4", "--json"]) == 0
    rows = json.loads(capsys.readouterr().out)
    assert rows and set(rows[0]) >= {"id", "source", "statement", "method", "status", "detail"}


def test_verify_exits_1_on_fail(monkeypatch, capsys):
    fake = R.Claim("liu-nain.test.fails", R.Source("liu-nain", "§0", "none"), "fails", R.Method.FLOAT,
                   lambda: R.Outcome.failed("1 != 2"))
    monkeypatch.setattr(R, "select", lambda prefixes, quick=False: [fake])
    assert main(["verify", "--only", "liu-nain.test", "--ignore-record"]) == 1
    assert "FAIL" in capsys.readouterr().out
    # not in the verdict record: a new verdict is a change, exit 5
    assert main(["verify", "--only", "liu-nain.test"]) == 5
    assert "liu-nain.test.fails: (not recorded) -> FAIL" in capsys.readouterr().err


@pytest.mark.parametrize("argv", [
    ["static", "--lam", "0.01", "--mu", "1", "--gamma", "-1", "--K", "10"],
    ["static", "--lam", "abc", "--mu", "1", "--gamma", "1", "--K", "10"],
    ["static", "--lam", "0.01", "--mu", "1", "--gamma", "1", "--K", "1"],
    ["static", "--lam", "0.01", "--mu", "1", "--gamma", "1", "--K", "two"],
    ["verify", "--only", "no-such-prefix"],
    ["no-such-command"],
])
def test_bad_input_exits_2_with_one_line(argv, capsys):
    assert main(argv) == 2
    err = capsys.readouterr().err.strip()
    assert len(err.splitlines()) == 1 and err.startswith("crawlmath: error:")


def test_every_subcommand_help_has_an_example(capsys):
    from crawlmath.cli import _command_modules

    for mod in _command_modules():
        assert main([mod.NAME, "--help"]) == 0  # --help is an answer, not an exception
        out = capsys.readouterr().out
        assert "example:" in out and f"crawlmath {mod.NAME}" in out and "--json" in out


def test_static_json_keys(capsys):
    assert main(["static", "--lam", "0.01", "--mu", "1", "--gamma", "0.5", "--K", "10", "--json"]) == 0
    out = json.loads(capsys.readouterr().out)
    assert set(out) >= {"rho_opt", "N_opt", "cost_opt", "N_approx", "gamma_K"} and out["N_opt"] == 89


def test_validators_name_the_entry():
    with pytest.raises(InvalidInput, match=r"D0\[0, 1\]: off-diagonal"):
        v.require_generator([[-1, -0.5], [1, -1]], "D0")
    with pytest.raises(InvalidInput, match=r"D\[1\]: row 1 must sum to 0"):
        v.require_generator([[-1, 1], [1, -2]], "D")
    with pytest.raises(InvalidInput, match=r"beta: entries must sum to 1"):
        v.require_probability_vector([0.5, 0.4], "beta")
    with pytest.raises(InvalidInput, match=r"S: must be transient"):
        v.require_subgenerator([[-1, 1], [1, -1]], "S")
