"""A simulated timeline of Liu–Nain (2005) §1.3.1: what the model describes and nothing it derives (access
completion times, each page's whole Poisson change process, the out-of-date periods between a refresh and the next),
against which the claims check (1.21)-(1.25), with batch-means standard errors."""
from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

BATCHES = 20  # batch-means groups of a standard error


@dataclass(frozen=True)
class Timeline:
    """One run: the page of each access (pi_n), completion times T_n, each page's change epochs."""

    pages: np.ndarray
    done: np.ndarray
    changes: tuple


@dataclass(frozen=True)
class PageIntervals:
    """Page i's inter-access intervals (T_{n_(j-1)}, T_{n_j}]: their ends, out-of-date times Z_j,
    first change epochs, distances d_j and the index n_j of the closing access."""

    start: np.ndarray
    end: np.ndarray
    first_change: np.ndarray
    Z: np.ndarray
    d: np.ndarray
    closing: np.ndarray


def simulate_timeline(pages: np.ndarray, access, rates: np.ndarray, seed: int) -> Timeline:
    """Simulate one run: the accesses ``pages`` with i.i.d. durations from ``access`` (completion times T_n) and, for each
    page i, Poisson change epochs of rate mu_i on [0, T_last].
    """
    rng = np.random.default_rng(seed)
    done = np.cumsum(access.sample(rng, pages.size))
    horizon = float(done[-1])
    changes = tuple(np.sort(rng.uniform(0, horizon, rng.poisson(mu * horizon))) for mu in rates)
    return Timeline(pages, done, changes)


def page_intervals(tl: Timeline, i: int) -> PageIntervals:
    """Page i's inter-access intervals in a timeline, with their out-of-date times Z_j = (T_{n_j} − first change)^+ and
    distances d_j ((1.21)–(1.25)).
    """
    n_j = np.flatnonzero(tl.pages == i)
    t = tl.done[n_j]
    ch = tl.changes[i]
    nxt = np.searchsorted(ch, t[:-1], side="right")
    first = np.where(nxt < ch.size, ch[np.minimum(nxt, ch.size - 1)], np.inf)
    return PageIntervals(t[:-1], t[1:], first, np.maximum(t[1:] - first, 0.0), np.diff(n_j), n_j[1:])


def batch_ratio(num: np.ndarray, den: np.ndarray, index: np.ndarray, n: int) -> tuple[float, float]:
    """sum num / sum den and its batch-means standard error (BATCHES groups of accesses)."""
    b = index * BATCHES // n
    rb = np.bincount(b, weights=num, minlength=BATCHES) / np.bincount(b, weights=den, minlength=BATCHES)
    return float(num.sum() / den.sum()), float(rb.std(ddof=1) / math.sqrt(BATCHES))
