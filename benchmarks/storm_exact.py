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
``--digits 30`` on the exported DRN (read + solve, timed in the same process,
alternating).  Printed: both values, the digits agreed, seconds and the ratio
Storm / ours.  stormpy is not a dependency (``pip install stormpy``): the
benchmark says so and stops when it is missing.

Usage: ``python benchmarks/storm_exact.py [--sizes 10,100] [--digits 30] [--models retrial,tandem KxK]``.
"""
from __future__ import annotations

import argparse
import sys
import tempfile
import time
from fractions import Fraction
from pathlib import Path

import mpmath

from crawlmath.numeric.explicit_io import read_model
from crawlmath.numeric.sparse_refine import chain_average, optimal_average
from crawlmath.numeric.tolerance import digits_agreed


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


def storm_exact(program_text: str, prop: str, drn: Path) -> tuple[Fraction, int, float]:
    """(Storm's exact value, states, seconds to build and check); the model is also exported to ``drn``."""
    import stormpy
    import stormpy.developer as dev

    with tempfile.NamedTemporaryFile("w", suffix=".prism", delete=False) as f:
        f.write(program_text)
    t = time.perf_counter()
    program = stormpy.parse_prism_program(f.name, prism_compatibility=True)
    props = stormpy.parse_properties(prop, program)
    model = stormpy.build_model[stormpy.Rational](program, props)
    result = stormpy.model_checking(model, props[0], environment=stormpy.environments.exact())
    value = Fraction(str(result.get_value(model.initial_states[0])))
    seconds = time.perf_counter() - t
    dev.export_sparse_model_as_drn(model, str(drn), dev.DirectEncodingExporterOptions())
    return value, model.nr_states, seconds


def ours(drn: Path, reward: str, digits: int) -> tuple[Fraction, str, float]:
    t = time.perf_counter()
    m = read_model(drn)
    r = optimal_average(m, reward, digits).average if m.kind == "mdp" else chain_average(m, reward, digits)
    return r.value, r.text, time.perf_counter() - t


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--sizes", default="10,100", help="approximate state counts (comma separated)")
    ap.add_argument("--digits", type=int, default=30)
    ap.add_argument("--repeat", type=int, default=1, help="runs of each side (medians)")
    ap.add_argument("--models", default=",".join(MODELS), help=f"comma separated, from {', '.join(MODELS)}")
    a = ap.parse_args(argv)
    sys.set_int_max_str_digits(0)  # Storm's exact value of a 10^4-state chain has ~10^4 digits
    try:
        import stormpy  # noqa: F401
    except ImportError:
        print("stormpy not installed (pip install stormpy): the Storm exact anchor is skipped")
        return 0
    print(f"crawlmath --digits {a.digits} vs Storm exact mode (LRA); seconds are medians of {a.repeat}")
    print(f"{'model':>14} {'states':>7} {'ours (' + str(a.digits) + ' digits)':>36} {'agreed':>6} {'=':>2} "
          f"{'ours s':>8} {'Storm s':>8} {'Storm/ours':>10}")
    tmp = Path(tempfile.mkdtemp(prefix="crawlmath-storm-"))
    for size in (int(s) for s in a.sizes.split(",")):
        for name in a.models.split(","):
            build, param = MODELS[name]
            text, prop, reward = build(param(size))
            drn = tmp / f"{name.split()[0].replace('/', '')}-{size}.drn"
            st, us = [], []
            for _ in range(a.repeat):
                storm, states, s_sec = storm_exact(text, prop, drn)
                value, shown, o_sec = ours(drn, reward, a.digits)
                st.append(s_sec)
                us.append(o_sec)
            s_sec, o_sec = sorted(st)[len(st) // 2], sorted(us)[len(us) // 2]
            with mpmath.workdps(a.digits + 20):
                agreed = digits_agreed(mpmath.mpf(value.numerator) / value.denominator,
                                       mpmath.mpf(storm.numerator) / storm.denominator)
            same = "==" if value == storm else ""
            print(f"{name:>14} {states:>7} {shown:>36} {min(agreed, a.digits):6.0f} {same:>2} {o_sec:8.3f} "
                  f"{s_sec:8.3f} {s_sec / o_sec:10.2f}", flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
