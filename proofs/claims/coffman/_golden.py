"""Helpers shared by the golden-ratio claims of Coffman–Liu–Weber (1997) §5 and Liu–Nain (2005) §1.3.4: the
policy's cost on an instance, the adversarial page counts N and the readings of Theorem 5.1 / Corollary 5.1 tried
before calling (18)/(19) false."""
from __future__ import annotations

import functools

import numpy as np
import sympy as sp

from ....derive import golden as d
from ....numeric import scheduling as s
from ....numeric.scheduling import Deterministic
from ....numeric.generated import golden as gen
from ...registry import Source


P = "coffman.sched"
PHI = s.PHI
PHI_S = d.PHI  # exact (1 + sqrt5)/2


def src(ref: str, section: str = "§5") -> Source:
    """A :class:`Source` in Coffman–Liu–Weber 1997 (reference, section; §5 by default)."""
    return Source("coffman", section, ref)


def identically_zero(expr) -> bool:
    """expr == 0 identically.  cancel first: its rational normal form (exponentials and sqrt5 as indeterminates)
    is 0 only for an identity, and it settles every expression of the golden-ratio modules in a fraction of simplify's time;
    simplify remains the fallback, so this decides at least what simplify alone did."""
    return sp.cancel(expr) == 0 or sp.simplify(expr) == 0


def golden_ratio_instance(mu, X, k: int) -> tuple[float, float, float]:
    """(exact C(gamma(k, N)), C*, (18) RHS) for rates mu (c_i = mu_i)."""
    p = s.make_problem(mu, X)
    lb = s.optimal_frequencies(p)
    sched = s.golden_schedule(lb.frequencies, k)
    return s.cyclic_cost(sched.sequence, p).cost, lb.lower_bound, float(gen.golden_bound(1.0, p.mu, p.nu))


def adversarial_N(j: int) -> int:
    """N equal pages with 1/N at s = phi^2/2 in its bracket: N ~ 2 phi^(j-2)."""
    return round(2 * PHI ** (j - 2))


@functools.cache
def hypotheses_tried() -> str:
    """Readings of Theorem 5.1 / Corollary 5.1 tried before calling (18)/(19) false,
    each with its numbers (shared by the Coffman and Liu–Nain rows)."""
    N, qv = adversarial_N(11), 0.01
    p1 = s.make_problem(np.full(N, qv / N), Deterministic(1.0))
    lb = s.optimal_frequencies(p1)
    by_k = [s.cyclic_cost(s.golden_schedule(lb.frequencies, k).sequence, p1).cost / lb.lower_bound for k in (20, 23, 26)]
    limit = s.golden_limit_cost(p1) / lb.lower_bound
    p2 = s.make_problem(np.full(N, qv / (2 * N)), Deterministic(2.0))  # E[X] = 2, same q = mu E[X]
    lb2 = s.optimal_frequencies(p2)
    r2 = s.cyclic_cost(s.golden_schedule(lb2.frequencies, 26).sequence, p2).cost / lb2.lower_bound
    s_N = PHI ** s.golden_bracket(1 / N) / N  # bracket position s of x = 1/N = s phi^-J
    return (f"Readings tried (N = {N} equal pages, q = {qv}): (a) finite k vs the limit k -> oo: exact ratio at k = 20, 23, 26 = "
            + ", ".join(f"{r:.6f}" for r in by_k) + f", limit formula {limit:.6f} (no finite-k effect); "
            f"(b) nu vs E[X]: X = 2 (E[X] = 2, mu_i = q/(N E[X])) gives {r2:.6f} (the ratio depends on q = mu E[X] only); "
            f"(c) which N: the subsequence N = round(2 phi^(j-2)) puts x = 1/N at s = {s_N:.4f} ~ phi^2/2 of its bracket, so limsup_N >= G(q, s) "
            f"= {float(gen.golden_profile(qv, s_N)):.6f} > H(q) = {float(gen.golden_H(qv)):.6f}; "
            f"(d) cost normalisation: X deterministic makes C* = (17) exactly for every N; "
            f"(e) the policy's frequencies are (10) (equal pages: 1/N) and the point numbering j = 0..F_k-1 only rotates the cycle; "
            f"(f) (18) is exactly the limit cost when every page sits at a bracket end (G(q, 1) = G(q, phi) = H(q), row golden.derivation), "
            f"the configuration the printed proof's bound t^phi, t^(phi^2) describes.")
