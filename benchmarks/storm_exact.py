"""``crawlmath ctmc/avg-cost --digits 30`` against Storm's exact mode (issue 30, item 7).

Models not from the four papers, written here as PRISM programs and built by
Storm in exact (rational) arithmetic, then exported as DRN:

- M/M/1/K (λ = 0.7, μ = 1): a birth-death CTMC of K + 1 states, reward "busy";
- a tandem queue (λ = 0.9, μ₁ = 1.3, μ₂ = 1.1, capacities K × K): (K+1)² states, reward "len2";
- a retrial queue (λ = 0.6, θ = 0.35, μ = 1, orbit ≤ K): 2(K+1) states, reward "orbit";
- admission control (a DTMC-step MDP: arrivals 0.4, service 0.5, admit or reject at
  cost 3, holding cost n/4, buffer K): K + 1 states, 2 actions.

For each: Storm's ``LRA=? [...]`` / ``R{"cost"}min=? [ LRA ]`` in exact mode
(the model built from the program, timed with the check) and crawlmath's
``--digits 30`` on the exported DRN (read + solve), each side in a forked child
process stopped after ``--timeout`` seconds (progress on stderr), alternating.
Printed: our value, the digits agreed with Storm's exact rational ("==" when
equal as rationals), seconds and the ratio ours / Storm ('>' for a side stopped
at the timeout).  stormpy is not a dependency (``pip install stormpy``): the
benchmark says so and stops when it is missing.

Usage: ``python benchmarks/storm_exact.py [--sizes 1000,10000] [--digits 30] [--models retrial,tandem KxK]
[--timeout 600] [--storm-timeout 300] [--docs docs/performance]`` (the default sizes take about 15 minutes:
Storm's exact mode needs minutes at 10^4 states).
"""
from __future__ import annotations

import math
import sys
import tempfile
import time
from fractions import Fraction
from pathlib import Path

import mpmath

from crawlmath.numeric.errors import SolverError, TooLarge
from crawlmath.numeric.markov import read_model
from crawlmath.numeric.markov import chain_average, optimal_average
from crawlmath.numeric.tolerance import digits_agreed

sys.path.insert(0, str(Path(__file__).resolve().parent))
from docs_output import Page, run  # noqa: E402 - the sibling helper


def mm1k(K: int) -> tuple[str, str, str]:
    return (f"""ctmc
module q
 n : [0..{K}] init 0;
 [] n<{K} -> 0.7 : (n'=n+1);
 [] n>0 -> 1 : (n'=n-1);
endmodule
rewards "busy"
 n>0 : 1;
endrewards
""", 'R{"busy"}=? [ LRA ]', "busy")


def tandem(K: int) -> tuple[str, str, str]:
    return (f"""ctmc
module t
 a : [0..{K}] init 0;
 b : [0..{K}] init 0;
 [] a<{K} -> 0.9 : (a'=a+1);
 [] a>0 & b<{K} -> 1.3 : (a'=a-1) & (b'=b+1);
 [] b>0 -> 1.1 : (b'=b-1);
endmodule
rewards "len2"
 true : b;
endrewards
""", 'R{"len2"}=? [ LRA ]', "len2")


def retrial(K: int) -> tuple[str, str, str]:
    return (f"""ctmc
module r
 o : [0..{K}] init 0;
 s : [0..1] init 0;
 [] s=0 -> 0.6 : (s'=1);
 [] s=0 & o>0 -> 0.35*o : (s'=1) & (o'=o-1);
 [] s=1 & o<{K} -> 0.6 : (o'=o+1);
 [] s=1 -> 1 : (s'=0);
endmodule
rewards "orbit"
 true : o;
endrewards
""", 'R{"orbit"}=? [ LRA ]', "orbit")


def admission(K: int) -> tuple[str, str, str]:
    return (f"""mdp
module a
 n : [0..{K}] init 0;
 [admit] n<{K} -> 0.4 : (n'=n+1) + 0.5 : (n'=max(n-1,0)) + 0.1 : (n'=n);
 [reject] true -> 0.4 : (n'=n) + 0.5 : (n'=max(n-1,0)) + 0.1 : (n'=n);
endmodule
rewards "cost"
 [reject] true : 3;
 true : n/4;
endrewards
""", 'R{"cost"}min=? [ LRA ]', "cost")


MODELS = {"M/M/1/K": (mm1k, lambda s: s - 1), "tandem KxK": (tandem, lambda s: max(1, round(s ** 0.5) - 1)),
          "retrial": (retrial, lambda s: s // 2 - 1), "admission MDP": (admission, lambda s: s - 1)}


def storm_build(program_text: str, prop: str, drn: Path | None):
    """(model, properties, states, seconds to parse and build the exact model); exported to ``drn``
    when given (not timed)."""
    import stormpy
    import stormpy.developer as dev

    with tempfile.NamedTemporaryFile("w", suffix=".prism", delete=False) as f:
        f.write(program_text)
    t = time.perf_counter()
    program = stormpy.parse_prism_program(f.name, prism_compatibility=True)
    props = stormpy.parse_properties(prop, program)
    model = stormpy.build_model[stormpy.Rational](program, props)
    seconds = time.perf_counter() - t
    if drn is not None:
        dev.export_sparse_model_as_drn(model, str(drn), dev.DirectEncodingExporterOptions())
    return model, props, model.nr_states, seconds


def storm_exact(program_text: str, prop: str) -> tuple[Fraction, float]:
    """(Storm's exact value, seconds to build and check)."""
    import stormpy

    model, props, _, build = storm_build(program_text, prop, None)
    t = time.perf_counter()
    result = stormpy.model_checking(model, props[0], environment=stormpy.environments.exact())
    value = Fraction(str(result.get_value(model.initial_states[0])))
    return value, build + time.perf_counter() - t


def ours(drn: Path, reward: str, digits: int) -> tuple[Fraction, str, float]:
    t = time.perf_counter()
    m = read_model(drn)
    r = optimal_average(m, reward, digits).average if m.kind == "mdp" else chain_average(m, reward, digits)
    return r.value, r.text, time.perf_counter() - t


def timed_child(fn, args, timeout: float, what: str):
    """``fn(*args)`` in a forked child process (Storm's C++ cannot be interrupted in-process), its
    result, or None when it did not finish within ``timeout`` seconds (the child is then ended).
    Progress goes to stderr."""
    import multiprocessing as mp

    ctx = mp.get_context("fork")
    recv, send = ctx.Pipe(duplex=False)
    child = ctx.Process(target=_run_child, args=(send, fn, args), daemon=True)
    t = time.perf_counter()
    print(f"  {what} ...", file=sys.stderr, flush=True)
    child.start()
    send.close()
    out = recv.recv() if recv.poll(timeout) else None
    child.join(1)
    if child.is_alive():
        child.terminate()
        child.join()
    print(f"  {what}: {'done' if out is not None else 'stopped'} after {time.perf_counter() - t:.1f} s",
          file=sys.stderr, flush=True)
    if isinstance(out, BaseException):
        raise out
    return out


def _run_child(send, fn, args) -> None:
    sys.set_int_max_str_digits(0)
    try:
        out = fn(*args)
    except BaseException as exc:  # noqa: BLE001 - handed to the parent, which re-raises it
        out = exc
    send.send(out[2:] if fn is storm_build else out)  # a built model does not pickle: (states, seconds)


PAGE = dict(
    name="storm_exact", title="ctmc / avg-cost --digits 30 against Storm's exact mode, models from outside the papers",
    what="Storm builds each PRISM program in exact (rational) arithmetic and checks its long-run average; crawlmath "
         "reads the DRN Storm exported and solves it with `--digits 30` (read + solve timed). Each side runs in its "
         "own forked process, alternated, wall seconds (medians of `--repeat`); > marks a side stopped at its "
         "timeout. Digits agreed are counted against Storm's exact rational (== when equal as rationals). "
         "Ratio = crawlmath / Storm.",
    columns=["model", "states", "crawlmath (30 digits)", "digits agreed", "==", "crawlmath (s)", "Storm (s)", "ratio"],
    x_label="states", y_label="wall seconds")


def options(parser) -> None:
    parser.add_argument("--sizes", default="1000,10000", help="approximate state counts (comma separated)")
    parser.add_argument("--digits", type=int, default=30)
    parser.add_argument("--repeat", type=int, default=1, help="runs of each side (medians)")
    parser.add_argument("--models", default=",".join(MODELS), help=f"comma separated, from {', '.join(MODELS)}")
    parser.add_argument("--timeout", type=float, default=600, help="seconds allowed to each side of each run")
    parser.add_argument("--storm-timeout", type=float, help="seconds allowed to Storm's check (default --timeout)")


def measure(a, page: Page) -> int:
    a.storm_timeout = a.timeout if a.storm_timeout is None else a.storm_timeout
    sys.set_int_max_str_digits(0)  # Storm's exact value of a 10^4-state chain has ~10^4 digits
    try:
        import stormpy  # noqa: F401
    except ImportError:
        print("stormpy not installed (pip install stormpy): the Storm exact anchor is skipped")
        page.note = "stormpy is not installed (`pip install stormpy`): Storm was not run and nothing was measured."
        return 0
    print(f"crawlmath --digits {a.digits} vs Storm exact mode (LRA); seconds are medians of {a.repeat}; "
          f"'>' = stopped at the timeout ({a.timeout:g} s ours, {a.storm_timeout:g} s Storm)")
    print(f"{'model':>14} {'states':>7} {'ours (' + str(a.digits) + ' digits)':>36} {'agreed':>6} {'=':>2} "
          f"{'ours s':>8} {'Storm s':>8} {'ours/Storm':>10}")
    tmp = Path(tempfile.mkdtemp(prefix="crawlmath-storm-"))
    for size in (int(s) for s in a.sizes.split(",")):
        for name in a.models.split(","):
            _compare(name, size, a, tmp, page)
    for s in page.series:
        s.points.sort()
    return 0


def _compare(name: str, size: int, a, tmp: Path, page: Page) -> None:
    build, param = MODELS[name]
    text, prop, reward = build(param(size))
    drn = tmp / f"{name.split()[0].replace('/', '')}-{size}.drn"
    built = timed_child(storm_build, (text, prop, drn), a.timeout, f"{name} {size}: Storm builds and exports")
    if built is None:
        print(f"{name:>14} {'~' + str(size):>7}  Storm did not build the model in {a.timeout:g} s", flush=True)
        page.rows.append([name, f"~{size}", f"Storm did not build the model in {a.timeout:g} s", "-", "", "-", "-", "-"])
        return
    states = built[0]
    st, us, storm, mine, refused = [], [], None, None, "-"
    for _ in range(a.repeat):
        storm = timed_child(storm_exact, (text, prop), a.storm_timeout, f"{name} {states}: Storm exact LRA")
        try:
            mine = timed_child(ours, (drn, reward, a.digits), a.timeout, f"{name} {states}: crawlmath --digits")
        except (SolverError, TooLarge) as exc:  # a refusal is a result of the comparison, printed in the row
            mine, refused = None, f"refused ({type(exc).__name__})"
            print(f"  {name} {states}: crawlmath refused: {exc}", file=sys.stderr, flush=True)
        st.append(storm[1] if storm else math.inf)
        us.append(mine[2] if mine else math.nan if refused != "-" else math.inf)
    s_sec, o_sec = sorted(st)[len(st) // 2], sorted(us)[len(us) // 2]
    shown, agreed, same = (mine[1] if mine else refused), "-", ""
    if storm and mine:
        value = mine[0]
        with mpmath.workdps(a.digits + 20):
            agreed = f"{min(digits_agreed(mpmath.mpf(value.numerator) / value.denominator, mpmath.mpf(storm[0].numerator) / storm[0].denominator), a.digits):.0f}"
        same = "==" if value == storm[0] else ""
    ratio = f"{o_sec / s_sec:10.3g}" if math.isfinite(s_sec) and math.isfinite(o_sec) else f"{'-':>10}"
    print(f"{name:>14} {states:>7} {shown:>36} {agreed:>6} {same:>2} {_sec(o_sec, a.timeout):>8} "
          f"{_sec(s_sec, a.storm_timeout):>8} {ratio}", flush=True)
    page.rows.append([name, str(states), shown, agreed, same, _sec(o_sec, a.timeout), _sec(s_sec, a.storm_timeout),
                      ratio.strip()])
    if math.isfinite(o_sec):
        page.curve(f"crawlmath, {name}").points.append((states, o_sec))
    if math.isfinite(s_sec):
        page.curve(f"Storm, {name}", line=False).points.append((states, s_sec))


def _sec(x: float, timeout: float) -> str:
    return f"{x:.3f}" if math.isfinite(x) else "-" if math.isnan(x) else f">{timeout:g}"


if __name__ == "__main__":
    sys.exit(run(__file__, __doc__, measure, PAGE, options))
