r"""Derivations for the BUbiNG workbench game without offline structure
(Buijsrogge 2014, Chapters 3–4).

Notation of the thesis: ``K`` positions in the online structure (workbench),
``C`` colours (hosts), ``p_i`` the probability that the source (sieve) draws
colour ``i``; ``N(i, t)`` is the number of colours with ``i`` balls online,
``S = \sum_{j\ge1} N(j, t)`` the number of colours online, ``nu(i)`` the
mean-field value of ``N(i)`` and ``P_new`` the probability that the next
drawn ball has a colour absent from the online structure.

Chapter 4 derives from a model object: a :class:`WorkbenchModel` states the
game (K, C, the draw law p, the removal rule), :data:`PAPER` being the
thesis's.  One function, :func:`step`, composes a time step from the rules;
from it are built

1. the exact chain (:func:`transitions`, :func:`chain`, solved in rationals
   by :func:`chain_stationary`) and its drift (:func:`state_drift`);
2. the mean-field drift of the occupancy counts (:func:`occupancy_drift`,
   :func:`drift_lines`), equal to the chain's drift on every state, whose
   stationary point gives ν(i), S = KC/(K+C-1) and P_new (Theorem 4.2.1,
   :func:`mean_field_nu_of_S`, :func:`normalisation_S`); the printed (4.1)
   is only compared (:func:`printed_lines_residuals`);
3. the exact stationary law by detailed balance of the rules, for all K, C
   and symbolic p (:func:`colour_factor`, :func:`product_form_law`), and
   Kolmogorov's criterion on instances (:func:`reversible_law`).

A modified model gets its own answer or a :class:`DerivationError` naming
the step that fails, never the thesis's answer:

>>> import sympy as sp
>>> K, C = sp.symbols("K C", positive=True)
>>> mean_field_colours(K, C)
C*K/(C + K - 1)
>>> sp.simplify(mean_field_p_new(K, C) - (C - 1)/(K + C - 1))
0
>>> ball = WorkbenchModel(removal="ball")   # a uniformly random ball leaves: multinomial law
>>> colour_factor(ball)
1/(C**n*factorial(n))
>>> mean_field_nu_of_S(ball)   # binomial occupancy; its S is C(1 - (1 - 1/C)^K), eq. (3.1)
(C - S)*binomial(K, i)/(C - 1)**i
>>> try:
...     mean_field_colours(model=WorkbenchModel(colours=3, draw=(sp.Rational(1, 2), sp.Rational(1, 3), sp.Rational(1, 6))))
... except DerivationError as exc:
...     print(str(exc)[:97])
the occupancy drift: the occupancy counts N(i) describe the chain only when all colours are alike
"""
from __future__ import annotations

import dataclasses
import functools
from dataclasses import dataclass
from fractions import Fraction

import sympy as sp
from sympy.codegen.cfunctions import log1p
from sympy.codegen.rewriting import expm1_opt, optimize

from . import DerivationError, only_root, require_zero, vanishes_identically
from .formula import Formula, assumed, derived

K, C, S, i, a, lam, x = sp.symbols("K C S i a lambda x", positive=True)
CITE = "(Buijsrogge 2014, {})"


def expected_colours_at_K(p: list, K_):
    r"""Lemma 3.2.1, eq. (3.1): :math:`E[\sum_j N(j,K)] = C - \sum_i (1-p_i)^K`.

    >>> expected_colours_at_K([sp.Rational(1, 2)] * 2, 2)
    3/2
    """
    return len(p) - sum((1 - pi) ** K_ for pi in p)


def expected_colours_uniform(K_=K, C_=C):
    r"""Corollary 3.2.1: (3.1) with :math:`p_i = 1/C`, summed over the C
    colours by SymPy: :math:`C(1 - (1 - 1/C)^K)`.

    >>> expected_colours_uniform(2, 2)
    3/2
    >>> expected_colours_uniform()
    C*(1 - (1 - 1/C)**K)
    """
    colour = sp.Symbol("colour", integer=True, positive=True)
    per_colour = colour_drawn_probability().subs(pcol, 1 / C)
    return sp.summation(per_colour, (colour, 1, C)).subs({K: K_, C: C_}, simultaneous=True)


pcol = sp.Symbol("p", positive=True)  # the probability p_i of one colour


def colour_drawn_probability():
    r"""Lemma 3.2.1 for one colour: P(drawn at least once in K independent
    draws) = 1 - :math:`\prod_{t=1}^K (1-p)` = :math:`1-(1-p)^K`; summed
    over the colours it is (3.1).

    >>> colour_drawn_probability()
    1 - (1 - p)**K
    """
    draw = sp.Symbol("t", integer=True, positive=True)
    return 1 - sp.product(1 - pcol, (draw, 1, K))


def colour_drawn_probability_stable():
    r""":func:`colour_drawn_probability` with :math:`(1-p)^K = e^{K\,\mathrm{log1p}(-p)}`
    and SymPy's ``expm1_opt``: no cancellation for small p.

    >>> colour_drawn_probability_stable()
    -expm1(K*log1p(-p))
    """
    expr = colour_drawn_probability()
    expr = expr.replace(lambda e: e.is_Pow and e.exp == K, lambda e: sp.exp(K * log1p(sp.expand(e.base - 1))))
    return optimize(expr, [expm1_opt])


def expected_colours_uniform_stable():
    r"""Corollary 3.2.1 for floating point: :math:`(1+a)^K = e^{K\,\mathrm{log1p}(a)}`
    with :math:`a = -1/C`, then SymPy's ``expm1_opt``: no cancellation for C >> K.

    >>> expected_colours_uniform_stable()
    -C*expm1(K*log1p(-1/C))
    """
    expr = expected_colours_uniform()
    expr = expr.replace(lambda e: e.is_Pow and e.exp == K, lambda e: sp.exp(K * log1p(sp.expand(e.base - 1))))
    return optimize(sp.expand(expr), [expm1_opt])


def expansion_C_equals_K(order: int = 2):
    r"""Eq. (3.2): :math:`K(1-(1-1/K)^K)` for large K, as a series in 1/K
    (``order`` terms after the leading K): ``K(1-1/e) + 1/(2e) + 5/(24eK) + ...``.

    >>> e = expansion_C_equals_K(2)
    >>> sp.simplify(e - (K*(1 - sp.exp(-1)) + sp.exp(-1)/2 + 5*sp.exp(-1)/(24*K)))
    0
    """
    u = sp.Symbol("u", positive=True)  # u = 1/K
    expr = (1 - (1 - u) ** (1 / u)) / u
    ser = sp.series(expr, u, 0, order).removeO()
    return sp.expand(sp.simplify(ser.subs(u, 1 / K)))


def lagrangian_gradient(K_=K):
    r"""Theorem 3.2.1: :math:`\partial/\partial p_i` of the objective
    :math:`C - \sum (1-p_i)^K`, i.e. :math:`K(1-p_i)^{K-1}` (the thesis prints
    the factor ``K-1``).

    >>> lagrangian_gradient(3)[0]
    3*(1 - p_i)**2
    """
    p = sp.Symbol("p_i", positive=True)
    return sp.diff(-(1 - p) ** K_, p), p


# --- the model: the rules of the workbench game, written once ----------------
#
# Chapter 4's game without offline structure (§4.1): every time step one ball of
# a colour present on the workbench is removed, then one ball drawn from the
# source (colour c with probability p_c) is added.  A WorkbenchModel states the
# removal rule as a propensity: colour c with q_c balls loses a ball with
# probability g_c(q_c) / sum_d g_d(q_d).  `step` is the only place where a
# time step is composed; the exact chain (`transitions`) and the mean field
# (`occupancy_drift`) both call it, so changing a rule changes both.

REMOVAL_RULES = ("colour", "ball", "longest")
k_ = sp.Symbol("k", integer=True, nonnegative=True)  # a queue length in the drift of N(k)
m_ = sp.Symbol("m", integer=True, nonnegative=True)  # k = m + 2: an interior line of the drift
p_i, p_j, w_i, w_j = sp.symbols("p_i p_j w_i w_j", positive=True)  # a generic pair of colours
G_q, G_r = sp.symbols("G_q G_r", positive=True)  # total removal propensity before and after a move
q_i, q_j = sp.symbols("q_i q_j", integer=True, nonnegative=True)  # their queue lengths
n_ = sp.Symbol("n", integer=True, nonnegative=True)  # a queue length, argument of a colour factor


@dataclass(frozen=True)
class WorkbenchModel:
    r"""The BUbiNG workbench game without offline structure (Buijsrogge 2014,
    Ch. 2 rules and §4.1): ``slots`` K balls on the workbench, ``colours`` C
    colours, the source draws colour c with probability ``draw[c]`` (None:
    uniform, :math:`p_c = 1/C`, §4.2; ``"any"``: a generic law, symbols
    :math:`p_1..p_C`), and ``removal`` says which present
    colour loses a ball, as a propensity :math:`g_c(n)` of a colour with n
    balls (the removed colour is c with probability :math:`g_c(q_c)/\sum_d g_d(q_d)`):

    - ``"colour"`` (the thesis): "one of the colors present ... is chosen
      uniformly at random", :math:`g_c(n) = w_c 1(n\ge1)`, ``weights`` w
      (None: all 1; other weights are a modified model);
    - ``"ball"``: a uniformly random ball, :math:`g_c(n) = n` (a modified model);
    - ``"longest"``: a longest queue, ties uniformly (a modified model whose
      propensity depends on the other colours).

    ``redraw`` (a modified model): when the drawn colour is present after the
    removal the source draws once more and keeps the second ball, so colour c
    joins with probability :math:`p_c(P + 1(c\ absent))`, P the present mass.

    >>> WorkbenchModel().propensity(3)
    1
    >>> WorkbenchModel(removal="ball").propensity(3)
    3
    >>> WorkbenchModel(colours=2, draw=(sp.Rational(1, 3), sp.Rational(1, 2)))
    Traceback (most recent call last):
    ...
    ValueError: WorkbenchModel: draw must be C = 2 positive probabilities summing to 1, got (1/3, 1/2)
    """
    slots: sp.Expr = K
    colours: sp.Expr = C
    draw: tuple | None = None
    removal: str = "colour"
    weights: tuple | None = None
    redraw: bool = False

    def __post_init__(self):
        for name in ("slots", "colours"):
            value = sp.sympify(getattr(self, name))
            if not (value in (K, C) or (value.is_Integer and value >= 1)):
                raise ValueError(f"WorkbenchModel: {name} must be the symbol {name[0].upper()} or an integer >= 1, got {value}")
            object.__setattr__(self, name, value)
        if self.removal not in REMOVAL_RULES:
            raise ValueError(f"WorkbenchModel: removal must be one of {REMOVAL_RULES}, got {self.removal!r}")
        if self.weights is not None and self.removal != "colour":
            raise ValueError("WorkbenchModel: weights belong to the 'colour' removal rule")
        for name, total in (("draw", 1), ("weights", None)):
            values = getattr(self, name)
            if values is None or (name == "draw" and values == "any"):
                continue
            values = tuple(sp.nsimplify(v) for v in values)
            if not (self.colours.is_Integer and len(values) == self.colours and all(v.is_positive for v in values)
                    and (total is None or sum(values) == total)):
                rule = "positive probabilities summing to 1" if total else "positive weights"
                raise ValueError(f"WorkbenchModel: {name} must be C = {self.colours} {rule}, got {getattr(self, name)}")
            object.__setattr__(self, name, values)

    @property
    def exchangeable(self) -> bool:
        """True when every colour has the same draw probability and the same propensity."""
        return (self.draw is None or (self.draw != "any" and len(set(self.draw)) == 1)) and (self.weights is None or len(set(self.weights)) == 1)

    @property
    def local(self) -> bool:
        """True when a colour's propensity depends on its own queue length only."""
        return self.removal != "longest"

    def p(self, colour) -> sp.Expr:
        """:math:`p_c` of colour index ``colour``, or for a generic colour (a
        symbol) that symbol (1/C when the draw is uniform)."""
        if self.draw is None:
            return 1 / self.colours
        if isinstance(colour, int):
            return sp.Symbol(f"p{colour + 1}", positive=True) if self.draw == "any" else self.draw[colour]
        return colour

    def propensity(self, length, colour=None, longest=None) -> sp.Expr:
        r""":math:`g_c(n)` at ``length`` n for ``colour`` c (an index, or a
        weight symbol for a generic colour); ``longest`` is the longest queue
        of the state (the ``"longest"`` rule only).  A symbolic length gives a
        Piecewise on :math:`n \ge 1`."""
        length = sp.sympify(length)
        if self.removal == "ball":
            return length
        if self.removal == "longest":
            if longest is None:
                raise DerivationError("the 'longest' removal rule needs the whole state: its propensity is not a "
                                      "function of the colour's own queue length")
            return sp.Integer(1 if length == longest and bool(length >= 1) else 0)
        weight = self.weights[colour] if isinstance(colour, int) and self.weights is not None else (
            colour if isinstance(colour, sp.Symbol) and self.weights is not None else sp.Integer(1))
        return sp.Piecewise((weight, sp.Ge(length, 1)), (0, True))

    def total_propensity(self) -> sp.Expr:
        r""":math:`G = \sum_a N(a) g(a)` for exchangeable colours, in the
        mean-field variables: S (colours present) for the colour rule, K
        (balls are conserved, :math:`\sum_a a N(a) = K`) for the ball rule."""
        if not self.local:
            raise DerivationError("the total removal propensity of the 'longest' rule is not a function of S and K")
        return S if self.removal == "colour" else self.slots


PAPER = WorkbenchModel()  # the thesis's game: colours drawn uniformly, a present colour removed uniformly


def step(classes, total, join=None):
    r"""One time step of §4.1 on a state given as classes of identical colours,
    each ``(count, draw, propensity)``: ``count`` colours, each drawn with
    probability ``draw``, the class losing a ball with total propensity
    ``propensity`` (out of ``total``).  First a ball leaves class r (probability
    propensity_r / total), then a drawn ball joins either another colour of class
    t (:math:`(count_t - 1(t = r))\,draw_t`) or the colour that just lost one
    (its own draw probability, target None).  ``join(r, t)``, when given,
    replaces the draw probability of one colour of class t (None: the removed
    colour) after a removal from class r (a draw that depends on the state).
    Yields (r, t, probability).

    >>> [(r, t, pr) for r, t, pr in step([(1, sp.Rational(1, 2), 1), (1, sp.Rational(1, 2), 1)], 2)]
    [(0, 0, 0), (0, 1, 1/4), (0, None, 1/4), (1, 0, 1/4), (1, 1, 0), (1, None, 1/4)]
    """
    join = join or (lambda r, t: classes[r if t is None else t][1])
    for r, (_, _, prop_r) in enumerate(classes):
        if prop_r == 0:
            continue
        leave = sp.sympify(prop_r) / total
        for t, (count_t, _, _) in enumerate(classes):
            yield r, t, leave * (count_t - (1 if t == r else 0)) * join(r, t)
        yield r, None, leave * join(r, None)


def transitions(model: WorkbenchModel, q: tuple) -> dict:
    r"""The exact chain of ``model`` (§4.1, state :math:`q = (q_1..q_C)`, the
    balls of each colour): ``{successor: probability}`` from :func:`step` with
    one class per colour.

    >>> transitions(WorkbenchModel(slots=2, colours=2), (2, 0))
    {(1, 1): 1/2, (2, 0): 1/2}
    """
    longest = max(q)
    classes = [(1, model.p(c), model.propensity(n, c, longest)) for c, n in enumerate(q)]

    def redraw(r, t):  # the draw after removing a ball of colour r: present colours are drawn only at the second try
        after = [n - (c == r) for c, n in enumerate(q)]
        present = sum(model.p(c) for c, n in enumerate(after) if n)
        target = r if t is None else t
        return model.p(target) * (present + (0 if after[target] else 1))

    out: dict = {}
    for r, t, pr in step(classes, sum(prop for _, _, prop in classes), redraw if model.redraw else None):
        nxt = list(q)
        nxt[r] -= 1
        nxt[r if t is None else t] += 1
        if pr != 0:
            out[tuple(nxt)] = out.get(tuple(nxt), 0) + pr
    return out


def _instance(model: WorkbenchModel) -> tuple[int, int]:
    if not (model.slots.is_Integer and model.colours.is_Integer):
        raise ValueError(f"an instance needs integer slots and colours, got K = {model.slots}, C = {model.colours}")
    return int(model.slots), int(model.colours)


def chain(model: WorkbenchModel) -> tuple[list, dict]:
    """States (compositions of K into C parts) and ``{state: transitions}`` of an integer instance.

    >>> states, P = chain(WorkbenchModel(slots=2, colours=2))
    >>> states, P[(1, 1)]
    ([(2, 0), (1, 1), (0, 2)], {(0, 2): 1/4, (1, 1): 1/2, (2, 0): 1/4})
    """
    K_, C_ = _instance(model)
    states = list(_compositions(K_, C_))
    return states, {q: transitions(model, q) for q in states}


def chain_stationary(model: WorkbenchModel) -> dict:
    r"""The stationary law of an integer instance by solving :math:`\pi P = \pi`,
    :math:`\sum\pi = 1` in exact rationals (Gauss–Jordan on Fractions): no
    structure assumed, the reference every derived law is compared with.

    >>> chain_stationary(WorkbenchModel(slots=2, colours=2))
    {(2, 0): 1/4, (1, 1): 1/2, (0, 2): 1/4}
    """
    states, P = chain(model)
    index = {q: n for n, q in enumerate(states)}
    size = len(states)
    # rows: (P^T - I) pi = 0 for all states but the last, then sum pi = 1
    rows = [[Fraction(0)] * (size + 1) for _ in range(size)]
    for q, out in P.items():
        for nxt, pr in out.items():
            if index[nxt] < size - 1:
                rows[index[nxt]][index[q]] += Fraction(int(sp.numer(pr)), int(sp.denom(pr)))
    for n in range(size - 1):
        rows[n][n] -= 1
    rows[-1] = [Fraction(1)] * (size + 1)
    for col in range(size):
        pivot = next((r for r in range(col, size) if rows[r][col] != 0), None)
        if pivot is None:
            raise DerivationError(f"the chain of K = {model.slots}, C = {model.colours} has no unique stationary law "
                                  "(more than one closed class)")
        rows[col], rows[pivot] = rows[pivot], rows[col]
        lead = rows[col][col]
        rows[col] = [v / lead for v in rows[col]]
        for r in range(size):
            if r != col and rows[r][col] != 0:
                f = rows[r][col]
                rows[r] = [v - f * u for v, u in zip(rows[r], rows[col])]
    return {q: sp.Rational(rows[index[q]][size].numerator, rows[index[q]][size].denominator) for q in states}


# --- the mean field: the drift of the occupancy counts, from the same step ---

n_lo, n_k, n_hi = sp.symbols("n0 n1 n2")  # nu(k-1), nu(k), nu(k+1): the classes that can change N(k)


def occupancy(q: tuple, K_: int) -> list:
    """:math:`N(k)` = the number of colours with k balls, k = 0..K, of a state q.

    >>> occupancy((2, 0, 1), 3)
    [1, 1, 1, 0]
    """
    return [sum(1 for v in q if v == k) for k in range(K_ + 1)]


def state_drift(model: WorkbenchModel, q: tuple) -> dict:
    r""":math:`E[N(k,t+1) - N(k,t) \mid q(t) = q]`, k = 0..K, summed over the
    exact chain's :func:`transitions` from q: the drift of the chain itself.

    >>> state_drift(WorkbenchModel(slots=2, colours=3), (1, 1, 0))
    {0: 1/3, 1: -2/3, 2: 1/3}
    """
    K_, _ = _instance(model)
    before = occupancy(q, K_)
    out = {k: sp.Integer(0) for k in range(K_ + 1)}
    for r, pr in transitions(model, q).items():
        for k, (new, old) in enumerate(zip(occupancy(r, K_), before)):
            out[k] += pr * (new - old)
    return out


def drift_at(model: WorkbenchModel, q: tuple) -> dict:
    r"""The mean-field drift :func:`occupancy_drift` evaluated at the occupancy
    of a state q, k = 0..K (S = the colours present): equal to
    :func:`state_drift` on every state, which links the mean-field ODE to the
    chain.

    >>> drift_at(WorkbenchModel(slots=2, colours=3), (1, 1, 0))
    {0: 1/3, 1: -2/3, 2: 1/3}
    """
    K_, C_ = _instance(model)
    N = occupancy(q, K_) + [0]
    generic = occupancy_drift(_exchangeable_symbolic(model))
    S_ = C_ - N[0]
    out = {}
    for k in range(K_ + 1):
        at = {k_: k, n_lo: N[k - 1] if k else 0, n_k: N[k], n_hi: N[k + 1], S: S_, C: C_, K: K_}
        out[k] = sp.nsimplify(sp.piecewise_fold(generic.subs(at)))
    return out


def _exchangeable_symbolic(model: WorkbenchModel) -> WorkbenchModel:
    """The same game with symbolic K, C and the uniform draw and unit weights
    it has when its colours are alike (equal weights cancel in the removal)."""
    _require_exchangeable(model, "the occupancy drift")
    return dataclasses.replace(model, slots=K, colours=C, draw=None, weights=None)


def _require_exchangeable(model: WorkbenchModel, what: str) -> None:
    if not model.exchangeable:
        raise DerivationError(f"{what}: the occupancy counts N(i) describe the chain only when all colours are "
                              f"alike (uniform draw, one removal weight); this model has draw {model.draw} and "
                              f"weights {model.weights} (its exact law: product_form_law)")


@functools.cache
def occupancy_drift(model: WorkbenchModel = PAPER) -> sp.Expr:
    r""":math:`E[N(k,t+1) - N(k,t) \mid N(t) = \nu]` for a generic length k,
    built by :func:`step` from the model's rules on the occupancy classes
    k-1, k, k+1 (counts ``n0, n1, n2``) and the rest of the colours (count
    :math:`C - n_0 - n_1 - n_2`, propensity :math:`G - \sum` local), with
    :math:`G` = :meth:`WorkbenchModel.total_propensity`.  A ball leaving
    class k+1 adds one to N(k), one leaving class k takes one away; a drawn
    ball joining class k-1 adds one, joining class k takes one away; a ball
    returning to the colour that just lost one changes nothing; the rest
    cannot reach or leave length k in one step.  As a function of a real
    :math:`\nu` this is the right-hand side of the mean-field ODE
    :math:`\dot\nu = F(\nu)` (the thesis's closure: every :math:`N` replaced
    by the constant :math:`\nu`, §4.2).

    >>> sp.factor(occupancy_drift().subs({k_: 2}))
    (-C*n1 + C*n2 + S*n0 - S*n1 - n0 + 2*n1 - n2)/(C*S)
    """
    _require_exchangeable(model, "the occupancy drift")
    if model.weights is not None:
        model = dataclasses.replace(model, weights=None)  # equal weights cancel in the removal
    if model.redraw:
        raise DerivationError("the occupancy drift: the redraw rule's draw depends on the present mass after the "
                              "removal, which the classes k-1, k, k+1 and the rest do not carry (not derived)")
    total = model.total_propensity()
    draw = 1 / model.colours
    local = [(count, draw, count * model.propensity(k_ + offset)) for offset, count in zip((-1, 0, 1), (n_lo, n_k, n_hi))]
    rest = (model.colours - n_lo - n_k - n_hi, draw, total - sum(prop for _, _, prop in local))
    leave_effect = (0, -1, 1, 0)  # on N(k), a ball leaving class k-1, k, k+1, rest
    join_effect = (1, -1, 0, 0)  # on N(k), a ball joining another colour of class k-1, k, k+1, rest
    drift = sp.Integer(0)
    for r, t, pr in step(local + [rest], total):
        if t is not None:
            drift += pr * (leave_effect[r] + join_effect[t])
    return drift


@functools.cache
def drift_lines(model: WorkbenchModel = PAPER) -> tuple:
    r"""The drift of :func:`occupancy_drift` at the boundary and interior
    lengths: (k = 0, k = 1, k = m + 2 >= 2, k = K), with
    :math:`\nu(-1) = \nu(K+1) = 0` and :math:`\nu(0) = C - S` substituted; each
    in ``n0, n1, n2`` = :math:`\nu(k-1), \nu(k), \nu(k+1)` and S, except line 0,
    written in ``n1`` = :math:`\nu(1)` as (4.1) writes it.  For the
    thesis's model the first three are the right-hand sides of (4.1) minus
    :math:`\nu(k)` (:func:`printed_mean_field_equations`), the K-line differs
    off the reachable states (:func:`k_line_discrepancy`).

    >>> drift_lines()[0]
    -1 + n1/S + S/C - n1/(C*S)
    """
    F = occupancy_drift(model)
    absent = model.colours - S
    # line 0 is written in nu(1) (symbol n1), as (4.1) writes it
    lines = (F.subs({k_: 0, n_lo: 0}).subs(n_k, absent).subs(n_hi, n_k), F.subs(k_, 1).subs(n_lo, absent),
             F.subs(k_, m_ + 2), F.subs({k_: m_ + 2, n_hi: 0}).subs(m_, model.slots - 2))  # K >= 2: lengths K-1, K >= 1
    return tuple(sp.expand(sp.piecewise_fold(line)) for line in lines)


def printed_mean_field_equations():
    r"""The thesis's stationary mean-field equations, typed from (4.1) with
    :math:`N(i)` replaced by :math:`\nu(i)` and :math:`E[N(i,t+1)] = E[N(i,t)]`
    (§4.2): (eq0, eq1, eq_i, eq_K) as expressions equal to 0 in
    ``n0, n1, n2`` = :math:`\nu(i-1), \nu(i), \nu(i+1)` and S.  Reference
    only: the derivation uses :func:`drift_lines`; compared in
    :func:`printed_lines_residuals`.

    >>> printed_mean_field_equations()[0][0]
    -1 + n1/S + S/C - n1/(C*S)
    """
    n0, n1, n2 = n_lo, n_k, n_hi
    eq0 = n1 / S + S / C - n1 / (S * C) - 1
    eq1 = 2 * n1 / (C * S) - n1 / S - n1 / C + n2 / S - n2 / (C * S) + 1 - S / C
    eqi = 2 * n1 / (C * S) - n1 / S - n1 / C + n2 / S - n2 / (C * S) + n0 / C - n0 / (C * S)
    eqK = n1 / (C * S) - n1 / S + n0 / C - n0 / (C * S)
    return (eq0, eq1, eqi, eqK), (n0, n1, n2)


def printed_lines_residuals(model: WorkbenchModel = PAPER) -> tuple:
    r"""Derived drift lines minus the printed (4.1) lines, the interior line at
    i = m + 2: (0, 0, 0, d_K) for the thesis's model, where
    :math:`d_K = -\nu(K)(S-1)/(CS)` vanishes on every reachable state
    (:math:`N(K) \ge 1` forces S = 1) but not on the mean-field solution: the
    printed K-line is the one the geometric solution satisfies.

    >>> printed_lines_residuals()
    (0, 0, 0, -n1*(S - 1)/(C*S))
    """
    return tuple(sp.factor(sp.simplify(d - p)) for d, p in zip(drift_lines(model), printed_mean_field_equations()[0]))


@functools.cache
def mean_field_nu_of_S(model: WorkbenchModel = PAPER):
    r"""Solve the stationary mean field :math:`F(\nu) = 0` of
    :func:`drift_lines` for :math:`\nu(i)`, i >= 1, given S: line 0 for
    :math:`\nu(1)` (the thesis's (4.2)), line 1 for :math:`\nu(2)` ((4.3)),
    and the interior lines, a second-order linear recurrence ((4.4)), by
    ``rsolve`` from these two values (else its hypergeometric solution,
    :func:`_hypergeometric_branch`).  The K-line is not imposed: the thesis
    solves the recurrence for all i and normalises with an infinite sum
    (:func:`normalisation_S`), i.e. it takes the workbench as unbounded in
    the recurrence (its K-line, printed differently, holds on the solution:
    :func:`printed_lines_residuals`).  Raises :class:`DerivationError`
    naming the step that has no unique solution for the model.

    >>> sp.factor(mean_field_nu_of_S())
    S*((S - 1)/(C - 1))**(i - 1)*(C - S)/(C - 1)
    """
    return _nu_from_lines(drift_lines(model))


def _nu_from_lines(lines) -> sp.Expr:
    eq0, eq1, eqi, _ = lines
    nu1 = only_root(sp.solve(eq0, n_k), "mean field, line 0 (4.2): the drift of N(0) for nu(1)")
    nu2 = only_root(sp.solve(eq1.subs(n_k, nu1), n_hi), "mean field, line 1 (4.3): the drift of N(1) for nu(2)")
    v = sp.Function("v")
    # rsolve's v(m) stands for nu(m + 1): the interior line at k = m + 2 links nu(m+1), nu(m+2), nu(m+3).
    recurrence = sp.numer(sp.together(eqi.subs({n_lo: v(m_), n_k: v(m_ + 1), n_hi: v(m_ + 2)})))
    sol = sp.rsolve(recurrence, v(m_), {v(0): nu1, v(1): nu2})
    if sol is None:
        nu_i = _hypergeometric_branch(recurrence, v, nu1, nu2)
    else:
        nu_i = sp.simplify(sp.powsimp(sp.expand_power_exp(sol.subs(m_, i - 1)), force=True))
    for at, want in ((1, nu1), (2, nu2)):
        require_zero(sp.simplify(nu_i.subs(i, at) - want), f"mean field: the recurrence's solution at i = {at}")
    return nu_i


def _hypergeometric_branch(recurrence, v, nu1, nu2) -> sp.Expr:
    r"""When ``rsolve`` finds no closed form: the hypergeometric solutions of
    the recurrence (``rsolve_hyper``); with one, h, the solution through
    :math:`\nu(1), \nu(2)` is :math:`\nu(1)h(i-1)/h(0)` provided
    :math:`\nu(2)/\nu(1) = h(1)/h(0)` identically in S (checked), its
    Gamma ratios written as binomials.  Raises naming the step otherwise."""
    from sympy.solvers.recurr import rsolve_hyper

    coefficients = [sp.expand(recurrence).coeff(v(m_ + j)) for j in range(3)]
    h = rsolve_hyper(coefficients, 0, m_)
    constants = sorted((c for c in (h.free_symbols if h is not None else ()) if c.name.startswith("C")
                        and c not in (C, S)), key=str)
    if h is None or len(constants) != 1:
        raise DerivationError(f"mean field, interior lines (4.4): neither rsolve nor rsolve_hyper gives one solution "
                              f"of the recurrence {recurrence} = 0 (hypergeometric part: {h})")
    h = h.subs(constants[0], 1)
    require_zero(sp.simplify(nu2 / nu1 - sp.combsimp(h.subs(m_, 1) / h.subs(m_, 0))),
                 "mean field, interior lines (4.4): the hypergeometric solution through nu(1) also through nu(2)")
    Ki, ii = sp.Symbol("K", integer=True, positive=True), sp.Symbol("i", integer=True, positive=True)
    nu_i = sp.simplify(sp.combsimp(nu1 * h.subs(m_, i - 1) / h.subs(m_, 0))).subs({K: Ki, i: ii})
    # (-x)^i Gamma(i - K)/(Gamma(-K) i!) = x^i binomial(K, i): rising factorial of -K, then falling of K
    nu_i = nu_i.replace(lambda e: e.is_Pow and e.exp == ii and e.base.could_extract_minus_sign(),
                        lambda e: (-1) ** ii * (-e.base) ** ii)
    nu_i = nu_i.replace(lambda e: isinstance(e, sp.gamma) and e.args[0] == ii - Ki, lambda e: sp.rf(-Ki, ii) * sp.gamma(-Ki))
    nu_i = sp.simplify(sp.simplify(nu_i).subs(sp.rf(-Ki, ii), (-1) ** ii * sp.ff(Ki, ii)).rewrite(sp.gamma)).rewrite(sp.binomial)
    return sp.simplify(nu_i).subs({Ki: K, ii: i})


@functools.cache
def normalisation_S(model: WorkbenchModel = PAPER):
    r"""Theorem 4.2.1: solve :math:`\sum_{i\ge1} i\,\nu(i) = K` for S, the
    sum evaluated by ``summation`` over i >= 1 (the thesis's infinite-sum
    approximation, convergent since :math:`|S-1| < C-1`); for the thesis's
    model the root is :math:`KC/(K+C-1)`.  When :math:`\nu(i)` is not
    geometric (the ``"ball"`` rule: binomial) the sum is the finite one over
    i = 1..K.  Returns the list of roots.

    >>> normalisation_S()
    [C*K/(C + K - 1)]
    """
    return _normalisation_roots(mean_field_nu_of_S(model), S, model.slots)


def _normalisation_roots(nu_i, colours_present, balls) -> list:
    first, ratio_ = nu_i.subs(i, 1), sp.simplify(nu_i.subs(i, i + 1) / nu_i)
    if ratio_.has(i):
        return _finite_normalisation_roots(nu_i, colours_present, balls)
    xr = sp.Symbol("x", positive=True)  # the ratio (S-1)/(C-1), in (0, 1)
    series = sp.piecewise_fold(sp.summation(i * xr ** (i - 1), (i, 1, sp.oo)))
    if isinstance(series, sp.Piecewise):
        series = series.args[0][0]  # the branch |x| < 1
    if series.has(sp.Sum):
        raise DerivationError(f"the normalisation sum was not evaluated: {series}")
    total = first * series.subs(xr, ratio_)
    return [sp.factor(root) for root in sp.solve(sp.Eq(total, balls), colours_present)]



def _finite_normalisation_roots(nu_i, colours_present, balls) -> list:
    r""":math:`\sum_{i=1}^{K} i\,\nu(i) = K` by ``summation`` when
    :math:`\nu(i)` is not geometric (a law on 0..K: no infinite-sum step),
    the branch C >= 2 of SymPy's answer; raises when the sum stays unevaluated."""
    Ki, ii = sp.Symbol("K", integer=True, positive=True), sp.Symbol("i", integer=True, positive=True)
    total = sp.piecewise_fold(sp.summation((i * nu_i).subs({K: Ki, i: ii}), (ii, 1, Ki)))
    if isinstance(total, sp.Piecewise):
        total = total.args[0][0]  # the branch 1/(C - 1) <= 1
    if total.has(sp.Sum):
        raise DerivationError(f"mean field, normalisation: nu(i) is not geometric and sum i nu(i) was not evaluated: {total}")
    return [sp.factor(root) for root in sp.solve(sp.Eq(total.subs(Ki, K), balls), colours_present)]

a_, s_, kappa, gamma_ = sp.symbols("a s kappa gamma", positive=True)  # scale, and S, K, C per unit of scale


@functools.cache
def fluid_drift_lines(model: WorkbenchModel = PAPER) -> tuple:
    r"""Kurtz's density-dependent limit of the drift: with
    :math:`\nu = a x`, S = a s, K = a\kappa, C = a\gamma, the per-step drift
    of :func:`drift_lines` (O(1) while N is O(a); time scaled by a) tends to
    the fluid drift f(x) as :math:`a\to\infty`, by ``limit``: lines 0, 1 and
    interior, in ``n0, n1, n2`` (now x) and s, kappa, gamma.  The thesis's
    closure keeps the finite-C drift; the two agree to leading order
    (:func:`fluid_colours`).

    >>> fluid_drift_lines()[2]
    (-gamma*n1 + gamma*n2 + n0*s - n1*s)/(gamma*s)
    """
    scale = {n_lo: a_ * n_lo, n_k: a_ * n_k, n_hi: a_ * n_hi, S: a_ * s_, K: a_ * kappa, C: a_ * gamma_}
    return tuple(sp.factor(sp.limit(line.subs(scale, simultaneous=True), a_, sp.oo))
                 for line in drift_lines(model)[:3]) + (None,)


def fluid_colours(model: WorkbenchModel = PAPER) -> sp.Expr:
    r"""The fixed point of the fluid drift, solved by the same steps as the
    mean field (lines 0, 1, the interior recurrence, :math:`\sum i x_i = \kappa`):
    colours per unit of scale :math:`s = \kappa\gamma/(\kappa+\gamma)`, the
    leading term of KC/(K+C-1) when K, C grow together.

    >>> fluid_colours()
    gamma*kappa/(gamma + kappa)
    """
    nu_i = _nu_from_lines(fluid_drift_lines(model))
    return only_root(_normalisation_roots(nu_i, s_, kappa), "fluid limit normalisation")


def mean_field_instance(model: WorkbenchModel) -> list:
    r"""The stationary mean field of an integer instance without the
    infinite-buffer step: :math:`F_k(\nu) = 0` for k = 0..K (the drift of
    :func:`occupancy_drift` at every length, boundary lines included) with
    :math:`\sum_k \nu(k) = C`, :math:`\sum_k k\,\nu(k) = K`, :math:`S = \sum_{k\ge1}\nu(k)`, solved
    exactly; returns :math:`[\nu(0), ..., \nu(K)]`, or raises naming the
    step when there is not exactly one nonnegative solution.  When the drift
    is linear in :math:`\nu` (the ``"ball"`` rule: G = K) this is the exact
    stationary :math:`E[N(k)]`, since the expectation of a linear drift is
    the drift of the expectation.  For the thesis's rule it has no solution
    at (K, C) = (2, 2), (3, 3): off the reachable states the drift sends mass
    to length K+1 (:math:`\sum_k F_k \ne 0`; the K-line's
    :math:`-\nu(K)(S-1)/(CS)`), which only the thesis's unbounded recurrence
    and infinite sum absorb.

    >>> mean_field_instance(WorkbenchModel(slots=2, colours=2, removal="ball"))
    [1/2, 1, 1/2]
    """
    K_, C_ = _instance(model)
    nu = sp.symbols(f"nu0:{K_ + 1}", nonnegative=True)
    generic = occupancy_drift(_exchangeable_symbolic(model))
    padded = (0,) + nu + (0,)  # nu(-1) = nu(K+1) = 0
    equations = [sp.piecewise_fold(generic.subs({k_: k, n_lo: padded[k], n_k: padded[k + 1], n_hi: padded[k + 2],
                                                 S: sum(nu[1:]), C: C_, K: K_})) for k in range(K_ + 1)]
    equations = [sp.numer(sp.together(e)) for e in equations] + [sum(nu) - C_, sum(k * v for k, v in enumerate(nu)) - K_]
    roots = [r for r in sp.solve(equations, nu, dict=True) if all(r.get(v, v).is_nonnegative for v in nu)]
    if len(roots) != 1:
        raise DerivationError(f"mean field of the instance K = {K_}, C = {C_}: {len(roots)} nonnegative solutions "
                              f"of F(nu) = 0, sum nu = C, sum k nu = K (need exactly one): {roots}")
    return [sp.nsimplify(roots[0][v]) for v in nu]


def mean_field_colours(K_=K, C_=C, model: WorkbenchModel = PAPER):
    r"""Theorem 4.2.1: :math:`E[\sum_j N(j)] \approx KC/(K+C-1)`, the root of
    :func:`normalisation_S` for ``model`` (K, C then replaced by ``K_, C_``).

    >>> mean_field_colours(100, 1000)
    100000/1099
    """
    root = only_root(normalisation_S(model), "Theorem 4.2.1 normalisation")
    return root.subs({K: K_, C: C_}, simultaneous=True)


def mean_field_p_new(K_=K, C_=C, model: WorkbenchModel = PAPER):
    r"""Theorem 4.2.1: :math:`P_{new}` = the draw probability of the absent
    colours, :math:`\nu(0)\,p = (C - S)/C` (the thesis's definition), at the
    mean-field S: :math:`(C-1)/(K+C-1)`.

    >>> sp.factor(mean_field_p_new())
    (C - 1)/(C + K - 1)
    """
    _require_exchangeable(model, "P_new from the occupancy counts")
    p_new = (model.colours - mean_field_colours(model=model)) * model.p(None)
    return sp.factor(p_new).subs({K: K_, C: C_}, simultaneous=True)


def mean_field_nu(i_=i, K_=K, C_=C, model: WorkbenchModel = PAPER):
    r"""Corollary 4.2.1: :math:`\nu(i)` of :func:`mean_field_nu_of_S` at the
    mean-field S, :math:`KC^2(K-1)^{i-1}/(K+C-1)^{i+1}`.

    >>> mean_field_nu(1, 3, 3)
    27/25
    """
    nu = sp.factor(mean_field_nu_of_S(model).subs(S, mean_field_colours(model=model)))
    # ((K-1)/(K+C-1))^(i-1) split into numerator and denominator powers (both bases >= 0 for K >= 1).
    nu = nu.replace(lambda e: e.is_Pow and e.exp.has(i),
                    lambda e: sp.numer(sp.factor(e.base)) ** e.exp / sp.denom(sp.factor(e.base)) ** e.exp)
    nu = sp.powsimp(nu, force=True)
    return nu.subs({i: i_, K: K_, C: C_}, simultaneous=True)


# --- the exact stationary law: derived from detailed balance of the rules -----

def _generic_pair(model: WorkbenchModel):
    r"""(p, g) for a generic colour pair i, j: their draw probabilities and
    propensity functions of a queue length, symbolic in p and w when the model
    has a draw law or weights (any values), 1/C and 1 when uniform."""
    if not model.local or model.redraw:
        rule = "the 'longest' rule's propensity depends on the other colours' lengths" if not model.local else \
            "the redraw rule's draw depends on the present mass"
        raise DerivationError(f"product form, detailed balance: {rule}, so the ratio of a move's rates is not a "
                              "product over colours (instances: reversible_law, chain_stationary)")
    draw = (model.p(p_i), model.p(p_j))
    weight = (w_i, w_j) if model.weights is not None else (None, None)
    return draw, tuple(functools.partial(model.propensity, colour=w) for w in weight)


@functools.cache
def colour_factor(model: WorkbenchModel = PAPER):
    r"""The stationary law :math:`\pi(q) = G(q)\prod_c f_c(q_c)` derived from
    the rules, for all K, C and (symbolic) p and w (new; the thesis writes
    the balance equations of §4.1 without solving them).

    A move :math:`q \to r = q - e_j + e_i` (i ≠ j, :math:`q_j \ge 1`) has
    probability :math:`g_j(q_j)\,p_i/G(q)` (:func:`step`), the reverse one
    :math:`g_i(q_i+1)\,p_j/G(r)`.  Their ratio is a product of a function of
    (i, :math:`q_i+1`), one of (j, :math:`q_j`) and :math:`G(r)/G(q)`, so
    detailed balance holds with :math:`\pi = G\prod_c f_c(q_c)` when
    :math:`f_c(n)/f_c(n-1) = p_c/g_c(n)`: SymPy solves this first-order
    recurrence by ``product``, then the detailed-balance residual
    :math:`\pi(r)P(r\to q) - \pi(q)P(q\to r)`, with :math:`q_i, q_j, G(q),
    G(r)` symbols, must vanish identically (raises otherwise).  Detailed
    balance for every move gives global balance.  Returns :math:`f(n)` for a
    generic colour (symbols ``p``, ``w_i``).

    >>> colour_factor()
    C**(-n)
    >>> colour_factor(WorkbenchModel(removal="ball"))
    1/(C**n*factorial(n))
    >>> colour_factor(WorkbenchModel(colours=2, draw=(sp.Rational(1, 3), sp.Rational(2, 3)), weights=(1, 2)))
    (p_i/w_i)**n
    """
    (pi_, pj_), (gi, gj) = _generic_pair(model)
    l = sp.Symbol("l", integer=True, positive=True)
    n = n_
    f = {c: sp.simplify(sp.product(pc / g(l), (l, 1, n))) for c, pc, g in ((0, pi_, gi), (1, pj_, gj))}
    if any(fc.has(sp.Product) for fc in f.values()):
        raise DerivationError(f"product form: the colour factor prod p/g(l) has no closed form ({f[0]})")
    # colour j holds q_j + 1 >= 1 balls before the move, colour i holds q_i >= 0
    law_ratio = (G_r / G_q) * (f[0].subs(n, q_i + 1) / f[0].subs(n, q_i)) * (f[1].subs(n, q_j) / f[1].subs(n, q_j + 1))
    forward = gj(q_j + 1) * pi_ / G_q
    backward = gi(q_i + 1) * pj_ / G_r
    residual = law_ratio * backward - forward
    residual = sp.simplify(sp.combsimp(sp.powsimp(sp.expand_power_base(residual, force=True), force=True)))
    require_zero(residual, "product form: detailed balance pi(r) P(r -> q) = pi(q) P(q -> r) for a generic move")
    return f[0]


def product_form_law(model: WorkbenchModel) -> dict:
    r"""The derived law :math:`\pi(q) \propto G(q)\prod_c f_c(q_c)`
    (:func:`colour_factor`) on the states of an integer instance, normalised,
    exact: ``{q: probability}``.

    >>> product_form_law(WorkbenchModel(slots=2, colours=2))
    {(2, 0): 1/4, (1, 1): 1/2, (0, 2): 1/4}
    """
    K_, C_ = _instance(model)
    factor = colour_factor(model)
    weights = {}
    for q in _compositions(K_, C_):
        total = sum(model.propensity(v, c) for c, v in enumerate(q))
        weights[q] = total * sp.Mul(*[factor.subs({n_: v, p_i: model.p(c), w_i: model.weights[c] if model.weights else 1})
                                      for c, v in enumerate(q)])
    Z = sum(weights.values())
    return {q: sp.nsimplify(w / Z) for q, w in weights.items()}


def _closed_class(P: dict, start) -> set:
    """The closed communicating class reached from ``start``: walk to a state
    every reachable state can return to, then its reachable set."""
    def reach(x):
        seen, todo = {x}, [x]
        while todo:
            for y in P[todo.pop()]:
                if y not in seen:
                    seen.add(y)
                    todo.append(y)
        return seen

    x = start
    while True:
        here = reach(x)
        leak = next((y for y in here if x not in reach(y)), None)
        if leak is None:
            return here
        x = leak


def reversible_law(model: WorkbenchModel) -> dict:
    r"""Kolmogorov's criterion on an integer instance: on the closed class of
    the transition graph (transient states get probability 0), walk a
    spanning tree from one state setting :math:`\pi(r) = \pi(q) P(q\to r)/P(r\to q)`;
    then every other edge must satisfy detailed balance.  Returns the
    normalised law, or raises :class:`DerivationError` naming an edge (hence
    a cycle) where it fails: the chain is then not reversible and has no law
    of detailed-balance (product) form.

    >>> reversible_law(WorkbenchModel(slots=2, colours=2))[(1, 1)]
    1/2
    """
    states, P = chain(model)
    recurrent = _closed_class(P, states[0])
    root = next(q for q in states if q in recurrent)
    law = {root: sp.Integer(1)}
    queue = [root]
    while queue:
        q = queue.pop()
        for r, pr in P[q].items():
            back = P[r].get(q, 0)
            if r == q:
                continue
            if back == 0:
                raise DerivationError(f"Kolmogorov criterion fails: the move {q} -> {r} has no reverse move; the chain "
                                      "is not reversible, no product form")
            if r not in law:
                law[r] = law[q] * pr / back
                queue.append(r)
            elif law[r] * back != law[q] * pr:
                raise DerivationError(f"Kolmogorov criterion fails on the edge {q} -> {r}: pi(q) P(q->r) = "
                                      f"{law[q] * pr} but pi(r) P(r->q) = {law[r] * back} along the spanning tree; "
                                      "the chain is not reversible, no product form")
    Z = sum(law.values())
    return {q: law.get(q, 0) / Z for q in states}


def expected_colours(law: dict):
    r""":math:`E_\pi[S] = \sum_q \pi(q)\,NNZ(q)`.

    >>> expected_colours({(2, 0): sp.Rational(1, 4), (1, 1): sp.Rational(1, 2), (0, 2): sp.Rational(1, 4)})
    3/2
    """
    return sum(pr * sum(1 for v in q if v) for q, pr in law.items())


def printed_drift_4_1(n: dict, K_: int, C_, S_=None):
    r"""The right-hand sides of (4.1) minus :math:`E[N(i,t)]`, evaluated at a
    deterministic state ``n`` (so every expectation is a plain value).
    Typed from the thesis: compared with the chain's drift, never used to derive.

    >>> printed_drift_4_1({1: 2}, 2, sp.Integer(3)) == state_drift(WorkbenchModel(slots=2, colours=3), (1, 1, 0))
    True
    """
    S_ = sp.Integer(sum(n.get(j, 0) for j in range(1, K_ + 1))) if S_ is None else S_
    N = {j: sp.Integer(n.get(j, 0)) for j in range(1, K_ + 2)}
    N[0] = C_ - S_
    f = {j: N[j] / S_ for j in N}
    out = {0: f[1] + S_ / C_ - f[1] / C_ - 1,
           1: 2 * f[1] / C_ - f[1] - N[1] / C_ + f[2] - f[2] / C_ + 1 - S_ / C_}
    for k in range(2, K_):
        out[k] = 2 * f[k] / C_ - f[k] - N[k] / C_ + f[k + 1] - f[k + 1] / C_ + N[k - 1] / C_ - f[k - 1] / C_
    out[K_] = f[K_] / C_ - f[K_] + N[K_ - 1] / C_ - f[K_ - 1] / C_
    return {k: sp.simplify(v) for k, v in out.items()}


def nu_printed(i_=i, S_=S, C_=C):
    r"""The printed solution of (4.2)–(4.4) (reference only):
    :math:`\nu(i) = (C-S)\,\frac{S}{C-1}\left(\frac{S-1}{C-1}\right)^{i-1}`.

    >>> nu_printed(1)
    S*(C - S)/(C - 1)
    """
    return (C_ - S_) * S_ / (C_ - 1) * ((S_ - 1) / (C_ - 1)) ** (i_ - 1)


def nu_C_equals_K_expansion(i_: int):
    r"""Corollary 4.2.4, computed: :math:`\nu(i)` at C = K expanded in 1/K up
    to O(1/K): ``K/2^{i+1} + (3-i)/2^{i+2}`` (the thesis prints
    ``(K+1)/2^{i+1}``, right only at i = 1).

    >>> nu_C_equals_K_expansion(2)
    K/8 + 1/16
    """
    u = sp.Symbol("u", positive=True)
    expr = mean_field_nu(i_, 1 / u, 1 / u)
    ser = sp.series(expr, u, 0, 1).removeO()
    return sp.expand(ser.subs(u, 1 / K))


def super_colour_load(p_star, S_=S):
    r"""§4.2.3/§4.3.2 as a formula: a colour drawn with probability ``p*`` is
    added at rate ``p*`` and, while present, removed at rate ``1/S``; its load
    :math:`\rho = p^* S` and it dominates the workbench when :math:`\rho > 1`
    (the thesis: :math:`p^* > E[1/\sum_j N(j)]`).

    >>> super_colour_load(sp.Rational(1, 10), 5)
    1/2
    """
    return p_star * S_


def mean_field_nu_stable():
    r""":func:`mean_field_nu` for floating point: the powers with exponent
    :math:`i\pm1` are taken as one exponential of a sum of logarithms
    (``powsimp``), so large i neither overflows nor gives inf/inf.

    >>> mean_field_nu_stable()
    C**2*K*exp((-i - 1)*log(C + K - 1) + (i - 1)*log(K - 1))
    """
    nu = mean_field_nu()
    as_exp = nu.replace(lambda e: e.is_Pow and e.exp.has(i), lambda e: sp.exp(e.exp * sp.log(e.base)))
    return sp.powsimp(as_exp, combine="exp")


def occupancy_count(s_, K_, C_):
    r"""Number of occupancy vectors q (K balls, C colours) with exactly s
    colours present: choose the s colours, then a composition of K into s
    positive parts, :math:`\binom{C}{s}\binom{K-1}{s-1}` (stars and bars).

    >>> occupancy_count(2, 3, 3)
    6
    """
    return sp.binomial(C_, s_) * sp.binomial(K_ - 1, s_ - 1)


@functools.cache
def law_weight_is_colours_present(model: WorkbenchModel = PAPER) -> None:
    r"""The step from the derived law to the moments: when the colour factor
    is exponential, :math:`f(a)f(b) = f(a+b)` (checked symbolically), the
    product :math:`\prod_c f(q_c) = f(K)` is the same on every state, so
    :math:`\pi(q) \propto G(q)`, which the ``"colour"`` rule with uniform
    draw and unit weights makes S(q), the number of colours present.  Raises
    naming the part that fails otherwise (e.g. the ``"ball"`` rule, whose
    factor :math:`C^{-n}/n!` is not exponential).

    >>> law_weight_is_colours_present()
    >>> try:
    ...     law_weight_is_colours_present(WorkbenchModel(removal="ball"))
    ... except DerivationError as exc:
    ...     print(exc)
    exact moments: the colour factor 1/(C**n*factorial(n)) is not exponential in n, so pi(q) is not proportional to G(q)
    """
    f = colour_factor(model)
    a1, b1 = sp.symbols("a b", integer=True, nonnegative=True)
    if sp.simplify(sp.powsimp(f.subs(n_, a1) * f.subs(n_, b1) - f.subs(n_, a1 + b1), force=True)) != 0:
        raise DerivationError(f"exact moments: the colour factor {f} is not exponential in n, so pi(q) is not proportional to G(q)")
    if not (model.removal == "colour" and model.exchangeable):
        raise DerivationError("exact moments: G(q) is the number of colours present only for the 'colour' rule with "
                              f"alike colours; this model has removal {model.removal!r}, weights {model.weights}")


@functools.cache
def product_form_moments(model: WorkbenchModel = PAPER):
    r"""For uniform p the derived law (:func:`colour_factor`) is
    :math:`\propto S(q)` (:func:`law_weight_is_colours_present`), so
    :math:`E_\pi[S] = \sum_s s^2 a_s / \sum_s s\, a_s` with
    :math:`a_s` = :func:`occupancy_count`; both sums by ``summation``
    (hypergeometric, Vandermonde).  Returns (sum s a_s, sum s^2 a_s) for
    integer K + C > 2.

    >>> product_form_moments()[0]
    C*binomial(C + K - 2, K - 1)
    """
    law_weight_is_colours_present(model)
    Ki, Ci = sp.symbols("K C", integer=True, positive=True)
    s_ = sp.Symbol("s", integer=True, positive=True)
    sums = []
    for power in (1, 2):
        total = sp.summation(s_**power * occupancy_count(s_, Ki, Ci), (s_, 1, sp.oo))
        if isinstance(total, sp.Piecewise):
            total = total.args[0][0]  # the branch K + C > power
        if total.has(sp.Sum):
            raise DerivationError(f"sum of s^{power} a_s not evaluated: {total}")
        sums.append(sp.simplify(sp.hyperexpand(total)).subs({Ki: K, Ci: C}))
    return tuple(sums)


def exact_colours_uniform(K_=K, C_=C, model: WorkbenchModel = PAPER):
    r"""Exact stationary :math:`E[\sum_j N(j)]` for uniform colours (new; not in
    the thesis): :math:`(KC-1)/(K+C-2) = 1 + (K-1)(C-1)/(K+C-2)`, the ratio
    of :func:`product_form_moments` of ``model`` simplified by ``combsimp``
    (raises for a model whose law is not :math:`\propto S(q)`).  (A second
    route: :func:`bose_einstein_moments`.)

    >>> exact_colours_uniform(4, 4)
    5/2
    >>> exact_colours_uniform()
    (C*K - 1)/(C + K - 2)
    """
    first, second = product_form_moments(model)
    ratio = sp.factor(sp.combsimp(second / first))
    return ratio.subs({K: K_, C: C_}, simultaneous=True)


def exact_p_new_uniform(K_=K, C_=C):
    r"""Exact stationary :math:`P_{new} = 1 - E[S]/C = (C-1)^2/(C(K+C-2))`.

    >>> exact_p_new_uniform()
    (C - 1)**2/(C*(C + K - 2))
    """
    return sp.factor(1 - exact_colours_uniform() / C).subs({K: K_, C: C_}, simultaneous=True)


def compositions_count(n_, m_):
    r"""Number of :math:`q \in \mathbb{N}^m` with :math:`\sum q = n` (stars and
    bars), :math:`\binom{n+m-1}{m-1}`, for n >= 0, m >= 1.

    >>> compositions_count(3, 3) == len(list(_compositions(3, 3)))
    True
    """
    return sp.binomial(n_ + m_ - 1, m_ - 1)


def nu_uniform_weighted_sums():
    r"""For uniform p the product form is :math:`\pi(q) \propto S(q)`
    (:func:`product_form_moments`), so :math:`E_\pi[N(i)] = \sum_q S(q)N(i;q) /
    \sum_q S(q)`.  With :math:`N(i) = \sum_a 1(q_a = i)`,
    :math:`S = \sum_b 1(q_b \ge 1)` and symmetry over colours,

    :math:`\sum_q S\,N(i) = C\,1(i\ge1)\,\#\{q_1 = i\} + C(C-1)\,\#\{q_1 = i, q_2 \ge 1\}`,

    where :math:`\#\{q_1 = i\}` = compositions of K - i into C - 1 parts and
    :math:`\#\{q_1 = i, q_2\ge1\}` (shift :math:`q_2 \to q_2 - 1`) those of
    K - i - 1 (none when i = K).  Returns the numerators for (i = 0,
    1 <= i < K, i = K) and the normaliser :math:`\sum_q S(q)` of
    :func:`product_form_moments`.

    >>> nu_uniform_weighted_sums()[0][1]
    C*(C - 1)*binomial(C + K - i - 3, C - 2) + C*binomial(C + K - i - 2, C - 2)
    """
    occupied = C * compositions_count(K - i, C - 1)
    other = C * (C - 1) * compositions_count(K - i - 1, C - 1)
    numerators = (other.subs(i, 0), occupied + other, occupied.subs(i, K))
    return numerators, product_form_moments()[0]


@functools.cache
def exact_nu_uniform():
    r"""Exact stationary :math:`E[N(i)]` for uniform colours (new; the thesis
    has only the mean-field Corollary 4.2.1), the ratios of
    :func:`nu_uniform_weighted_sums` simplified by ``combsimp``: returns the
    three branches (i = 0, 1 <= i < K, i = K), for C >= 2.

    >>> nu0, nui, nuK = exact_nu_uniform()
    >>> nu0
    (C - 1)**2/(C + K - 2)
    >>> nui
    -(C - 1)*(-C*K + C*i - C + 2)*gamma(K)*gamma(C + K - i - 2)/(gamma(C + K - 1)*gamma(K - i + 1))
    >>> nuK
    gamma(C)*gamma(K)/gamma(C + K - 1)
    >>> [nui.subs({K: 3, C: 3, i: j}) for j in (1, 2)], nuK.subs({K: 3, C: 3})
    ([7/6, 2/3], 1/6)
    """
    numerators, normaliser = nu_uniform_weighted_sums()
    return tuple(sp.factor(sp.combsimp(num / normaliser)) for num in numerators)


def exact_nu_uniform_enumerated(K_: int, C_: int) -> list:
    r""":math:`E_\pi[N(i)]`, i = 0..K, by enumerating the occupancy vectors
    with weight :math:`\pi(q) \propto NNZ(q)\prod_i (1/C)^{q_i}` (the product
    form itself, no symmetry argument): the independent route.

    >>> exact_nu_uniform_enumerated(3, 3)
    [1, 7/6, 2/3, 1/6]
    """
    weights = {q: sum(1 for v in q if v) * sp.Rational(1, C_) ** K_ for q in _compositions(K_, C_)}
    Z = sum(weights.values())
    return [sum(w * sum(1 for v in q if v == j) for q, w in weights.items()) / Z for j in range(K_ + 1)]


def nu_uniform_rational(i_: int, K_: int, C_: int, comb=None) -> tuple:
    """Exact E[N(i)] for uniform colours (K balls, C >= 2 colours, 0 <= i <= K)
    as ``(numerator, denominator)`` integers: sum_q S N(i) over sum_q S for
    the product form pi(q) ~ S(q), each count of occupancy vectors a binomial
    ``comb(n + m - 1, m - 1)`` (compositions of n into m parts):

    numerator = C [i >= 1] comb(K-i+C-2, C-2) + C(C-1) [i < K] comb(K-i+C-3, C-2),
    denominator = C comb(K+C-2, C-1).

    ``comb`` defaults to ``math.comb``; crawlmath.derive.buijsrogge passes
    SymPy's binomial and symbolic i, K, C to prove the rule equal to the
    derived closed form (:func:`nu_uniform_rule_residuals`, a doctest).

    >>> nu_uniform_rational(1, 3, 3)
    (21, 18)
    """
    if comb is None:
        from math import comb
    occupied = 0 if i_ == 0 else C_ * comb(K_ - i_ + C_ - 2, C_ - 2)
    other = 0 if i_ == K_ else C_ * (C_ - 1) * comb(K_ - i_ + C_ - 3, C_ - 2)
    return occupied + other, C_ * comb(K_ + C_ - 2, C_ - 1)


def nu_uniform_rule_residuals() -> list:
    """The emitted rule :func:`nu_uniform_rational`, run on SymPy symbols with
    ``sp.binomial``, minus the derived :func:`exact_nu_uniform`, per branch
    (i = 0, 1 <= i < K, i = K), after ``combsimp``: all 0 when the emitted
    code computes the derived closed form.

    >>> nu_uniform_rule_residuals()
    [0, 0, 0]
    """
    out = []
    for at, closed in zip((0, i, K), exact_nu_uniform()):
        num, den = nu_uniform_rational(at, K, C, comb=sp.binomial)
        out.append(sp.simplify(sp.combsimp(num / den - closed)))
    return out


def generated_sources() -> dict:
    """Rule functions emitted verbatim by ``crawlmath codegen`` (plain Python,
    no SymPy): :func:`nu_uniform_rational` goes to
    ``numeric/generated/buijsrogge_exact.py``, from which
    ``numeric/colours.exact_nu_uniform`` computes exact Fractions.

    >>> [fn.__name__ for fn in generated_sources()["buijsrogge_exact"]["functions"]]
    ['nu_uniform_rational']
    """
    doc = ("Exact E[N(i)] for uniform colours from the product form (Buijsrogge 2014, Sec. 4.1 chain;\n"
           "product form, crawlmath) in integer arithmetic: the rule function of crawlmath.derive.buijsrogge,\n"
           "proved equal there to the closed form SymPy derives (nu_uniform_rule_residuals).")
    return {"buijsrogge_exact": {"doc": doc, "functions": (nu_uniform_rational,)}}


# --- general p: the product form in complete homogeneous symmetric polynomials
#
# h_n(p) = sum over compositions q of n into C parts of prod p_i^{q_i};
# P_k = sum_i p_i^k; e1 = sum_i p_i (= 1 on the simplex).
P2, P3, ratio, e1 = sp.symbols("P2 P3 ratio e1", positive=True)  # ratio = h_{K-2}/h_{K-1}
hK1, hK2 = sp.symbols("h_Km1 h_Km2", positive=True)  # h_{K-1}(p), h_{K-2}(p)


def _compositions(n: int, c: int):
    """All q in N^c with sum n."""
    if c == 1:
        yield (n,)
        return
    for first in range(n, -1, -1):
        for rest in _compositions(n - first, c - 1):
            yield (first,) + rest


def complete_homogeneous(n: int, ps) -> sp.Expr:
    r""":math:`h_n(p) = \sum_{|q| = n} \prod_i p_i^{q_i}` by enumeration.

    >>> complete_homogeneous(2, sp.symbols("a b"))
    a**2 + a*b + b**2
    """
    return sp.Add(*[sp.Mul(*[pp**v for pp, v in zip(ps, q)]) for q in _compositions(n, len(ps))])


def newton_identity_residual(n: int, c: int) -> sp.Expr:
    r"""Newton's identity for complete homogeneous polynomials,
    :math:`n h_n = \sum_{k=1}^n P_k h_{n-k}` (all terms positive: the
    recursion numeric code uses), checked by expansion in c generic
    variables; returns the residual.

    >>> newton_identity_residual(4, 3)
    0
    """
    ps = sp.symbols(f"p1:{c + 1}", positive=True)
    power = lambda k: sp.Add(*[pp**k for pp in ps])  # noqa: E731 - P_k
    rhs = sp.Add(*[power(k) * complete_homogeneous(n - k, ps) for k in range(1, n + 1)])
    return sp.expand(n * complete_homogeneous(n, ps) - rhs)


def product_form_sums():
    r"""The three sums over occupancy vectors q (K balls, C colours) that give
    the product form's moments, :math:`\pi(q) \propto NNZ(q)\,p^q`
    (:func:`colour_factor`), in :math:`h_n`, :math:`P_k`, :math:`e_1`.

    The one step: for a set A of colours, :math:`\sum_{|q|=K,\ q_a\ge1\,(a\in A)} p^q
    = (\prod_{a\in A} p_a)\, h_{K-|A|}(p)` (shift :math:`q_a \to q_a - 1`).
    With :math:`NNZ(q) = \sum_i 1(q_i\ge1)`:

    - :math:`Z = \sum_q NNZ\,p^q = \sum_i p_i h_{K-1} = e_1 h_{K-1}`;
    - :math:`\sum_q NNZ^2 p^q = \sum_{i,j}` (pairs i = j and i ≠ j)
      :math:`= e_1 h_{K-1} + (e_1^2 - P_2) h_{K-2}`;
    - :math:`\sum_q NNZ \sum_{i: q_i\ge1} p_i\, p^q = P_2 h_{K-1} + (e_1 P_2 - P_3) h_{K-2}`.

    Returns (Z, sum NNZ^2 p^q, sum NNZ (present mass) p^q); checked against
    enumeration by :func:`product_form_sums_residual`.

    >>> product_form_sums()[0]
    e1*h_Km1
    """
    if colour_factor(WorkbenchModel(draw="any")) != p_i ** n_:
        raise DerivationError("product_form_sums: the derived colour factor of the thesis's rule is not p^n")
    pairs_distinct = e1**2 - P2  # sum_{i != j} p_i p_j
    mass_pairs_distinct = e1 * P2 - P3  # sum_{i != j} p_i^2 p_j
    Z = e1 * hK1
    second = e1 * hK1 + pairs_distinct * hK2
    present = P2 * hK1 + mass_pairs_distinct * hK2
    return Z, second, present


def product_form_sums_residual(K_: int, C_: int) -> list:
    """Expand the three sums of :func:`product_form_sums` by enumerating the
    occupancy vectors of a (K, C) chain with generic p_1..p_C (not on the
    simplex: e1 stays a variable) and return their residuals (all 0 when the
    derivation is right).

    >>> product_form_sums_residual(3, 3)
    [0, 0, 0]
    """
    ps = sp.symbols(f"p1:{C_ + 1}", positive=True)
    values = {e1: sp.Add(*ps), P2: sp.Add(*[pp**2 for pp in ps]), P3: sp.Add(*[pp**3 for pp in ps]),
              hK1: complete_homogeneous(K_ - 1, ps), hK2: complete_homogeneous(K_ - 2, ps)}
    Z = second = present = sp.Integer(0)
    for q in _compositions(K_, C_):
        weight = sp.Mul(*[pp**v for pp, v in zip(ps, q)])
        nnz = sum(1 for v in q if v)
        Z += nnz * weight
        second += nnz**2 * weight
        present += nnz * sp.Add(*[pp for pp, v in zip(ps, q) if v]) * weight
    return [sp.expand(brute - formula.subs(values)) for brute, formula in zip((Z, second, present), product_form_sums())]


def product_form_colours():
    r"""Exact stationary :math:`E[S] = \sum NNZ^2 p^q / Z` for any colour law p
    (new; not in the thesis), from :func:`product_form_sums` on the simplex
    (:math:`e_1 = 1`), in ``ratio`` = :math:`h_{K-2}/h_{K-1}`.

    >>> product_form_colours()
    ratio*(1 - P2) + 1

    Uniform p (P_2 = 1/C, h_n = binom(n+C-1, C-1)/C^n, so the ratio is
    C(K-1)/(K+C-2)) gives :func:`exact_colours_uniform`:

    >>> sp.factor(product_form_colours().subs({P2: 1 / C, ratio: C * (K - 1) / (K + C - 2)}))
    (C*K - 1)/(C + K - 2)
    """
    Z, second, _ = product_form_sums()
    out = sp.expand(sp.cancel((second / Z).subs(e1, 1)).subs(hK2, ratio * hK1))
    return sp.collect(out, ratio, sp.factor)


def product_form_p_new():
    r"""Exact stationary :math:`P_{new} = 1 - E[\sum_{i\ present} p_i]` for any
    colour law p, from :func:`product_form_sums` on the simplex.

    >>> product_form_p_new()
    -P2 + ratio*(-P2 + P3) + 1
    """
    Z, _, present = product_form_sums()
    out = sp.expand(sp.cancel((1 - present / Z).subs(e1, 1)).subs(hK2, ratio * hK1))
    return sp.collect(out, ratio, sp.factor)


def bose_einstein_moments():
    r"""Under the Bose–Einstein law (all :math:`\binom{K+C-1}{K}` occupancy
    vectors equally likely): :math:`E[S] = C\,P(q_1\ge1) = KC/(K+C-1)` and
    :math:`E[S(S-1)] = C(C-1)P(q_1\ge1, q_2\ge1)`; returns
    ``(E[S], E[S(S-1)], E[S^2]/E[S])`` simplified.

    >>> bose_einstein_moments()[2]
    (C*K - 1)/(C + K - 2)
    """
    tot = sp.binomial(K + C - 1, K)
    es = sp.combsimp(C * sp.binomial(K + C - 2, K - 1) / tot)
    ess = sp.combsimp(C * (C - 1) * sp.binomial(K + C - 3, K - 2) / tot)
    return sp.factor(es), sp.factor(ess), sp.factor(sp.simplify((ess + es) / es))


def product_form_balance(K_: int, C_: int):
    r"""Check symbolically (generic :math:`p_1..p_C`) that the law derived by
    :func:`colour_factor`, :math:`\pi(q) = NNZ(q)\prod_i p_i^{q_i}`, solves
    the balance equations as the thesis prints them (§4.1, typed here and only
    used for this comparison), :math:`\pi(q) = \sum_{i,j: q_j\ge1}
    \pi(q+e_i-e_j)\, p_j / NNZ(q+e_i-e_j)`, at every state of the (K, C)
    chain; returns the list of nonzero residuals (empty when they agree).

    >>> product_form_balance(2, 2)
    []
    """
    ps = sp.symbols(f"p1:{C_ + 1}", positive=True)

    def comps(k, c):
        if c == 1:
            yield (k,)
            return
        for first in range(k, -1, -1):
            for rest in comps(k - first, c - 1):
                yield (first,) + rest

    def weight(q):
        return sum(1 for v in q if v) * sp.Mul(*[pp**v for pp, v in zip(ps, q)])

    bad = []
    for q in comps(K_, C_):
        rhs = 0
        for j in range(C_):
            if not q[j]:
                continue
            for i_ in range(C_):
                r = list(q)
                r[i_] += 1
                r[j] -= 1
                rhs += weight(r) * ps[j] / sum(1 for v in r if v)
        res = sp.expand(weight(q) * sum(ps) - rhs)  # sum(ps) = 1 on the simplex
        if res != 0:
            bad.append((q, res))
    return bad


_RULES = assumed("the game of §4.1 (WorkbenchModel, PAPER)",
                 "each step a present colour, chosen uniformly, loses a ball, then a ball of a colour drawn from p joins; "
                 "Ch. 2 rules, p_i = 1/C in §4.2")
_DRIFT = derived("the drift F(nu) of N(0..K)", "step() on the occupancy classes (occupancy_drift); equal to the exact "
                 "chain's drift on every state of 6 instances K <= 5 (tests), lines 0, 1, i equal to the printed (4.1)")
_CLOSURE = assumed("the mean-field closure and the unbounded recurrence (§4.2)",
                   "N(i) replaced by nu(i) in the drift; the recurrence solved for all i >= 1 and normalised by the "
                   "infinite sum, as the thesis does (the K-line is not imposed)")
_MEAN_FIELD = (_RULES, _DRIFT, _CLOSURE,
               derived("nu(i) given S", "lines 0, 1 solved for nu(1), nu(2), interior recurrence by rsolve (mean_field_nu_of_S)"),
               derived("S", "the root of sum_{i>=1} i nu(i) = K, the series by summation (normalisation_S)"))
_PRODUCT = (_RULES, derived("pi(q) ∝ NNZ(q) prod p_i^q_i", "detailed balance of step() for a generic move, all K, C, "
                            "symbolic p (colour_factor); equal to the exact chain's law solved in rationals for (K, C) = "
                            "(3, 3), (4, 2), (2, 4), (5, 2) and a non-uniform p at (4, 3) (tests)"))
_UNIFORM_SUMS = derived("the moments", "sums over occupancy vectors by summation and combsimp (product_form_moments)")
_HETERO_SUMS = derived("Z, sum NNZ^2 p^q, sum NNZ (present mass) p^q in h_n, P_k",
                       "the shift q_a -> q_a - 1 (product_form_sums); expanded against enumeration with generic p for "
                       "(K, C) = (3, 3) (product_form_sums_residual)")
_DRAWS = assumed("K independent draws from p (§3.2)", "Lemma 3.2.1's setting: the workbench filled from the source")


def formulas() -> list[Formula]:
    """The closed forms emitted to ``numeric/generated/buijsrogge.py``, each
    with its provenance (``inputs``).

    >>> [f.name for f in formulas()][:2]
    ['mean_field_colours', 'mean_field_p_new']
    >>> all(f.inputs for f in formulas())
    True
    """
    kc = {"K": (2.0, 1e6), "C": (2.0, 1e7)}
    product_src = "(Buijsrogge 2014, Sec. 4.1 chain; product form, crawlmath)"
    return [
        Formula("mean_field_colours", (K, C), mean_field_colours(), CITE.format("Thm 4.2.1"),
                "Mean-field number of colours in the workbench KC/(K+C-1)", printed=K * C / (K + C - 1), domain=kc,
                inputs=_MEAN_FIELD),
        Formula("mean_field_p_new", (K, C), mean_field_p_new(), CITE.format("Thm 4.2.1"),
                "Mean-field probability that a drawn colour is new, (C-1)/(K+C-1)", printed=(C - 1) / (K + C - 1), domain=kc,
                inputs=_MEAN_FIELD + (derived("P_new", "nu(0) p = (C - S)/C at the mean-field S"),)),
        Formula("mean_field_nu", (i, K, C), mean_field_nu(), CITE.format("Cor 4.2.1"),
                "Mean-field number of colours with i balls online",
                printed=K * C**2 * (K - 1) ** (i - 1) / (K + C - 1) ** (i + 1), stable=mean_field_nu_stable(),
                domain={**kc, "i": (1.0, 30.0)},
                inputs=_MEAN_FIELD + (derived("the float form", "powers of i as one exp of a sum of logs (powsimp)"),)),
        Formula("exact_colours_uniform", (K, C), exact_colours_uniform(), product_src,
                "Exact stationary number of colours for uniform colours (KC-1)/(K+C-2)", domain=kc,
                inputs=_PRODUCT + (_UNIFORM_SUMS,)),
        Formula("exact_p_new_uniform", (K, C), exact_p_new_uniform(), product_src,
                "Exact stationary P_new for uniform colours (C-1)^2/(C(K+C-2))", domain=kc,
                inputs=_PRODUCT + (_UNIFORM_SUMS, derived("P_new", "1 - E[S]/C"))),
        Formula("product_form_colours", (P2, ratio), product_form_colours(), product_src,
                "Exact stationary number of colours for any p: 1 + (1-P2) h_{K-2}/h_{K-1}",
                domain={"P2": (1e-7, 1.0), "ratio": (1e-3, 1e6)}, inputs=_PRODUCT + (_HETERO_SUMS,)),
        Formula("product_form_p_new", (P2, P3, ratio), product_form_p_new(), product_src,
                "Exact stationary P_new for any p: (1-P2) - (P2-P3) h_{K-2}/h_{K-1}; ill-conditioned in its inputs, not in "
                "the formula: kappa = (1 + P2 + ratio (P2 + P3))/P_new (6e6 at uniform K = 1e6, C = 2), so the domain keeps P_new away from 0",
                domain={"P2": (0.5, 0.9), "P3": (1e-9, 1e-3), "ratio": (1e-3, 0.1)}, inputs=_PRODUCT + (_HETERO_SUMS,)),
        Formula("colour_drawn_probability", (pcol, K), colour_drawn_probability(), CITE.format("Lemma 3.2.1, eq. 3.1"),
                "Probability that a colour of probability p is drawn in K draws, 1-(1-p)^K (one term of (3.1))",
                stable=colour_drawn_probability_stable(), domain={"p": (1e-12, 0.999), "K": (1.0, 1e6)},
                inputs=(_DRAWS, derived("1 - (1-p)^K", "the product of K miss probabilities by product"),
                        derived("the float form", "expm1(K log1p(-p)) by SymPy's expm1_opt"))),
        Formula("expected_colours_uniform", (K, C), expected_colours_uniform(), CITE.format("Cor 3.2.1"),
                "Expected colours after K uniform draws C(1-(1-1/C)^K)", printed=C * (1 - (1 - 1 / C) ** K),
                stable=expected_colours_uniform_stable(), domain=kc,
                inputs=(_DRAWS, derived("C(1 - (1-1/C)^K)", "colour_drawn_probability at p = 1/C summed over C colours"),
                        derived("the float form", "expm1(K log1p(-1/C)) by SymPy's expm1_opt"))),
    ]


@dataclass(frozen=True)
class ModelFormulas:
    """The closed forms derived for a user's workbench model (:func:`model_formulas`) and the ones refused."""
    formulas: tuple[Formula, ...]
    refused: tuple[tuple[str, str], ...]  # (formula name, the DerivationError's message)


def _float_form(expr):
    r"""``expr`` with powers of one exponent merged (:math:`C^{1-K}(C-1)^K \to C((C-1)/C)^K`), when that differs
    and is shown equal (:func:`_in_powers_of_K`): the derived form's :math:`C^{-K}` and :math:`(C-1)^K` under- and
    overflow separately in floating point (C = K = 1000: 0 * inf); None otherwise.

    >>> _float_form(C**(1 - K) * (C - 1)**K)
    C*((C - 1)/C)**K
    """
    merged = sp.powsimp(sp.expand_power_exp(sp.powsimp(sp.expand(expr), force=True)), combine="base", force=True)
    if merged == expr or not any(p.exp.has(K) for p in merged.atoms(sp.Pow)):
        return None
    fresh: dict = {}
    return merged if vanishes_identically(_in_powers_of_K(merged, fresh) - _in_powers_of_K(expr, fresh)) else None


def _in_powers_of_K(expr, fresh: dict):
    r"""``expr`` with every power :math:`b^{aK + c}` (a an integer) written :math:`t_b^a b^c`, one indeterminate
    :math:`t_b` per base b (``fresh``), after splitting powers of products and quotients (bases positive: C >= 2):
    an identity in the t_b and the other atoms is one in K."""
    split = sp.powsimp(sp.expand_power_base(sp.expand_power_exp(sp.powdenest(expr, force=True)), force=True),
                       force=True, combine="exp")

    def by_K(power):
        a_ = power.exp.coeff(K)
        return fresh.setdefault(power.base, sp.Dummy()) ** a_ * power.base ** sp.expand(power.exp - a_ * K)

    return split.replace(lambda e: e.is_Pow and e.exp.has(K) and e.exp.coeff(K).is_Integer, by_K)


def model_formulas(model: WorkbenchModel) -> ModelFormulas:
    r"""What derives for ``model`` as `Formula` objects for ``crawlmath codegen --model``: the mean-field colours
    online S and :math:`P_{new}` (Theorem 4.2.1's route: :func:`mean_field_colours`, :func:`mean_field_p_new`),
    the occupancy :math:`\nu(i)` (:func:`mean_field_nu`), and the exact stationary :math:`E[S]`
    (:func:`exact_colours_uniform`, the product-form law); a step that refuses is listed with its message.

    >>> mf = model_formulas(WorkbenchModel(removal="ball"))
    >>> [(f.name, f.args) for f in mf.formulas]
    [('mean_field_colours', (K, C)), ('mean_field_p_new', (K, C)), ('mean_field_nu', (i, K, C))]
    >>> mf.formulas[0].stable, mf.refused[0][1][:21]
    (-C*((C - 1)/C)**K + C, 'exact moments: the co')
    >>> [(f.name, f.expr) for f in model_formulas(WorkbenchModel(slots=3, colours=2)).formulas if f.name.endswith("colours")]
    [('mean_field_colours', 3/2), ('exact_colours', 5/3)]
    """
    size = (model.slots, model.colours)  # the model's K and C: symbols, or the integers of an instance
    # an instance with no per-colour draw or weights is derived for all K, C and then evaluated at its K, C (the
    # integer route solves the instance's recurrences: K = C = 50 with random-ball removal ran for minutes)
    general = dataclasses.replace(model, slots=K, colours=C) if model.draw is None and model.weights is None else model
    steps = (("mean_field_colours", lambda: mean_field_colours(*size, model=general),
              "S: the mean-field number of colours online", "Theorem 4.2.1"),
             ("mean_field_p_new", lambda: mean_field_p_new(*size, model=general),
              "P_new: the mean-field probability that the drawn ball's colour is absent", "Theorem 4.2.1"),
             ("mean_field_nu", lambda: mean_field_nu(i, *size, model=general),
              "nu(i): the mean-field number of colours with i balls", "Corollary 4.2.1"),
             ("exact_colours", lambda: exact_colours_uniform(*size, model=general),
              "E[S] under the exact stationary law (product form from detailed balance)", "§4.1 chain, new"))
    built, refused = [], []
    for name, derive_it, doc, where in steps:
        try:
            expr = derive_it()
        except DerivationError as exc:
            refused.append((name, str(exc)))
            continue
        args = tuple(s_ for s_ in (i, K, C) if s_ in expr.free_symbols)
        requires = tuple(r for a_, r in ((i, sp.Ge(i, 1, evaluate=False)), (K, sp.Ge(K, 1, evaluate=False)),
                                        (C, sp.Ge(C, 2, evaluate=False))) if a_ in args)
        built.append(Formula(name, args, expr, CITE.format(f"{where}, for {model}"), doc, paper="buijsrogge",
                             stable=_float_form(expr), requires=requires,
                             inputs=(assumed(f"the model {model}"), derived(name, "crawlmath.derive.buijsrogge on that "
                                                                           "model, from the one step() of its rules"))))
    return ModelFormulas(tuple(built), tuple(refused))
