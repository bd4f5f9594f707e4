"""The public Python API under hostile arguments (issue 33, build item 6).

Every public function of ``crawlmath`` is called from a valid call with one
argument replaced by a hostile value (wrong type, complex, non-finite,
negative, huge, empty, nested).  Each call must either succeed or raise one of
crawlmath's typed errors (`InvalidInput`, `TooLarge`, `SolverError`): never a
bare TypeError, ValueError, MemoryError, ZeroDivisionError, AttributeError or
OverflowError, and never a hang (an alarm turns one into a failure naming the
call).  Seeded, and bounded in time by the limits block and the alarm.
"""
from __future__ import annotations

import signal

import numpy as np
import pytest

import crawlmath
from crawlmath.numeric.errors import InvalidInput, SolverError, TooLarge
from crawlmath.numeric.validate import limits

TYPED = (InvalidInput, TooLarge, SolverError)
SECONDS_PER_CALL = 20  # an alarm, not a timing assertion: a call that runs this long is a hang

HOSTILE = [None, "abc", "", 1j, float("nan"), float("inf"), -1, 0, True, 10**400, -(10**400), [], [[]], {}, object(),
           1e308, 5e-324, "1/0", [1j, 1], [float("nan")], np.array([[1.0, 2.0]]), 10**15]

Q2 = [[-1, 1], [2, -2]]
P2 = [np.array([[0.9, 0.1], [0.0, 1.0]]), np.array([[1.0, 0.0], [0.8, 0.2]])]
C2 = np.array([[0.0, np.inf], [1.0, 3.0]])


def _example():
    return crawlmath.load_bmap("avrachenkov-example.json")


# (name, positional arguments of a valid call, keyword arguments of it)
CALLS = [
    ("static_optimum", [0.01, 1, 0.5, 10], {}),
    ("static_optimum", [0.01, 1, 0.5, 10], {"digits": 20}),
    ("solve_mdp", [0.1, 1, 1, 5], {"N": 16}),
    ("load_bmap", ["avrachenkov-example.json"], {"K": 5}),
    ("solve_bmap", [None, (3, 1), (2,)], {}),  # the model is filled in by _args
    ("optimal_frequencies", [[0.5, 1, 2], "det:1", None], {}),
    ("mean_field_colours", [100, 100], {}),
    ("average_cost_mdp", [P2, C2], {"digits": None}),
    ("ctmc_stationary", [Q2], {"digits": None}),
]


def _cases():
    for name, args, kwargs in CALLS:
        for i in range(len(args)):
            for k, value in enumerate(HOSTILE):
                yield pytest.param(name, args, kwargs, ("arg", i), value, id=f"{name}-arg{i}-{k}")
        for key in kwargs:
            for k, value in enumerate(HOSTILE):
                yield pytest.param(name, args, kwargs, ("kw", key), value, id=f"{name}-{key}-{k}")


def _args(name, args):
    args = list(args)
    if name == "solve_bmap" and args[0] is None:
        args[0] = _example()
    return args


def _alarm(signum, frame):
    raise TimeoutError(f"the call ran {SECONDS_PER_CALL} s")


@pytest.mark.parametrize("name, args, kwargs, where, value", list(_cases()))
def test_public_function_raises_only_typed_errors(name, args, kwargs, where, value):
    args, kwargs = _args(name, args), dict(kwargs)
    if where[0] == "arg":
        args[where[1]] = value
    else:
        kwargs[where[1]] = value
    old = signal.signal(signal.SIGALRM, _alarm)
    signal.alarm(SECONDS_PER_CALL)
    try:
        with limits(memory=2**31, seconds=10):
            getattr(crawlmath, name)(*args, **kwargs)
    except TYPED:
        pass
    except BaseException as exc:  # noqa: BLE001 - the point of the test: name what escaped
        pytest.fail(f"{name} with {where} = {value!r:.60}: {type(exc).__name__}: {exc!s:.200}")
    finally:
        signal.alarm(0)
        signal.signal(signal.SIGALRM, old)
