"""Exact reduction of a phase-type distribution by ordinary lumpability (the reduction that makes Avrachenkov et
al.'s §7 chains small: Table 2 at K = 30 from a 122-state chain).

A partition of the phases is *ordinarily lumpable* when every phase of a block has the same total rate into each
other block and the same exit rate; the coarsest such partition is found by refinement, in exact rationals, and
the lumped sub-generator and initial vector give the same distribution.
"""
from __future__ import annotations

from ._phase_type import PhaseType, exact_array


class Lumping:
    """The coarsest partition of the transient phases of a PH distribution
    ``(beta, S)`` under which the phase process, absorbing state included, is
    *ordinarily lumpable*, and the reduced representation it gives.

    A partition ``{B_1, ..., B_n}`` is ordinarily lumpable when every phase
    ``i`` of a block ``B`` has the same total rate into each block ``C`` and
    the same exit rate: ``sum_{j in C} S[i, j] = Ŝ[B, C]`` and ``S0[i] =
    Ŝ0[B]`` for all ``i in B`` (Kemeny–Snell, *Finite Markov Chains*, Thm
    6.3.2).  The block process is then Markov with sub-generator ``Ŝ`` and
    starts in ``β̂[C] = sum_{i in C} beta[i]``, so ``(β̂, Ŝ)`` has the same
    absorption-time law (and the same law of the block path) as ``(beta, S)``.

    In the BMAP/PH/1/K chain each phase enters only through its block: the
    service phase through ``S`` and ``S0`` (the next service starts in
    ``beta``), each waiting page's obsolescence phase through ``Γ``, ``Γ_0``
    and ``γ``; the lumped chain is therefore an exact reduction of the full
    one (Avrachenkov et al. §2–§3), checked in the claims by agreement of
    every measure to 1e-12.

    The partition is found by partition refinement from the classes of equal
    exit rate: a block is split while two of its phases differ in their rate
    into some block.  Equal means exactly equal: the rates are compared as the
    exact numbers given (`PhaseType.S_exact`), and the reduced representation
    is formed in exact arithmetic, so ``0.6 - 0.4`` is 1/5, not
    0.19999999999999996, and the lumped chain is the chain of the model as
    written.

    >>> lp = Lumping(PhaseType([0.3, 0.7], [[-0.6, 0.4], [0.1, -0.3]]))
    >>> lp.blocks, lp.reduced.S_exact.tolist(), lp.reduced.S.tolist(), lp.reduced.beta.tolist()
    (((0, 1),), [[Fraction(-1, 5)]], [[-0.2]], [1.0])
    >>> Lumping(PhaseType([0.4, 0.6], [[-3, 1], [2, -3]])).order_after
    2
    """

    def __init__(self, ph: "PhaseType"):
        self.original = ph
        self.blocks = coarsest_lumpable_partition(ph.S_exact, ph.exit_exact)
        self.reduced = self._reduce(ph)

    @property
    def order_before(self) -> int:
        """Order of the representation as given."""
        return self.original.order

    @property
    def order_after(self) -> int:
        """Order of the lumped representation (number of blocks of the coarsest lumpable partition)."""
        return len(self.blocks)

    @property
    def trivial(self) -> bool:
        """True when no two phases are merged."""
        return self.order_after == self.order_before

    def _reduce(self, ph: "PhaseType") -> "PhaseType":
        """``β̂[C] = sum_{i in C} β[i]``, ``Ŝ[B, C] = sum_{j in C} S[i, j]`` for any ``i`` in ``B`` (all equal), exactly."""
        if len(self.blocks) == ph.order:
            return ph
        beta = [sum(ph.beta_exact[list(B)]) for B in self.blocks]
        S = [[sum(ph.S_exact[B[0], list(C)]) for C in self.blocks] for B in self.blocks]
        return PhaseType(beta, S)

    def __repr__(self) -> str:
        return f"Lumping({self.order_before} -> {self.order_after} phases, blocks={self.blocks})"


def coarsest_lumpable_partition(S, exit_rates) -> tuple[tuple[int, ...], ...]:
    """Coarsest partition of ``range(n)`` that is ordinarily lumpable for the
    sub-generator ``S`` with exit rates ``exit_rates`` (see `Lumping`), rates
    compared exactly (entries are read by `exact`).  Blocks are sorted
    tuples, ordered by their smallest phase.

    >>> coarsest_lumpable_partition([[-2, 1, 1], [0, -2, 1], [0, 1, -2]], [0, 1, 1])
    ((0,), (1, 2))
    >>> coarsest_lumpable_partition([[-0.3, 0.1], [0.1, -0.3]], [0.2, 0.6 - 0.4])  # 0.19999999999999996 is not 0.2
    ((0,), (1,))
    """
    S, exit_rates = exact_array(S, "S", 2), exact_array(exit_rates, "S0", 1)
    n = S.shape[0]
    label = _canonical(exit_rates)
    while True:
        blocks = _blocks_of(label)
        into = [[sum(S[i, list(C)]) for C in blocks] for i in range(n)]  # rate of phase i into block C
        new = _canonical([(label[i], *into[i]) for i in range(n)])
        if len(set(new)) == len(blocks):
            return blocks
        label = new


def _canonical(labels) -> list:
    first: dict = {}
    return [first.setdefault(x, len(first)) for x in labels]


def _blocks_of(labels) -> tuple[tuple[int, ...], ...]:
    groups: dict = {}
    for i, x in enumerate(labels):
        groups.setdefault(x, []).append(i)
    return tuple(sorted(tuple(g) for g in groups.values()))
