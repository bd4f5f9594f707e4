"""N̄ of a row of Liu–Nain (2005) Tables 1.2 and 1.3 to 30 digits: the stationary law of the optimal policy on its
recurrent class, from exact decimal transition probabilities (eqs. 1.14–1.16 as corrected) by mixed-precision
iterative refinement, checked against the float64 law; certified unless the optimal policy may not be unique there.
"""
from __future__ import annotations

import math
from functools import lru_cache

import numpy as np

from ....numeric import mdp as M
from ....numeric.errors import SolverError
from ....numeric.tolerance import HP_DIGITS, STRUCTURE_ABS, close
from ._dynamic import dynamic_gamma, table_N, solve_instance, instance


# ------------------------------------------------------------ N̄ to 30 digits

NBAR_DPS = HP_DIGITS


def _policy_rows(sol: M.MDPSolution, one):
    """The uniformised chain of the solution's policy on its recurrent class, with transition probabilities from the
    exact decimal λ, μ (``one`` is 1 in the number type): after the decision (q', r'), a departure w.p. μ1(q'>0)/ν, an
    arrival w.p. λr'/ν, a fictitious event w.p. (λ(N − r') + μ1(q'=0))/ν (eqs. 1.14-1.16 as corrected).  Returns
    rows[k] = [(k', p)] over positions in ``sol.recurrent``; checked against the float64 chain."""
    m = sol.mdp
    rec = [int(x) for x in sol.recurrent]
    pos = {x: k for k, x in enumerate(rec)}
    lam, mu = (one * m.exact(name).numerator / m.exact(name).denominator for name in ("lam", "mu"))
    nu = lam * m.N + mu
    rows = []
    post = [m.post_decision(a) for a in (0, 1)]  # (q', r') of every state after each action
    for x in rec:
        a = int(sol.policy[x])
        qp, rp = (int(v[x]) for v in post[a])
        succ, fprob = m.successors[a][0][x], m.successors[a][1][x]
        probs = (mu * (qp > 0) / nu, lam * rp / nu, (lam * (m.N - rp) + mu * (qp == 0)) / nu)
        row = []
        for j, p, pf in zip(succ, probs, fprob):
            if abs(float(p) - float(pf)) > STRUCTURE_ABS:
                raise SolverError(f"state {m.states[x].tolist()}, a={a}: exact probability {float(p)!r} vs float64 {pf!r}")
            if p != 0:
                if int(j) not in pos:
                    raise SolverError(f"state {m.states[x].tolist()} leaves the recurrent class")
                row.append((pos[int(j)], p))
        rows.append(row)
    return rows


@lru_cache(maxsize=None)
def _nbar_hp_cached(table: str, lam: float, K: int, gamma: float, N) -> tuple[object, float, float]:
    return nbar_hp(solve_instance(table, lam, K, gamma, N).solution)


def nbar_hp(sol: M.MDPSolution, dps: int = NBAR_DPS, max_steps: int = 12) -> tuple[object, float, float]:
    r"""N̄ = Σ_x π(x) r(x) of the solution's policy to ``dps`` digits:
    (N̄ as mpf, digits reached, smallest action gap on the recurrent class).

    π solves π(I − P) = 0, Σπ = 1 on the recurrent class (P from
    :func:`_policy_rows`, exact decimals) by mixed-precision iterative
    refinement: residuals in mpmath at ``dps`` + 10 digits, corrections from
    the float64 sparse LU of the same system; stops when the correction is
    below 10^-(dps+2) relative.  The action gap min |Q(x,0) − Q(x,1)| / max|h|
    over recurrent states where both actions are allowed says whether another
    optimal policy (a tie) could have another N̄."""
    import mpmath
    import scipy.sparse as sps
    import scipy.sparse.linalg as spla

    m = sol.mdp
    n = len(sol.recurrent)
    r_of = [int(v) for v in m.states[sol.recurrent, 1]]
    with mpmath.workdps(dps + 10):
        rows = _policy_rows(sol, mpmath.mpf(1))
        # B = (I − P)^T with its first equation replaced by Σπ = 1
        ii, jj, vv = [], [], []
        for k, row in enumerate(rows):
            for j, p in row:
                if j != 0:
                    ii.append(j), jj.append(k), vv.append(-float(p))
        ii += list(range(1, n)) + [0] * n
        jj += list(range(1, n)) + list(range(n))
        vv += [1.0] * (n - 1) + [1.0] * n
        lu = spla.splu(sps.csc_matrix((vv, (ii, jj)), shape=(n, n)))
        pi = [mpmath.mpf(0)] * n
        for step in range(1, max_steps + 1):
            flow = list(pi)  # (π(I − P))_j = π_j − Σ_k π_k P[k, j]
            for k, row in enumerate(rows):
                for j, p in row:
                    flow[j] -= pi[k] * p
            flow[0] = mpmath.fsum(pi)
            res = [-v for v in flow]
            res[0] += 1
            delta = lu.solve(np.array([float(v) for v in res]))
            pi = [a + mpmath.mpf(float(b)) for a, b in zip(pi, delta)]
            last = mpmath.mpf(float(np.abs(delta).max())) / max(abs(v) for v in pi)
            if last < mpmath.mpf(10) ** (-(dps + 2)):
                break
        else:
            raise SolverError(f"N̄: iterative refinement did not reach {dps} digits in {max_steps} steps")
        nbar = mpmath.fsum(p * r for p, r in zip(pi, r_of))
        digits = float(-mpmath.log10(last)) if last > 0 else float(dps + 10)
    Q = m.q_values(sol.h)
    # states where both actions are allowed and lead to different successors (at r = N activating changes nothing)
    both = m.allowed[sol.recurrent].all(axis=1) & (m.successors[0][0][sol.recurrent] != m.successors[1][0][sol.recurrent]).any(axis=1)
    gaps = np.abs(Q[sol.recurrent, 0] - Q[sol.recurrent, 1])[both]
    return nbar, min(digits, dps + 10.0), float(gaps.min()) if gaps.size else math.inf


def nbar_value(table: str, row: dict) -> tuple[float, float | None, str]:
    """(N̄ as float64, error bound or None, how): the 30-digit N̄ of :func:`nbar_hp`, cross-checked against the
    float64 stationary law.  The bound is None when the optimal policy may not be unique on its recurrent class: an
    action gap not above 1000× the error of the Q-values (the optimality-equation residual plus the float64 rounding
    of h), where another optimal policy could give another N̄."""
    rep = instance(table, row)
    sol = rep.solution
    nbar, digits, gap = _nbar_hp_cached(table, float(row["lam"]), int(row["K"]), dynamic_gamma(row), table_N(table, row))
    value = float(nbar)
    if not close(value, rep.n_mean):
        raise SolverError(f"N̄: 30-digit route {value!r} and float64 stationary law {rep.n_mean!r} disagree")
    q_err = sol.residual + 16 * np.finfo(float).eps * (float(np.abs(sol.h).max()) + float(sol.mdp.cost.max()))
    how = (f"N̄ = {value:.12g} ({digits:.0f} digits, refinement on exact decimals; float64 law {rep.n_mean:.12g}); "
           f"smallest action gap on the recurrent class {gap:.2e} vs Q-value error {q_err:.1e}")
    if not gap > 1e3 * q_err:
        return value, None, how + ": the optimal policy may not be unique there, N̄ not certified"
    return value, abs(value) * 10.0 ** -digits + float(np.spacing(value)), how
