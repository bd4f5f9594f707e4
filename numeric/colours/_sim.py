r"""Seeded simulation of the BUbiNG workbench game (Buijsrogge 2014, Ch. 5, 7, 8).

One time unit is one step of the game (§2.1.2): from ``t = K`` on, a colour
present online is chosen uniformly and loses its first ball (rule 1); then one
ball enters the online structure (rule 2), from the source or from the
offline structure as the strategy decides.  The first ``K`` steps fill the
workbench (Ch. 3).  State per step is O(1): ball counts per colour, the list
of present colours (for the uniform choice), an alias table for drawing
colours from ``p`` and the offline structure (a FIFO ring buffer, or one
queue per colour).

Strategies (``strategy=``), by the thesis's algorithm numbers:

==========================  ===========================================================
``none``                    no offline structure (Ch. 4–5)
``neutral``                 every ball accepted from the source (Prop. 7.1.1)
``greedy-neutral``          Alg. 1, Greedy–Neutral–Source
``greedy-neutral-offline``  Alg. 2, Greedy–Neutral–Offline Structure (+ Alg. 3)
``greedy-greedy``           Alg. 4, Greedy–Greedy–Offline Structure (no fallback)
``greedy``                  Alg. 5 (Alg. 4 accepting from the FIFO once P_offline > 0.99)
``greedy-a``                Alg. 6 (head *or second* ball new online: accept the head)
``randomized``              Alg. 7 (parameter ``r``)
``randomized-a``            Alg. 8
``randomized-b``            Alg. 9
``combined``                Alg. 10 (Alg. 9 and Alg. 4 combined)
``mice``                    Alg. 11, elephants ``p_c >= 1/(beta K)``, a queue per elephant
``mice-delta``              Alg. 11 with §8.1's rule: a colour becomes an elephant when it
                            has ``delta`` balls online (during the fill too)
``recommended``             Alg. 12: §8.1's rule, one FIFO queue (``t_star``: rule
                            active only while t < t_star, Table 8.10)
==========================  ===========================================================

Readings of the printed algorithms that the text leaves open are stated in
:data:`READINGS`.  During the fill (t < K) the balls come straight from the
source ("the first K balls are added ... in the same way as when there was no
offline structure", Ch. 7) except for ``mice-delta`` and ``recommended`` (§8.1:
"this strategy is also used in the first K steps"); ``fill="one-per-elephant"``
is the initialisation of Fig 7.9.

Cost: the run is refused up front (`TooLarge`) when its estimated memory or
time exceeds the limits of :mod:`crawlmath.numeric.validate`; it runs in
chunks so Ctrl-C stops it promptly.  Randomness is xoshiro256** seeded by
splitmix64 from ``seed`` in [0, 2^64).

>>> r = simulate(np.full(1000, 1e-3), 100, 20000, seed=1)
>>> 85 < r.mean < 97
True
"""
from __future__ import annotations

import contextlib
import math
import signal
import threading
import weakref
from collections.abc import Callable
from dataclasses import dataclass, field

import numpy as np

from ._laws import colour_distribution, float_law
from ._mean_field import initial_expected, mean_field
from ._product_form import exact_stationary
from ..errors import InvalidInput, SolverError, TooLarge
from ..validate import format_bytes, max_memory, require_int, require_memory, require_probability_vector, require_seconds

STRATEGIES = ("none", "neutral", "greedy", "randomized-b", "mice", "recommended", "greedy-neutral",
              "greedy-neutral-offline", "greedy-a", "randomized", "randomized-a", "combined", "greedy-greedy")
_CODES = {s: k for k, s in enumerate(STRATEGIES)}
_CODES["mice-delta"] = _CODES["mice"]
STRATEGY_NAMES = STRATEGIES + ("mice-delta",)
_ALGORITHM = {"neutral": "Prop. 7.1.1", "greedy-neutral": "Alg. 1", "greedy-neutral-offline": "Alg. 2",
             "greedy-greedy": "Alg. 4", "greedy": "Alg. 5", "greedy-a": "Alg. 6", "randomized": "Alg. 7", "randomized-a": "Alg. 8",
             "randomized-b": "Alg. 9", "combined": "Alg. 10", "mice": "Alg. 11", "mice-delta": "Alg. 11, §8.1",
             "recommended": "Alg. 12", "none": "Ch. 4"}
FILL_RULES = {"source": 0, "strategy": 1, "one-per-elephant": 2}

READINGS = {
    "Alg. 6": "'when the second ball ... is not present ... the ball before this one is also accepted': the head "
              "is accepted when the head or the second ball has a colour absent online (FIFO order kept)",
    "Alg. 10": "'if possible then accept': possible when the colour is not in the offline structure (game rule "
               "2b); line 3-4 accept a colour absent online even when it is offline, as printed",
    "Alg. 12": "'there are 5 balls' read as count >= delta (§8.2: with delta = 1 'every color is an elephant "
               "color once it has appeared'); §8.1's 'exceeds delta' (count > delta) is strict=True",
}

NB = 20  # batch means over the second half of the run
MIN_STEPS = 2 * NB  # every batch then holds at least one step
MAX_SEED = 2**64 - 1
BYTES_PER_COLOUR = 200  # p, alias table (+ its construction), the 64-byte record per colour, lists, queues
# Throughput used for the time estimate (2 shared cores, numba): steps and source draws per second.
PLAIN_STEPS_PER_S = 1.0e7
STRATEGY_DRAWS_PER_S = 1.0e7
CHUNK_STEPS = 1 << 22  # steps per kernel call: about half a second; Ctrl-C is seen between calls
CHUNK_DRAWS = 1 << 24


@dataclass(frozen=True)
class SimResult:
    """One seeded run.  ``mean``/``stderr``/``p_new_mean`` are None when the
    run stopped before its second half (``stopped_at``) or has too few batches."""

    K: int
    C: int
    steps: int  # steps after the fill (total time T = K + steps)
    seed: int
    strategy: str
    mean: float | None  # time average of the colours online over the second half
    stderr: float | None  # batch-means standard error (20 batches)
    p_new_mean: float | None  # time average of P_new over the second half
    times: np.ndarray = field(repr=False)  # record times t (multiples of `every`)
    colours: np.ndarray = field(repr=False)  # S(t)
    p_new: np.ndarray = field(repr=False)  # P_new(t): mass of the colours absent online
    p_offline: np.ndarray = field(repr=False)  # P_offline(t): mass of the colours offline
    elephant_counts: np.ndarray = field(repr=False)  # c(t), number of elephant colours
    elephant_masses: np.ndarray = field(repr=False)  # 1 - q(t), their probability
    head_moves: np.ndarray = field(repr=False)  # m(t), disk-head moves between queues (§8.2)
    elephants: int = 0  # c at the end
    elephant_mass: float = 0.0  # 1 - q at the end
    source_draws: int = 0
    stopped_at: int = -1  # time the run stopped (stop_at reached or a step beyond the draw cap), else -1
    free_mass: float = 1.0  # at the end: mass of the colours absent both online and offline (Prop. 7.2.3)
    inputs: str = "shortest-decimal"  # how p was given (numeric.exact.input_kind); the run uses its float64 rounding
    method: str = ("numba kernel, alias sampling, xoshiro256**; batch means over the second half (20 batches); "
                   "a statistical estimate in float64, not an exact route: each p_c rounded to the nearest float64")


def _simulation_cost(C: int, steps: int, samples: int, draws_per_step: float = 1.0) -> tuple[float, float]:
    """Estimated (bytes, seconds) of a run: per-colour arrays, the records,
    and ``steps * draws_per_step`` source draws at the measured throughput."""
    nbytes = BYTES_PER_COLOUR * C + 7 * 8 * samples
    # 2e-6: seconds of set-up per colour (alias table, per-colour arrays), a cost-model constant
    seconds = 2e-6 * C + steps * max(1.0, draws_per_step) / STRATEGY_DRAWS_PER_S
    return nbytes, seconds


def _require_seed(seed) -> int:
    """A seed in [0, 2^64)."""
    seed = require_int(seed, "seed", minimum=0)
    if seed > MAX_SEED:
        raise InvalidInput("seed", "must be < 2**64", value=seed)
    return seed


def _strategy_params(strategy, beta, delta, r, stop_at, t_star):
    if strategy not in _CODES:
        raise InvalidInput("strategy", f"must be one of {', '.join(STRATEGY_NAMES)}", value=strategy)
    if not (isinstance(beta, (int, float)) and math.isfinite(beta) and beta > 0):
        raise InvalidInput("beta", "must be a finite number > 0", value=beta)
    delta = require_int(delta, "delta", minimum=1)
    if not (isinstance(r, (int, float)) and 0 <= r <= 1):
        raise InvalidInput("r", "must lie in [0, 1]", value=r)
    if not (isinstance(stop_at, (int, float)) and stop_at > 0):
        raise InvalidInput("stop_at", "must be a number > 0 (> 1: never stop)", value=stop_at)
    return delta, require_int(t_star, "t_star", minimum=0)


def _elephants(p, K, strategy, beta):
    """Initial elephant set: Alg. 11's ``p_c >= 1/(beta K)``; none for the δ rules."""
    if strategy != "mice":
        return np.zeros(p.size, dtype=np.bool_)
    el = p >= 1.0 / (beta * K)
    if el.all():
        raise InvalidInput("beta", f"every colour is an elephant (p_c >= 1/(beta K) = {1 / (beta * K):.3g}); "
                                   "Alg. 11 then never finds a mouse: raise beta", value=beta)
    return el


def simulate(p, K: int, steps: int, seed: int = 0, strategy: str = "none", *, beta: float = 1.0,
             delta: int = 5, strict: bool = False, r: float = 0.5, t_star: int = 0, prefill: int = 0,
             stop_at: float = 2.0, fill: str | None = None, samples: int = 1000,
             every: int | None = None, progress: Callable[[int, int], None] | None = None) -> SimResult:
    """Run the game for ``K + steps`` steps; return the trajectories (recorded
    every ``every`` steps, default ``(K + steps) // samples``) and batch-means
    estimates of the stationary means over the second half of the run.

    ``prefill`` balls are put in the FIFO before the game (Prop. 7.2.2);
    ``stop_at``: Algorithms 4–6 stop when P_offline exceeds it (Figs 7.2, 7.4);
    ``strict`` reads the δ rule as "more than δ balls" (§8.1) instead of "δ
    balls" (Alg. 12).  ``progress(done, total)``, if given, is called after
    every chunk with the steps done of ``K + steps`` (it does not touch the
    state, so results are the same with or without it).

    ``p`` is read by :func:`crawlmath.numeric.colours.float_law`: exact numbers
    and decimal strings are accepted and rounded to the nearest float64 (the
    result's ``inputs`` says how p was given).  A simulation is a statistical
    estimate in float64, not an exact route."""
    p, inputs = float_law(p)
    prep = _prepared(p)
    p = prep.p
    K = require_int(K, "K", minimum=1)
    steps = require_int(steps, "steps", minimum=MIN_STEPS)
    seed = _require_seed(seed)
    delta, t_star = _strategy_params(strategy, beta, delta, r, stop_at, t_star)
    prefill = require_int(prefill, "prefill", minimum=0)
    if fill is None:
        fill = "strategy" if strategy in ("mice-delta", "recommended") else "source"
    if fill not in FILL_RULES:
        raise InvalidInput("fill", f"must be one of {', '.join(FILL_RULES)}", value=fill)
    total = K + steps
    if every is None:
        every = max(1, total // require_int(samples, "samples", minimum=2))
    every = require_int(every, "every", minimum=1)
    elephant = _elephants(p, K, strategy, beta)
    mice_mass = 1.0 - math.fsum(p[elephant])
    # 1e-300 guards the division when the elephants hold all the mass (not a tolerance)
    nbytes, seconds = _simulation_cost(p.size, steps + prefill, total // every, 1.0 / max(mice_mass, 1e-300))
    require_memory(nbytes, "C", f"a simulation with C = {p.size} colours", value=p.size)
    require_seconds(seconds, "steps", f"{steps} steps ({strategy})", value=steps)
    from . import _kernels as kern  # numba: loaded only when a simulation runs

    state = _State(prep, K, total, every, seed, elephant)
    if prefill:
        state.prefill(prefill)
    code = _CODES[strategy]
    rule = delta + int(strict) if strategy in ("mice-delta", "recommended") else 0
    with _interrupt_between_chunks() as interrupted:
        while state.iv[kern.T] < total and state.iv[kern.STOPPED] < 0:
            if interrupted():
                raise KeyboardInterrupt
            _chunk(state, code, FILL_RULES[fill], rule, t_star, r, stop_at)
            if progress is not None:
                progress(int(state.iv[kern.T]), total)
    return state.result(strategy, steps, seed, inputs)


@contextlib.contextmanager
def _interrupt_between_chunks():
    """Ctrl-C during a kernel call is recorded and raised between chunks.

    A KeyboardInterrupt raised *inside* a numba call surfaces as a
    SystemError ("returned a result with an exception set"); so while the
    kernels run, SIGINT only sets a flag (main thread, when SIGINT is not
    ignored), and the chunk loop raises KeyboardInterrupt itself."""
    flag = []
    if threading.current_thread() is not threading.main_thread() or \
            signal.getsignal(signal.SIGINT) in (signal.SIG_IGN, None):
        yield lambda: False
        return
    previous = signal.signal(signal.SIGINT, lambda *_: flag.append(True))
    try:
        yield lambda: bool(flag)
    finally:
        signal.signal(signal.SIGINT, previous)


def _chunk(state, code, fill_rule, rule, t_star, r, stop_at) -> None:
    """Advance ``state`` by at most CHUNK_STEPS steps (and CHUNK_DRAWS draws)."""
    kern, K, total, every = state.kern, state.K, state.total, state.every
    t_end = min(total, state.iv[kern.T] + CHUNK_STEPS)
    if code == 0:
        kern.advance_plain(state.col, K, total, every, t_end, state.st, state.iv, state.fv, state.present, state.rec,
                           state.batches)
    else:
        state.fifo = kern.advance(state.col, K, total, code, fill_rule, rule, t_star, float(r), float(stop_at), every,
                                  t_end, CHUNK_DRAWS, state.st, state.iv, state.fv, state.present, state.avail,
                                  state.fifo, state.rec, state.batches)
        state.check_queue()


class _State:
    """The arrays the kernels advance, owned here between chunks."""

    def __init__(self, prep, K, total, every, seed, elephant):
        from . import _kernels as kern  # numba: loaded only when a simulation runs

        p = prep.p
        self.kern = kern
        self.p, self.K, self.total, self.every = p, K, total, every
        self.st = kern.seed_state(np.uint64(seed))
        self.iv = np.zeros(kern.N_IV, np.int64)
        self.iv[kern.STOPPED] = -1
        self.iv[kern.LASTQ] = -1
        self.iv[kern.CAP] = 1024
        self.fv = np.zeros(kern.N_FV)
        C = p.size
        self.col = prep.fresh_records(elephant)  # one cache line per colour
        self.present = np.zeros(C, np.int64)
        self.avail = np.zeros(C, np.int64)
        self.iv[kern.NELEPH] = int(elephant.sum())
        self.fv[kern.ELMASS] = math.fsum(p[elephant])
        self.fifo = np.zeros(1024, np.int64)
        self.rec = np.zeros((total // every, 7))
        self.batches = np.zeros((kern.NB, 3))

    def prefill(self, n: int) -> None:
        """``n`` balls drawn from the source into the FIFO before the game
        (the buffer keeps a free slot: the kernel grows it when it fills)."""
        kern = self.kern
        rng = np.random.default_rng(int(self.st[0]))
        balls = rng.choice(self.p.size, size=n, p=self.p)
        cap = int(self.iv[kern.CAP])
        while cap <= n:
            cap *= 2
        self.fifo = np.zeros(cap, np.int64)
        self.fifo[:n] = balls
        self.iv[kern.CAP], self.iv[kern.HEAD], self.iv[kern.SIZE] = cap, 0, n
        off = np.zeros(self.p.size, np.int64)
        for c in balls.tolist():
            if off[c] == 0:
                self.fv[kern.OFFMASS] += self.p[c]
            off[c] += 1
        self.col["off"] = off

    def check_queue(self) -> None:
        """Refuse to let the offline FIFO outgrow the memory limit."""
        need = 8 * self.iv[self.kern.CAP]
        if need > max_memory() // 2:
            raise TooLarge("steps", f"the offline queue grew to {self.iv[self.kern.SIZE]} balls "
                                    f"({format_bytes(need)}) at t = {self.iv[self.kern.T]}; run fewer steps",
                           value=int(self.iv[self.kern.T]))

    def result(self, strategy: str, steps: int, seed: int, inputs: str) -> SimResult:
        kern, iv, fv = self.kern, self.iv, self.fv
        rec = self.rec[: iv[kern.REC]]
        b = self.batches[self.batches[:, 2] > 0]
        n = b[:, 2].sum()
        mean = float(b[:, 0].sum() / n) if n > 0 else None
        p_new = float(b[:, 1].sum() / n) if n > 0 else None
        stderr = None
        if len(b) >= 2:
            means = b[:, 0] / b[:, 2]
            stderr = float(np.std(means, ddof=1) / math.sqrt(len(means)))
        return SimResult(self.K, self.p.size, steps, seed, strategy, mean, stderr, p_new, rec[:, 0].astype(np.int64),
                         rec[:, 1].astype(np.int64), rec[:, 2], rec[:, 3], rec[:, 4].astype(np.int64), rec[:, 5],
                         rec[:, 6].astype(np.int64), int(iv[kern.NELEPH]), float(fv[kern.ELMASS]),
                         int(iv[kern.DRAWS]), int(iv[kern.STOPPED]),
                         absent_mass(self.p, self.col["cnt"], self.col["off"]), inputs)


def absent_mass(p: np.ndarray, cnt: np.ndarray, off: np.ndarray) -> float:
    r"""The mass :math:`\sum_{c:\ cnt_c = off_c = 0} p_c` (p >= 0) correctly
    rounded, hence equal to ``math.fsum`` of those entries, without a Python
    float per colour: the kernel sums the integer significands exactly per
    binary exponent, the sum is an integer times :math:`2^{-1074}`, and
    Python's int / int rounds correctly."""
    from . import _kernels as kern  # numba: loaded only when a simulation runs

    hi, lo = kern.absent_mass_bins(np.ascontiguousarray(p), cnt, off)
    exact = sum(((int(hi[k]) << 26) + int(lo[k])) << k for k in np.flatnonzero(hi | lo).tolist())
    return exact / (1 << 1074)


class _Prepared:
    """What replicated runs of one distribution share: the validated vector
    (a private copy) and its packed alias table."""

    __slots__ = ("p", "table")

    def __init__(self, p: np.ndarray):
        self.p, self.table = p, None

    def fresh_records(self, elephant: np.ndarray) -> np.ndarray:
        """:func:`colours_kernels.colour_records` of a new game.  Up to
        TEMPLATE_BYTES, a byte copy of a template built once per (distribution,
        elephant set) and kept for the last two (the same bytes, a third of
        the time); larger games build their records directly."""
        from . import _kernels as kern  # numba: loaded only when a simulation runs

        if self.table is None:
            self.table = packed_table(*alias_table(self.p))
        if self.p.size * kern.LINE > TEMPLATE_BYTES:
            return kern.colour_records(self.p, self.table, elephant)
        key = (id(self), elephant.tobytes())  # the entry holds self, so the id stays its own while kept
        hit = _TEMPLATES.get(key)
        if hit is None:
            if len(_TEMPLATES) >= 2:
                _TEMPLATES.pop(next(iter(_TEMPLATES)))
            hit = _TEMPLATES[key] = (self, kern.colour_records(self.p, self.table, elephant))
        template = hit[1]
        raw = np.empty(template.nbytes + kern.LINE, np.uint8)
        start = -raw.ctypes.data % kern.LINE
        out = raw[start:start + template.nbytes]
        out[...] = template.view(np.uint8)
        return out.view(kern.COLOUR)


TEMPLATE_BYTES = 32 << 20  # fresh-record templates are kept for games up to this size (C = 524288 colours)
_PREPARED: dict = {}  # (size, hash of the bytes) -> _Prepared, the last few distributions
_RECENT: list = []  # (weak reference to an array, key): an array seen again is compared by content, not hashed
_TEMPLATES: dict = {}  # (id of a _Prepared, elephant bytes) -> (that _Prepared, fresh records): the last two


def _prepared(p) -> _Prepared:
    """``require_probability_vector(p, "p")`` with what runs of it share,
    remembered for the last few vectors: replicated runs pass the same ``p``,
    and validating C = 1e5 entries one by one costs more than a short run.  A
    remembered vector is reused only when its content is equal (an array
    object seen before is compared with its copy directly; any other is looked
    up by a hash of its bytes first)."""
    converted = not (isinstance(p, np.ndarray) and p.dtype == np.float64 and p.ndim == 1)
    if converted:  # a new array: validated here, then remembered by content
        p = require_probability_vector(p, "p")
    for ref, key in _RECENT:
        if ref() is p:
            prep = _PREPARED.get(key)
            if prep is not None and np.array_equal(prep.p, p):
                return prep
            break
    key = (p.size, hash(p.tobytes()))
    prep = _PREPARED.get(key)
    if prep is None or not np.array_equal(prep.p, p):
        prep = _Prepared((p if converted else require_probability_vector(p, "p")).copy())
        if len(_PREPARED) >= 8:
            _PREPARED.pop(next(iter(_PREPARED)))
        _PREPARED[key] = prep
    _RECENT[:] = [(ref, k) for ref, k in _RECENT if ref() is not None and ref() is not p][-7:] + [(weakref.ref(p), key)]
    return prep


def alias_table(p: np.ndarray):
    """Walker's alias table: (prob, alias) for O(1) sampling of ``p`` (numba:
    the construction is O(C) and runs once per distribution)."""
    from . import _kernels as kern  # numba: loaded only when a simulation runs

    return kern.alias_columns(np.ascontiguousarray(p, dtype=np.float64))


def packed_table(prob: np.ndarray, alias: np.ndarray) -> np.ndarray:
    """One uint64 per column: ``alias << 33 | round(prob * 2^32)``."""
    thr = np.minimum(np.round(prob * 2.0**32), 2.0**32).astype(np.uint64)
    return (alias.astype(np.uint64) << np.uint64(33)) | thr


def trajectories(K: int, C: int, steps: int, seed: int = 0, dist: str = "uniform", params=(),
                 samples: int = 500) -> dict:
    """Fig 5.1-style curves: simulated S(t) and P_new(t), the mean-field
    stationary level KC/(K+C-1), the exact stationary level (product form)
    and the exact E[S(t)] during the fill (eq. 3.1 at t <= K).

    Returns a dict of numpy arrays and floats ready to plot."""
    p = colour_distribution(dist, C, *params)
    sim = simulate(p, K, steps, seed, samples=samples)
    fill_t = sim.times[sim.times <= K]
    fill_expected = np.array([initial_expected(p, int(t)) for t in fill_t])
    ex = exact_stationary(p, K)
    out = {"t": sim.times, "simulated_colours": sim.colours, "simulated_p_new": sim.p_new,
           "fill_t": fill_t, "fill_expected": fill_expected, "exact_colours": ex.colours, "exact_p_new": ex.p_new}
    if dist == "uniform":
        mf = mean_field(K, C)
        out.update(mean_field_colours=mf.colours, mean_field_p_new=mf.p_new)
    return out


# ----------------------------------------------------------------------------
# Exact one-step law of the strategies whose step needs a bounded number of
# draws: an independent, plain-Python transcription of the printed algorithms
# (the numba kernel is the other), generic in the number type of p and r
# (Fractions, or SymPy symbols passed in by a caller).

_EXACT_LAW_STRATEGIES = ("none", "greedy-neutral", "randomized", "randomized-a")
_MAX_REDRAWS = 8


def step_law(strategy: str, q: tuple, offline: tuple, p, r) -> dict:
    """Law of one step of the game from the state (``q`` ball counts per
    colour, ``offline`` the FIFO, head first): ``{(q', offline'): probability}``.

    Rule 1 removes a ball of a uniformly chosen colour present online; rule 2
    follows ``strategy``: ``none`` (a draw from the source), ``greedy-neutral``
    (Alg. 1), ``randomized`` (Alg. 7) or ``randomized-a`` (Alg. 8; its line 3
    test P_offline > 0.99 needs numeric p when the FIFO is not empty).

    >>> from fractions import Fraction as F
    >>> law = step_law("randomized", (1, 1), (), (F(1, 2), F(1, 2)), F(1, 3))
    >>> sorted((k, str(v)) for k, v in law.items())
    [(((0, 2), ()), '1/4'), (((1, 1), ()), '1/2'), (((2, 0), ()), '1/4')]
    """
    if strategy not in _EXACT_LAW_STRATEGIES:
        raise InvalidInput("strategy", f"exact law only for {', '.join(_EXACT_LAW_STRATEGIES)}", value=strategy)
    one = r - r + 1
    present = [j for j, n in enumerate(q) if n > 0]
    law: dict = {}
    for j in present:
        q1 = list(q)
        q1[j] -= 1
        for w, c, off in _insertions(strategy, tuple(q1), tuple(offline), p, r, one, 0):
            q2 = list(q1)
            q2[c] += 1
            key = (tuple(q2), off)
            law[key] = law.get(key, 0) + w * one / len(present)
    return law


def _insertions(strategy, q, offline, p, r, one, depth):
    """(probability, colour entering online, offline after) for rule 2."""
    if depth > _MAX_REDRAWS:
        raise SolverError(f"{strategy}: more than {_MAX_REDRAWS} redraws in one step; the exact law is an infinite series")
    out = []
    if strategy == "randomized" and offline:  # Alg. 7 lines 2-4: with probability 1 - r the FIFO's head
        out.append(((one - r), offline[0], offline[1:]))
    for c, pc in enumerate(p):
        if strategy == "none":
            out.append((pc, c, offline))
        elif strategy == "greedy-neutral":  # Alg. 1
            if q[c] == 0 and c not in offline:
                out.append((pc, c, offline))
            else:
                fifo = offline + (c,)
                out.append((pc, fifo[0], fifo[1:]))
        elif strategy == "randomized":  # Alg. 7 line 1 (and line 6 when the FIFO is empty)
            out.append((pc * (r if offline else one), c, offline))
        else:  # Alg. 8
            fifo = offline + (c,)
            if offline and math.fsum(float(p[k]) for k in set(offline)) > 0.99:
                out.append((pc, fifo[0], fifo[1:]))
                continue
            if c in offline:
                out += [(pc * r * w, c2, off2) for w, c2, off2 in _insertions(strategy, q, fifo, p, r, one, depth + 1)]
            else:
                out.append((pc * r, c, offline))
            out.append((pc * (one - r), fifo[0], fifo[1:]))
    return out
