r"""Colour laws of the BUbiNG workbench (Buijsrogge 2014, Chapter 5): how ``p`` is given and read.

- :func:`colour_distribution` builds the Chapter 5 probability vectors (float64);
- :func:`colour_law` reads ``p`` for the exact routes (issue 30): ints, Fractions, SymPy
  Rationals, Decimals and decimal strings exactly, a binary float as its
  shortest decimal (``numeric/exact.py``); :func:`colour_law_of` forms the
  uniform law exactly and the other Chapter 5 laws (e.g. :math:`c^{-\gamma}`) in
  balls from their exact parameters; a `ColourLaw` says in ``inputs`` and ``model``
  which model the digits computed from it are for;
- :func:`float_law` reads ``p`` the same way for the float64 simulation.

>>> colour_distribution("uniform", 4)
array([0.25, 0.25, 0.25, 0.25])
"""
from __future__ import annotations

import math
from dataclasses import dataclass
from decimal import Decimal
from fractions import Fraction

import numpy as np

from ..errors import InvalidInput
from ..exact import EXACT, FLOATS, exact, input_kind
from ..validate import require_int, require_positive, require_probability_vector

DISTRIBUTIONS = ("uniform", "geometric", "normal", "poisson", "powerlaw")


def colour_distribution(kind: str, C: int, *params) -> np.ndarray:
    r"""Probability vector ``p_1..p_C`` of Chapter 5.

    - ``uniform``: :math:`p_c = 1/C` (§5.1);
    - ``geometric``, mean λ: :math:`p_c \propto e^{-(c-1)/\lambda}(1-e^{-1/\lambda})` (eq. 5.1);
    - ``normal``, μ, σ: :math:`p_c \propto \exp(-(c-\mu)^2/(2\sigma^2))` (§5.3);
    - ``poisson``, λ: :math:`p_c \propto e^{-\lambda}\lambda^c/c!` (§5.4);
    - ``powerlaw``, γ: :math:`p_c = c^{-\gamma}/\sum_n n^{-\gamma}` (§5.5);

    each normalised over ``c = 1..C`` (the thesis: "normalization is applied
    because the sum of the elements in the probability vector p should be 1").
    """
    C = require_int(C, "C", minimum=1)
    c = np.arange(1, C + 1, dtype=float)
    if kind == "uniform":
        _nparams(kind, params, 0)
        return np.full(C, 1.0 / C)
    if kind == "geometric":
        _nparams(kind, params, 1)
        lam = require_positive(params[0], "geometric mean")
        logw = -(c - 1) / lam
    elif kind == "normal":
        _nparams(kind, params, 2)
        mu = require_positive(params[0], "normal mu")
        sigma = require_positive(params[1], "normal sigma")
        logw = -((c - mu) ** 2) / (2 * sigma**2)
    elif kind == "poisson":
        _nparams(kind, params, 1)
        lam = require_positive(params[0], "poisson mean")
        from scipy.special import gammaln

        logw = c * math.log(lam) - lam - gammaln(c + 1)
    elif kind == "powerlaw":
        _nparams(kind, params, 1)
        gamma = params[0]
        if not (isinstance(gamma, (int, float)) and math.isfinite(gamma) and gamma >= 0):
            raise InvalidInput("powerlaw gamma", "must be a finite number >= 0", value=gamma)
        logw = -gamma * np.log(c)
    else:
        raise InvalidInput("dist", f"must be one of {', '.join(DISTRIBUTIONS)}", value=kind)
    w = np.exp(logw - logw.max())
    return w / math.fsum(w)


def _nparams(kind, params, n):
    if len(params) != n:
        raise InvalidInput("dist", f"{kind} takes {n} parameter(s)", value=params)


@dataclass(frozen=True, eq=False)  # eq=False: an ndarray field has no truth value to compare by
class ColourLaw:
    r"""A colour law for the exact routes: the positive :math:`p_c` (not yet
    normalised; the routes divide by their exact sum inside the balls) in
    descending order of their float64 approximations.

    ``approx`` serves only the pruning of :func:`_power_sums_arb` and the cost
    model; every value the routes certify is formed from :meth:`balls`, which
    contain the exact :math:`p_c`.  ``values`` holds the exact Fractions when
    p is rational (the rational route needs them), ``inputs`` is ``"exact"``
    or the float reading ``"shortest-decimal"``, and ``model`` names the law
    the digits are for.

    >>> import flint
    >>> law = colour_law([Fraction(1, 10), "0.9"])
    >>> law.approx.tolist(), law.values
    ([0.9, 0.1], (Fraction(9, 10), Fraction(1, 10)))
    >>> [b.contains(flint.fmpq(v.numerator, v.denominator)) for b, v in zip(law.balls(), law.values)]
    [True, True]
    """
    approx: np.ndarray
    values: tuple | None
    inputs: str
    model: str
    kind: str = ""  # a Chapter 5 law whose weights are formed in balls (values is None)
    params: tuple = ()  # its exact parameters (Fractions)
    order: np.ndarray | None = None  # approx[j] approximates the weight of colour order[j] + 1

    def balls(self) -> list:
        """Balls at the current ``flint.ctx.prec`` containing the exact :math:`p_c`, in the order of ``approx``."""
        import flint  # python-flint: loaded only by the ball (certified) routes

        if self.values is not None:
            return [flint.arb(flint.fmpq(v.numerator, v.denominator)) for v in self.values]
        w = _weight_balls(self.kind, [flint.arb(flint.fmpq(x.numerator, x.denominator)) for x in self.params], self.approx.size)
        return [w[i] for i in self.order.tolist()]


def _weight_balls(kind: str, params: list, C: int) -> list:
    r"""Balls of the unnormalised Chapter 5 weights :math:`w_c`, ``c = 1..C``, from the parameter balls, each
    formed directly (no recurrence, so radii do not grow with c): :math:`c^{-\gamma}`, :math:`e^{-(c-1)/\lambda}`,
    :math:`e^{-(c-\mu)^2/(2\sigma^2)}`, :math:`e^{c\log\lambda - \log c!}` (the factors common to all c cancel
    in the normalisation)."""
    import flint  # python-flint: loaded only by the ball (certified) routes

    cs = [flint.arb(c) for c in range(1, C + 1)]
    if kind == "powerlaw":
        return [c ** -params[0] for c in cs]
    if kind == "geometric":
        return [(-(c - 1) / params[0]).exp() for c in cs]
    if kind == "normal":
        mu, sigma = params
        return [(-((c - mu) ** 2) / (2 * sigma ** 2)).exp() for c in cs]
    log_lam = params[0].log()  # poisson
    return [(c * log_lam - (c + 1).lgamma()).exp() for c in cs]


def colour_law(p, *, floats: str = FLOATS) -> ColourLaw:
    """The colour vector ``p`` (a list or 1-D array of anything
    :func:`~crawlmath.numeric.exact.exact` reads) as a `ColourLaw`: entries
    non-negative, summing to 1 within ``STRUCTURE_ABS`` (the routes normalise
    exactly), zeros dropped.

    >>> law = colour_law(["0.5", Fraction(1, 4), 0.25])
    >>> law.values, law.inputs
    ((Fraction(1, 2), Fraction(1, 4), Fraction(1, 4)), 'shortest-decimal')
    """
    if isinstance(p, np.ndarray) and p.ndim != 1:
        raise InvalidInput("p", "must be a non-empty vector", value=p.shape)
    if isinstance(p, np.ndarray) and p.dtype == np.float64 and floats == FLOATS:
        return _float_law(p)
    raw = list(p)
    vals = [exact(x, argument="p", entry=i, floats=floats) for i, x in enumerate(raw)]
    for i, v in enumerate(vals):
        if v.numerator < 0:  # a tiny negative Fraction rounds to -0.0 and would pass the float check
            raise InvalidInput("p", "entries must be finite and >= 0", value=str(v), entry=i)
    require_probability_vector([float(v) for v in vals], "p")
    vals = [v for v in vals if v.numerator]
    approx = np.array([float(v) for v in vals])
    order = np.argsort(-approx, kind="stable")
    kind = input_kind(raw, floats=floats)
    return ColourLaw(approx[order], tuple(vals[i] for i in order), kind, _given(kind))


def float_law(p, *, floats: str = FLOATS) -> tuple[np.ndarray, str]:
    """``p`` for the float64 routes (the simulation), read as :func:`colour_law`
    reads it: each entry through :func:`~crawlmath.numeric.exact.exact` (ints,
    Fractions, Decimals, decimal or fraction strings; a binary float as its
    shortest decimal), then rounded to the nearest float64, in the given order
    with its zeros.  Returns (vector, inputs), ``inputs`` as
    :func:`~crawlmath.numeric.exact.input_kind`.  A float64 vector is returned
    as it is (its shortest decimal rounds back to it), to be validated by the
    caller.

    >>> v, inputs = float_law(["0.5", Fraction(1, 4), "1/4"])
    >>> v.tolist(), inputs
    ([0.5, 0.25, 0.25], 'exact')
    """
    if isinstance(p, np.ndarray) and p.dtype == np.float64 and floats == FLOATS:
        return p, FLOATS
    if isinstance(p, np.ndarray) and p.ndim != 1:
        raise InvalidInput("p", "must be a non-empty vector", value=p.shape)
    raw = list(p)
    vals = [exact(x, argument="p", entry=i, floats=floats) for i, x in enumerate(raw)]
    for i, v in enumerate(vals):
        if v.numerator < 0:
            raise InvalidInput("p", "entries must be finite and >= 0", value=str(v), entry=i)
    return require_probability_vector([float(v) for v in vals], "p"), input_kind(raw, floats=floats)


def _given(kind: str) -> str:
    return "p as given (exact)" if kind == EXACT else f"p as given, each binary float read as its {kind} value"


def _float_law(p: np.ndarray) -> ColourLaw:
    """`colour_law` of a float64 array, 5x faster than entry by entry through `exact`: ``Decimal(repr(x))`` is
    the same shortest decimal (tests/test_colours_exact.py checks the two readings agree)."""
    p = require_probability_vector(p, "p")
    q = p[p > 0]
    q = q[np.argsort(-q, kind="stable")]
    values = tuple(Fraction(*Decimal(repr(x)).as_integer_ratio()) for x in q.tolist())
    return ColourLaw(q, values, FLOATS, _given(FLOATS))


_WEIGHTS = {"powerlaw": "c^-gamma (§5.5)", "geometric": "exp(-(c-1)/lambda) (eq. 5.1)",
           "normal": "exp(-(c-mu)^2/(2 sigma^2)) (§5.3)", "poisson": "lambda^c/c! (§5.4)"}
_PARAM_NAMES = {"powerlaw": ("gamma",), "geometric": ("lambda",), "normal": ("mu", "sigma"), "poisson": ("lambda",)}


def colour_law_of(kind: str, C: int, *params, floats: str = FLOATS) -> ColourLaw:
    r"""The Chapter 5 law ``kind`` for the exact routes, from its exact
    parameters (``"1.1"`` or ``Fraction(11, 10)``; a float is read as its
    shortest decimal): ``uniform`` is :math:`p_c = 1/C` exactly, the others'
    weights (:data:`_WEIGHTS`, irrational in general) are formed in balls from
    the exact parameters and normalised inside the balls, so the digits are
    those of the law as printed in the thesis, not of a float64 rounding of it.
    :func:`colour_distribution` (float64, the same rules) gives the order of
    the colours and refuses bad parameters.

    >>> law = colour_law_of("powerlaw", 3, "1.1")
    >>> law.params, law.inputs, law.values is None
    ((Fraction(11, 10),), 'exact', True)
    """
    C = require_int(C, "C", minimum=1)
    if kind == "uniform":
        _nparams(kind, params, 0)
        return ColourLaw(np.full(C, 1.0 / C), (Fraction(1, C),) * C, EXACT, f"uniform p_c = 1/{C} (exact)")
    if kind not in _WEIGHTS:
        raise InvalidInput("dist", f"must be one of {', '.join(DISTRIBUTIONS)}", value=kind)
    _nparams(kind, params, len(_PARAM_NAMES[kind]))
    exact_params = tuple(exact(x, argument=f"{kind} {name}", floats=floats) for x, name in zip(params, _PARAM_NAMES[kind]))
    approx = colour_distribution(kind, C, *(float(x) for x in exact_params))  # validates the parameters too
    order = np.argsort(-approx, kind="stable")
    reading = input_kind(list(params), floats=floats)
    named = ", ".join(f"{n} = {x}" for n, x in zip(_PARAM_NAMES[kind], exact_params))
    return ColourLaw(approx[order], None, reading, f"{kind} p_c ∝ {_WEIGHTS[kind]}, {named} ({reading}), weights in balls",
                     kind, exact_params, order)


def _law(p) -> ColourLaw:
    return p if isinstance(p, ColourLaw) else colour_law(p)
