"""Avrachenkov et al. §2-§3: the exact reduction of the chain (issue 10).  The chain is built on lumped PH
representations (partition refinement); every measure equals the full chain's.  Counting the buffered pages per
phase instead of ordering them is not an exact reduction.
"""
from __future__ import annotations

import numpy as np
import scipy.sparse as sps

from ....numeric import bmap as bm
from ....numeric.bmap import hyperexponential
from ....numeric.bmap import Lumping, PhaseType, random_lumpable_phase_type, random_phase_type
from ....numeric.tolerance import CLEARLY_NONZERO_ABS, LUMPED_REL, close
from ...registry import Method, Outcome, claim
from ._common import P, full, measure_vector, src


def _measure_dev(a: bm.Measures, b: bm.Measures) -> float:
    x, y = measure_vector(a), measure_vector(b)
    return float(np.max(np.abs(x - y) / np.maximum(np.abs(x), 1e-300)))


def _agreement(models_policies) -> tuple[float, list[str]]:
    """Largest relative deviation over 9 measures between the lumped and the full chain, with one line per case."""
    worst, rows = 0.0, []
    for m, pol in models_policies:
        lv = m.check_policy(pol)
        red, ful = m.with_(reduce=True), m.with_(reduce=False)
        dev = _measure_dev(bm.evaluate_levels(red, lv, "sparse"), bm.evaluate_levels(ful, lv, "sparse"))
        worst = max(worst, dev)
        rows.append(f"K={m.K} {pol.modes}/{pol.thresholds}: states {ful.states} -> {red.states}, {dev:.1e}")
    return worst, rows


@claim(f"{P}.reduction.example", source=src("§7", "example: (gamma, Gamma), (beta, S); §3 chain"), method=Method.FLOAT,
       statement="The example's obsolescence (gamma, Gamma) has equal exit rates 0.2 and lumps exactly to Exp(0.2) (R = 2 -> 1); "
                 "(beta, S) does not lump; the lumped chain gives every measure and J of the full chain to 1e-12.")
def _reduction_example():
    m = full(5)
    ls, lo = m.with_(reduce=True).lumpings
    cases = [(full(K), pol) for K, pol in [(3, bm.Policy((3, 1), (1,))), (5, bm.Policy((4, 3, 2, 1), (0, 2, 2))), (7, bm.Policy((3, 1), (3,)))]]
    worst, rows = _agreement(cases)
    ok = (ls.order_after, lo.order_after) == (2, 1) and worst <= LUMPED_REL
    return Outcome.judge(ok, f"service blocks {ls.blocks}, obsolescence blocks {lo.blocks} (exit rates {m.given_obsolescence.exit.tolist()}, "
                             f"lumped Gamma = {lo.reduced.S.round(12).tolist()}); max relative deviation over 9 measures: {worst:.1e} "
                             f"({'; '.join(rows)})")


@claim(f"{P}.reduction.random", source=src("§2-§3", "PH representations, chain"), method=Method.FLOAT,
       statement="Partition refinement finds the planted lumping of random PH representations (order 4 -> 2 and 6 -> 3) and "
                 "none in random ones; the lumped chain agrees with the full one to 1e-12 on every measure (several K).")
def _reduction_random():
    rng = np.random.default_rng(2026)
    base_s, base_o = random_phase_type(rng, 2), random_phase_type(rng, 3)
    serv, obs = random_lumpable_phase_type(rng, base_s, 2), random_lumpable_phase_type(rng, base_o, 2)
    m0 = bm.random_model(5, W=2, M=2, R=2, K=3)
    planted = m0.with_(service=serv, obsolescence=PhaseType(obs.beta_exact, obs.S_exact, names=("gamma", "Gamma")), reduce=False)
    cases = [(planted.with_K(K), pol) for K, pol in [(2, bm.Policy((2, 1), (0,))), (3, bm.Policy((2, 1), (1,)))]]
    cases += [(m0.with_(reduce=False, K=K), bm.Policy((2, 1), (1,))) for K in (3, 4)]
    worst, rows = _agreement(cases)
    lp = planted.with_(reduce=True).lumpings
    lr = m0.with_(reduce=True).lumpings
    ok = ([x.order_after for x in lp] == [2, 3] and all(x.trivial for x in lr) and worst <= LUMPED_REL
          and all(close(x.reduced.mean, x.original.mean, LUMPED_REL) for x in lp))
    return Outcome.judge(ok, f"planted: service 4 -> {lp[0].order_after}, obsolescence 6 -> {lp[1].order_after}; random model: "
                             f"{[x.order_after for x in lr]} (no reduction); max relative deviation {worst:.1e} ({'; '.join(rows)})")


@claim(f"{P}.reduction.symmetry", source=src("§3", "xi_t orders the buffered pages"), method=Method.FLOAT,
       statement="The chain orders the waiting pages (FIFO: service takes r_1); replacing the ordered phases by per-phase counts "
                 "is not an exact reduction (the lumpability condition fails), so crawlmath does not use it.")
def _symmetry():
    m = full(4).with_(obsolescence=hyperexponential(3.0, 5.0), reduce=False)  # Figure 4's R = 2 obsolescence, not lumpable
    lv = m.check_policy(bm.Policy((3, 1), (2,)))
    Q = bm.generator_enumerated(m, lv).tocsr()
    states = bm.state_list(m)
    key = [s[:3] + tuple(sorted(s[3:])) if s[0] >= 2 else s for s in states]
    classes = {k: n for n, k in enumerate(dict.fromkeys(key))}
    lab = np.array([classes[k] for k in key])
    agg = (Q @ sps_indicator(lab, len(classes))).toarray()  # rate of each state into each count class
    spread = 0.0
    for c in range(len(classes)):
        rows = agg[lab == c]
        spread = max(spread, float((rows.max(axis=0) - rows.min(axis=0)).max()))
    lumpable = Lumping(m.obsolescence).trivial
    ok = spread > CLEARLY_NONZERO_ABS and lumpable
    return Outcome.judge(ok, f"{len(states)} ordered states, {len(classes)} count classes; largest spread of the "
                             f"rate into one class among states of a class: {spread:.4g} (0 if lumpable); "
                             f"the obsolescence itself does not lump")


def sps_indicator(labels: np.ndarray, n: int):
    """The sparse n-column 0/1 matrix with a single 1 in column labels[k] of row k (maps states to their labels)."""
    return sps.csr_matrix((np.ones(len(labels)), (np.arange(len(labels)), labels)), shape=(len(labels), n))
