"""How Liu–Nain (2005, §1.2.2) print the transition law (1.14)-(1.16) of the crawler MDP.

The law as printed differs from the one the prose describes (:mod:`crawlmath.numeric.mdp`, which solves the
latter): its rows need not sum to one and some successors lie outside X.  The claims read the printed rows here.

>>> from crawlmath.numeric.mdp import CrawlerMDP
>>> m = CrawlerMDP(lam=0.1, mu=1, K=5, N=16, gamma=1)
>>> worst, where = printed_row_sums(m)
>>> worst > 0.1, len(printed_successors_outside(m)) > 0
(True, True)
"""
from __future__ import annotations

from ...numeric.mdp import CrawlerMDP


# ------------------------------------------------------- printed (1.14)-(1.15)


def printed_rows(mdp: CrawlerMDP):
    """Yield (x, a, [(x', p)]) for every state and allowed action under the
    transition law *as printed* in (1.14)-(1.16), with x' possibly outside X."""
    lam, mu, nu, N, K = mdp.lam, mdp.mu, mdp.nu, mdp.N, mdp.K
    for (q, r, s), allowed in zip(mdp.states.tolist(), mdp.allowed.tolist()):
        for a in (0, 1):
            if not allowed[a]:
                continue
            if s == 0:
                rp = min(r + a, N)
                ind = mu * (q > 1)
                rows = [((q - 1, rp, 0), ind / nu), ((q - 1, rp, 1), lam * r / nu), ((q - 1, rp, 2), 1 - (ind - lam * r) / nu)]
            elif s == 1:
                rp = r + a - 1
                rows = [((min(q + 1, K), rp, 0), mu / nu), ((min(q + 1, K), rp, 1), lam * rp / nu),
                        ((min(q + 1, N), rp, 2), 1 - (mu + lam * rp) / nu)]
            else:
                ind = mu * (q > 0)
                rows = [((q, r, 0), ind / nu), ((q, r, 1), lam * r / nu), ((q, r, 2), 1 - (ind + lam * r) / nu)]
            yield (q, r, s), a, rows


def printed_row_sums(mdp: CrawlerMDP) -> tuple[float, tuple]:
    """Largest |Σ_x' p_{x,x'}(a) − 1| under the printed law, and where."""
    worst, where = 0.0, None
    for x, a, rows in printed_rows(mdp):
        err = abs(sum(p for _, p in rows) - 1)
        if err > worst:
            worst, where = err, (x, a)
    return worst, where


def printed_successors_outside(mdp: CrawlerMDP) -> list[tuple]:
    """(x, a, x') with positive printed probability and x' ∉ X."""
    out = []
    for x, a, rows in printed_rows(mdp):
        for y, p in rows:
            if p > 0:
                q, r, s = y
                if not (0 <= q <= mdp.K and 0 <= r <= mdp.N) or mdp.index[q, r, s] < 0:
                    out.append((x, a, y))
    return out
