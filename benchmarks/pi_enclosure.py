"""The two routes for the entries of π in ``crawlmath ctmc --digits D`` (issue 30), timed in the same run.

Route 1 refines a float64 start with exact integer residuals
(:func:`crawlmath.numeric.markov.refined_stationary`); route 2 is the
block elimination by breadth-first levels in ball arithmetic
(:func:`crawlmath.numeric.markov.stationary_enclosure`).  The model is
a K × K tandem queue, not from the four papers: arrivals 9/10, transfer 13/10
while queue 2 has room, service 11/10, (K + 1)² states, levels a + b of up to
K + 1 states.  Printed per K: states, seconds of each route, the ratio
route 2 / route 1, the relative bits of the widest ball, and whether every
refined entry lies within 10^-D of its ball (the check the command makes).

Usage: ``python benchmarks/pi_enclosure.py [--sizes 30,70,100] [--digits 30]``.
"""
from __future__ import annotations

import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from docs_output import run  # noqa: E402 - the sibling helper


def tandem_drn(K: int) -> str:
    """The K x K tandem queue as Storm DRN text, reward "len2" = queue 2's length; state a (K + 1) + b."""
    idx = lambda a, b: a * (K + 1) + b  # noqa: E731
    lines = ["@type: CTMC", "@value_type: rational", "@parameters", "", "@reward_models", "len2 ",
             "@nr_states", str((K + 1) ** 2), "@nr_choices", str((K + 1) ** 2), "@model"]
    for a in range(K + 1):
        for b in range(K + 1):
            moves = ([(idx(a + 1, b), "9/10")] if a < K else []) + \
                    ([(idx(a - 1, b + 1), "13/10")] if a and b < K else []) + ([(idx(a, b - 1), "11/10")] if b else [])
            lines += [f"state {idx(a, b)} [{b}]", "\taction __NOLABEL__ [0]"] + [f"\t\t{j} : {q}" for j, q in moves]
    return "\n".join(lines) + "\n"


def options(parser) -> None:
    parser.add_argument("--sizes", default="30,70,100", help="K values (comma separated)")
    parser.add_argument("--digits", type=int, default=30)


def measure(a, page: None) -> int:
    from crawlmath.numeric.markov import _enclosure as ENC, _sparse_refine as R
    from crawlmath.numeric.markov import parse_drn

    print(f"π of a K x K tandem queue to {a.digits} digits: refined (route 1) vs ball-arithmetic block elimination "
          "(route 2)")
    print(f"{'K':>4} {'states':>7} {'route 1 s':>10} {'route 2 s':>10} {'2 / 1':>6} {'min bits':>9} {'agree':>6}")
    for K in (int(k) for k in a.sizes.split(",")):
        chain = R.integer_chain(*_transitions(parse_drn(tandem_drn(K), f"tandem{K}.drn")))
        t = time.perf_counter()
        mass, _ = R.refined_stationary(chain, a.digits + 2)
        t1 = time.perf_counter()
        balls = ENC.stationary_enclosure(chain, a.digits)
        t2 = time.perf_counter()
        bits = min(ENC._relative_bits(b) for b in balls)
        ok = ENC.agrees_with_enclosure(mass, balls, a.digits)
        print(f"{K:>4} {chain.n:>7} {t1 - t:10.2f} {t2 - t1:10.2f} {(t2 - t1) / (t1 - t):6.1f} {bits:9.0f} "
              f"{str(ok):>6}", flush=True)
    return 0


def _transitions(model):
    return model.n, model.choice_state[model.src], model.dst, model.value, [0] * model.n


if __name__ == "__main__":
    sys.exit(run(__file__, __doc__, measure, options=options))
