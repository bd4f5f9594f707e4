"""The public Python API: one name per concept, the papers' parameter order.

Every model function takes its parameters in the order the papers introduce
them -- arrival rate λ, service rate μ, cost γ, capacity K, then the crawler
count N -- and returns a dataclass with the numbers *and* how they were
obtained.  ``import crawlmath`` exposes these names lazily, so importing the
package costs nothing until one is used.

>>> import crawlmath
>>> crawlmath.static_optimum(0.01, 1, 0.5, 10).N_opt
89
>>> round(crawlmath.solve_mdp(0.1, 1, 1, 5, N=16).gain, 5)
0.20907
>>> m = crawlmath.load_bmap("avrachenkov-example.json")
>>> round(crawlmath.solve_bmap(m, modes=(3, 1), thresholds=(2,)).cost, 2)
63.54
"""
from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING, Sequence

if TYPE_CHECKING:  # pragma: no cover - for type checkers only
    from .numeric.bmap import BmapModel, Measures
    from .numeric.colours import MeanField
    from .numeric.mdp import InstanceReport
    from .numeric.scheduling import FrequencyResult
    from .numeric.static import StaticOptimum
    from .proofs.registry import Result

__all__ = [
    "static_optimum", "solve_mdp", "load_bmap", "solve_bmap", "optimal_frequencies", "mean_field_colours",
    "average_cost_mdp", "ctmc_stationary", "verify",
]


def static_optimum(lam, mu, gamma, K, *, digits: int | None = None) -> "StaticOptimum":
    """Optimal static number of crawlers of the M/M/1/K model (Liu–Nain 2005, §1.2.1, Prop. 1).

    Parameters
    ----------
    lam, mu, gamma : arrival rate λ, service rate μ, cost γ of an empty buffer: any number
        :func:`crawlmath.numeric.exact.exact` reads (int, Fraction, SymPy Rational, Decimal,
        decimal string such as "0.05" or "12/5", mpmath number, float); a float means the
        shortest decimal that prints it (2.4 is 12/5), and the result's ``inputs`` says
        ``"exact"`` or ``"shortest-decimal"``.
    K : buffer capacity (an integer ≥ 2, or ``math.inf``).
    digits : compute at this many digits in mpmath, with a proved enclosure of ρ(γ, K).

    Returns
    -------
    StaticOptimum
        ``N_opt``, ``rho_opt``, ``cost_opt``, the large-K rule ``N_approx`` (1.12), ``gamma_K``, ``method``.

    Examples
    --------
    >>> static_optimum(0.05, 1, 2.4, 15, digits=40).N_opt
    21
    """
    from .numeric.static import static_optimum as solve

    return solve(lam, mu, gamma, K, digits=digits)


def solve_mdp(lam: float, mu: float, gamma: float, K: int, N="auto", *, method: str = "exact",
              tau: float = 0.99999, reference=None, h0: str = "zero") -> "InstanceReport":
    """The dynamic crawler-activation MDP (Liu–Nain 2005, §1.2.2–1.2.3).

    Parameters
    ----------
    lam, mu, gamma, K : as in :func:`static_optimum` (exact numbers or floats read as their
        shortest decimal; the exact routes use those exact values, ``inputs`` says which).
    N : number of crawlers available, or ``"auto"`` (the smallest N that does not bind).
    method : ``"exact"`` (multichain policy iteration) or ``"rvi"`` (Proposition 6 under the
        reading that reproduces the paper's numbers: x̂ = (1,1,1), h₀ = 0; ``reference`` and
        ``h0`` choose others).

    Returns
    -------
    InstanceReport
        ``gain`` (C_d), ``n_min``, ``n_mean``, ``n_max``, ``iterations``, the solution.

    Examples
    --------
    >>> solve_mdp(0.1, 1, 1, 5, N=16, method="rvi").iterations
    254
    """
    from .numeric.mdp import analyse

    return analyse(lam, mu, K, gamma, N, method=method, tau=tau, reference=reference, h0=h0)


def load_bmap(model: "str | Path | dict", *, K: int | None = None, reduce: bool = True) -> "BmapModel":
    """A BMAP/PH/1/K model with obsolescence (Avrachenkov et al.) from a model file
    (path, or the name of a shipped one) or a dict of the same structure, checked
    against the model schema; ``K`` overrides the capacity; ``reduce`` lumps the PH
    representations exactly (default).  Numbers stay exact: a file's decimals as
    printed, a dict's int, Fraction or Decimal as given and its floats as their
    shortest decimals (0.2 is 1/5); certified values are for those exact inputs.
    The arrivals' size (``arrivals.robots``, 'independent' products) is estimated
    first and refused with `TooLarge` above ``CRAWLMATH_MAX_MEMORY`` /
    ``CRAWLMATH_MAX_SECONDS``.

    Examples
    --------
    >>> load_bmap("avrachenkov-example.json", K=30).reduction()
    'service M = 2 -> 2, obsolescence R = 2 -> 1; states 4294967294 -> 122'
    """
    from .numeric.bmap import load_model, model_from_spec, validate_spec

    from .numeric.errors import InvalidInput

    if isinstance(model, dict):
        validate_spec(model)
        return model_from_spec(model, K, reduce)
    if not isinstance(model, (str, Path)):
        raise InvalidInput("model", "must be a model file's path, a shipped model's name or a dict",
                           value=type(model).__name__)
    return load_model(model, K=K, reduce=reduce)


def solve_bmap(model: "BmapModel | str | Path", modes: Sequence[int], thresholds: Sequence[int] = (), *,
               solver: str = "auto") -> "Measures":
    """Stationary measures and cost J (eq. 2) of a threshold policy: ``modes`` the
    numbers of active robots from the empty system up, ``thresholds`` the queue
    lengths at which the mode changes (one fewer than the modes).  ``model`` is a
    `load_bmap` model, or a model file's path or shipped name (loaded with its own
    K).  The run is estimated first and refused with `TooLarge` above the limits
    (``CRAWLMATH_MAX_SECONDS`` / ``CRAWLMATH_MAX_MEMORY``, as on the command line).

    Examples
    --------
    >>> m = load_bmap("avrachenkov-example.json", K=30)
    >>> round(solve_bmap(m, (3, 1), (3,)).cost, 4)
    57.2321
    >>> round(solve_bmap("avrachenkov-example.json", (3, 1), (2,)).cost, 2)
    63.54
    """
    from .numeric import bmap as bm
    from .numeric.errors import InvalidInput

    if isinstance(model, (str, Path)):
        model = load_bmap(model)
    if not isinstance(model, bm.BmapModel):
        raise InvalidInput("model", "must be a BmapModel (load_bmap), a model file's path or a shipped model's name",
                           value=type(model).__name__)
    policy = bm.Policy(_int_tuple(modes, "modes"), _int_tuple(thresholds, "thresholds"))
    model.check_policy(policy)
    bm.require_cost(model, 1, solver)
    return bm.evaluate(model, policy, solver=solver)


def _int_tuple(values, name: str) -> tuple[int, ...]:
    """``values`` (a sequence of integers: robot counts or queue lengths) as a tuple, or `InvalidInput` naming it."""
    from .numeric.errors import InvalidInput
    from .numeric.validate import require_int

    if isinstance(values, (str, bytes, dict)) or not hasattr(values, "__iter__"):
        raise InvalidInput(name, "must be a sequence of integers", value=type(values).__name__)
    return tuple(require_int(v, f"{name}[{i}]") for i, v in enumerate(values))


def optimal_frequencies(rates: Sequence[float], access: str = "det:1", weights=None) -> "FrequencyResult":
    """Optimal crawl frequencies and the lower bound C* (Coffman–Liu–Weber 1997, Thm 3.4):
    ``rates`` the pages' change rates μ_i, ``access`` the crawl-time law (``det:T``,
    ``exp:RATE``, ``gamma:SHAPE,RATE``, ``uniform:A,B``, ``hyperexp:p1,r1,p2,r2``),
    ``weights`` c_i (default c_i = μ_i).

    Bad input raises `InvalidInput` naming the argument (complex, text, bool,
    nan or inf entries included); a number of pages whose work arrays exceed
    the memory limit raises `TooLarge` before anything is allocated.  The
    limits are ``CRAWLMATH_MAX_MEMORY`` / ``CRAWLMATH_MAX_SECONDS``, or for a
    block of calls ``with crawlmath.numeric.validate.limits(memory="64G"):``.

    Examples
    --------
    >>> r = optimal_frequencies([0.5, 1, 2], "det:1")
    >>> r.frequencies.round(6).tolist()      # ∝ ln(1/h_i) = μ_i for X = 1
    [0.142857, 0.285714, 0.571429]
    >>> try:
    ...     optimal_frequencies([1, 2], None)
    ... except Exception as exc:
    ...     print(type(exc).__name__, exc)
    InvalidInput access: must be a text such as 'det:1' or 'exp:2' (got 'NoneType')
    """
    from .commands.schedule import BYTES_PER_PAGE
    from .numeric.scheduling import AccessTime, parse_access
    from .numeric.errors import InvalidInput
    from .numeric.scheduling import make_problem, optimal_frequencies as solve
    from .numeric.validate import require_real_vector

    mu = require_real_vector(rates, "rates", bytes_per_entry=BYTES_PER_PAGE)
    c = None if weights is None else require_real_vector(weights, "weights")
    if not isinstance(access, (str, AccessTime)):
        raise InvalidInput("access", "must be a text such as 'det:1' or 'exp:2'", value=type(access).__name__)
    if isinstance(access, str):
        try:
            access = parse_access(access)
        except InvalidInput as exc:  # parse_access words its errors for the CLI's --access
            raise InvalidInput("access", exc.rule, value=exc.value, entry=exc.entry) from None
    import sys

    tiny = sys.float_info.min
    if not tiny <= access.mean <= 1 / tiny:  # the float route divides by E[X] and by 1/E[X]
        raise InvalidInput("access", f"E[X] = {access.mean!r} and 1/E[X] must be normal doubles", value=str(access))
    try:
        problem = make_problem(mu, access, c)
    except InvalidInput as exc:
        if not exc.argument.startswith("h("):
            raise
        raise InvalidInput("rates", f"h_i = E exp(-mu_i X) = {exc.value!r} must lie strictly in (0, 1) in float64: "
                                    "mu_i E[X] is too small or too large", value=float(mu[exc.entry]),
                           entry=exc.entry) from None
    return solve(problem)


def mean_field_colours(K: int, C: int) -> "MeanField":
    """The mean-field number of distinct colours among the K URLs of the workbench
    with C equally likely colours, KC/(K+C−1), and P_new (Buijsrogge 2014, Thm 4.2.1).

    The exact stationary value for any colour law p, as a rigorous ball, is
    :func:`crawlmath.numeric.colours.exact_stationary`: p may hold exact numbers (int,
    Fraction, SymPy Rational, Decimal, strings such as "0.7" or "7/10"; a float means its
    shortest decimal), or be :func:`~crawlmath.numeric.colours.colour_law_of` a Chapter 5
    law from exact parameters; the result's ``inputs`` and ``model`` say which model its
    digits are for (for uniform p it is (KC−1)/(K+C−2), not this mean field).

    Examples
    --------
    >>> round(mean_field_colours(100, 100).colours, 4)
    50.2513
    """
    from .numeric.colours import mean_field

    return mean_field(K, C)


def average_cost_mdp(P, c, digits: int | None = None, **kw):
    """See :func:`crawlmath.numeric.markov.average_cost_mdp` (reference values for your own MDP).

    P and c may hold exact numbers (int, Fraction, SymPy Rational, Decimal, strings such as
    "0.7" or "7/10"; "inf" marks an unavailable action) in lists, arrays, scipy.sparse or
    `crawlmath.numeric.exact.Triplets`; a float means its shortest decimal.  With ``digits``
    the gain is that of the exact MDP (``gain_exact`` up to 200 states, ``gain_mp``,
    ``inputs``).

    Examples
    --------
    >>> average_cost_mdp([[[1]], [[1]]], [["1/3", "0.5"]], digits=20).gain_exact
    Fraction(1, 3)
    """
    from .numeric.markov import average_cost_mdp as solve

    return solve(P, c, digits, **kw)


def ctmc_stationary(Q, digits: int | None = None, **kw):
    """See :func:`crawlmath.numeric.markov.ctmc_stationary` (reference values for your own CTMC).

    Q may hold exact numbers (int, Fraction, SymPy Rational, Decimal, strings such as "0.7"
    or "7/10") in lists, arrays, scipy.sparse or `crawlmath.numeric.exact.Triplets`; a float
    means its shortest decimal.  With ``digits`` π is that of the exact chain (``pi_exact``
    up to 200 states, ``pi_mp``, ``inputs``).

    Examples
    --------
    >>> ctmc_stationary([[-1, 1], ["7/10", "-0.7"]], digits=20).pi_exact
    [Fraction(7, 17), Fraction(10, 17)]
    """
    from .numeric.markov import ctmc_stationary as solve

    return solve(Q, digits, **kw)


def verify(*prefixes: str, quick: bool = False) -> "list[Result]":
    """Run the registered claims whose ids start with any of ``prefixes`` (all when none).

    Examples
    --------
    >>> {r.claim.id: r.outcome.status.value for r in verify("coffman.sched.lemma-4.1.small-f")}
    {'coffman.sched.lemma-4.1.small-f': 'ERRATUM'}
    """
    from .numeric.errors import InvalidInput
    from .proofs.registry import run, select

    for i, p in enumerate(prefixes):
        if not isinstance(p, str):
            raise InvalidInput("prefixes", "must be claim-id prefixes (text)", value=type(p).__name__, entry=i)
    if not isinstance(quick, bool):
        raise InvalidInput("quick", "must be True or False", value=quick)
    claims = select(prefixes, quick=quick)
    if not claims:
        raise InvalidInput("prefixes", "match no claim id", value=list(prefixes))
    return run(claims)
