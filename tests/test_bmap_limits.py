"""Limits of the BMAP model before any work (issue 33 items 2-3): arrivals.robots and the 'independent' products,
large lumped solves, the same limits for the Python API, and solve_bmap given a path."""
import json

import pytest

import crawlmath
from crawlmath.numeric.bmap import _io as bmap_io  # monkeypatched: the module that reads the file
from crawlmath.numeric import bmap as bm
from crawlmath.numeric.bmap import _phase_type as phase_type
from crawlmath.numeric.errors import InvalidInput, TooLarge


def _no_work(*args, **kwargs):
    raise AssertionError("work started before the estimate refused it")


@pytest.fixture
def spec():
    return bmap_io.read_spec("avrachenkov-real.json")


@pytest.mark.parametrize("robots", [10**6, 10**7])
def test_robots_are_a_size_parameter(spec, robots, monkeypatch):
    spec["arrivals"]["robots"] = robots
    monkeypatch.setattr(bmap_io, "BMAP", _no_work)
    with pytest.raises(TooLarge, match=r"MODEL: arrivals: the matrices of .* robot count"):
        crawlmath.load_bmap(spec)


def test_robots_count_against_the_time_limit_too(spec, monkeypatch):
    spec["arrivals"]["robots"] = 10**5  # ~0.4 GiB of exact entries: under the memory limit, ~7 min of work
    monkeypatch.setenv("CRAWLMATH_MAX_SECONDS", "60")
    monkeypatch.setattr(bmap_io, "BMAP", _no_work)
    with pytest.raises(TooLarge, match="over the limit 60 s"):
        crawlmath.load_bmap(spec)


def test_independent_robots_grow_as_a_product(monkeypatch):
    example = bmap_io.read_spec("avrachenkov-example.json")
    example["arrivals"] = {"interpretation": "independent", "robots": [example["arrivals"]["D"][0]] * 3000}
    monkeypatch.setattr(phase_type, "kron_sum", _no_work)
    with pytest.raises(TooLarge, match="MODEL"):
        crawlmath.load_bmap(example)


@pytest.mark.parametrize("K", [2000, 100000])
def test_large_lumped_solves_are_refused_before_work(K, monkeypatch):
    m = crawlmath.load_bmap("avrachenkov-example.json", K=K)
    seconds, _ = bm.estimate_cost(m)
    assert seconds > 600  # K^2 cost of the level operators: K = 2000 was estimated at 1.2 s and ran 209 s
    monkeypatch.setattr(bm, "evaluate", _no_work)
    with pytest.raises(TooLarge, match=f"K = {K}"):
        crawlmath.solve_bmap(m, (3, 1), (3,))


def test_the_api_follows_crawlmath_max_seconds(monkeypatch):
    m = crawlmath.load_bmap("avrachenkov-example.json", K=300)
    monkeypatch.setenv("CRAWLMATH_MAX_SECONDS", "1")
    monkeypatch.setattr(bm, "evaluate", _no_work)
    with pytest.raises(TooLarge, match="over the limit 1 s"):
        crawlmath.solve_bmap(m, (3, 1), (3,))


def test_estimates_grow_with_every_size_parameter():
    small = crawlmath.load_bmap("avrachenkov-example.json", K=20)
    assert bm.estimate_cost(small)[0] < bm.estimate_cost(small.with_K(40))[0] < bm.estimate_cost(small.with_K(4000))[0]
    unlumped = crawlmath.load_bmap("avrachenkov-example.json", K=20, reduce=False)  # 2^21 states
    assert bm.estimate_cost(unlumped)[1] > 1e9  # bytes: refused by the memory limit
    assert bm.estimate_cost(small, 100)[0] > bm.estimate_cost(small, 1)[0]  # --optimize: evaluations count


def test_solve_bmap_accepts_a_path_or_a_name(tmp_path):
    by_name = crawlmath.solve_bmap("avrachenkov-example.json", (3, 1), (2,))
    path = tmp_path / "m.json"
    path.write_text(json.dumps(bmap_io.read_spec("avrachenkov-example.json")))
    assert crawlmath.solve_bmap(path, (3, 1), (2,)).cost == by_name.cost
    assert round(by_name.cost, 2) == 63.54  # Table 1's highlighted row (K = 5 in the file)
    with pytest.raises(InvalidInput, match="^model: "):
        crawlmath.solve_bmap({"K": 3}, (1,))
    with pytest.raises(InvalidInput, match="^MODEL: file not found"):
        crawlmath.solve_bmap("no-such-model.json", (1,))


def test_cli_refuses_large_solves_and_reports_progress_while_solving(capsys):
    from crawlmath.cli import EXIT_TOO_LARGE, main

    assert main(["bmap", "avrachenkov-example.json", "--K", "2000", "--modes", "3,1", "--thresholds", "3"]) == EXIT_TOO_LARGE
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "--K" in err and "min" in err  # one line: the estimate and the limit
    assert main(["bmap", "avrachenkov-example.json", "--modes", "3,1", "--thresholds", "2", "--progress"]) == 0
    out, err = capsys.readouterr()
    assert "bmap: solving" in err and "63.54" in out
