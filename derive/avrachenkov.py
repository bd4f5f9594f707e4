r"""Derivations for Avrachenkov, Dudin, Klimenok, Nain, Semenova (seed 000):
the generator blocks of the Lemma (§3) and the performance measures of
Theorems 1-4 and Corollary 1 (§4-§5) from the model's rules, the
state-space dimension of §3 and the two-phase hyperexponential relations of §7.

Notation (the paper's): :math:`\bar W` phases of the arrival process, M of
service, R of obsolescence; level i (pages in the system) holds
:math:`\bar W` states for i = 0 and :math:`\bar W M R^{i-1}` for i >= 1.

The model is its rules (§2), stated once in local form (:func:`paper_rules`:
arrivals with partial admission, FIFO service, obsolescence of every
buffered page); other rule sets (:data:`MODIFIED_RULES`: head-only expiry,
doubled service, complete rejection) are models of the same kind.  From the
rules:

1. the block recipe of the Lemma for any K (:func:`recipe_from_rules`, emitted
   with the rules to ``numeric/generated/avrachenkov_lemma.py``), compared
   with the printed Lemma (:func:`recipe_vs_printed`) and with the generator
   built state by state from the same rules on a generic symbolic instance
   (:func:`lemma_residuals`);
2. the measures as functionals of the stationary vector
   (:func:`rate_functionals`, :func:`measures_from`), compared with the printed
   eqs. (5), (7)-(9), (14), (15) (:func:`functionals_vs_printed`);
3. a rule set that leaves the state space of §3 (:data:`STRUCTURE_BREAK`), or
   whose batches beyond the free room do not act alike, is refused with a
   DerivationError naming the step.

4. Theorem 4's transforms and Corollary 1's means from the tagged page's
   chain built from the same rules (:func:`tagged_chain`,
   :func:`sojourn_transforms`, :func:`sojourn_means`) -- a symbolic-numeric
   route (exact linear solves on a given model), assuming that pages behind
   the tagged one never act on it (true for FIFO rules; a rule that takes the
   tagged page into service ahead of others, LIFO, is refused).

>>> state_space_dimension()
Piecewise((W*(K*M + 1), Eq(R, 1)), (W*(M*(R**K - 1)/(R - 1) + 1), True))
>>> printed_dimension().subs({W: 2, M: 2, R: 2, K: 10})
2046
>>> alpha2_for_mean()
alpha1*(1 - beta1)/(alpha1*b1 - beta1)
"""
from __future__ import annotations

import functools
import itertools

import sympy as sp

from . import DerivationError, only_root, require_zero
from .formula import Formula, assumed, derived, typed

W, M, R, K = sp.symbols("W M R K", integer=True, positive=True)
i = sp.Symbol("i", integer=True, nonnegative=True)
alpha1, alpha2, b1 = sp.symbols("alpha1 alpha2 b1", positive=True)
beta1 = sp.Symbol("beta1", positive=True)

CITE = "(Avrachenkov et al., §3)"


def level_size(level=i):
    r""":math:`\bar W M^{a_i} R^{b_i}`, :math:`a_i = \min(i, 1)`, :math:`b_i = \max(i-1, 0)` (§3),
    typed from §3 and checked against the slots of :func:`level_layout` (the
    layout both Lemma interpreters use) by :func:`check_level_size`.

    >>> level_size(3)
    M*R**2*W
    """
    return sp.Piecewise((W, sp.Eq(level, 0)), (W * M * R ** (level - 1), True))


LEVEL_SIZE_CHECKED = range(0, 11)


def check_level_size() -> None:
    """Raise DerivationError unless :func:`level_size` is the product of the
    slot sizes (ν: W̄, m: M, r: R) of :func:`level_layout` at the levels
    ``LEVEL_SIZE_CHECKED``, for symbolic W̄, M, R.

    >>> check_level_size()
    """
    size = {"nu": W, "m": M, "r": R}
    for lv in LEVEL_SIZE_CHECKED:
        require_zero(level_size(lv) - sp.Mul(*[size[k] for k in level_layout(lv)]), f"level size at i = {lv}")


def state_space_dimension():
    r"""Number of states :math:`\sum_{i=0}^{K} \bar W M^{a_i} R^{b_i}
    = \bar W (1 + M (R^K - 1)/(R - 1))` (:math:`\bar W(1 + MK)` for R = 1).
    Derived by summing the level sizes of §3 (levels 0..K).

    >>> state_space_dimension().subs({W: 2, M: 2, R: 2, K: 10})
    4094
    """
    j = sp.Symbol("j", integer=True, positive=True)
    geometric = sp.piecewise_fold(sp.summation(R ** (j - 1), (j, 1, K)))
    at_one = geometric.args[0][0].subs(R, 1)  # the R = 1 branch
    general = sp.simplify(geometric.args[1][0])
    return sp.Piecewise((W * (1 + M * at_one), sp.Eq(R, 1)), (W * (1 + M * general), True))


def printed_dimension():
    r"""The dimension as printed in §3: :math:`\bar W(1 + M (R^{K-1}-1)/(R-1))`
    ("for :math:`\bar W = M = R = 2` ... :math:`2^{K+1} - 2`"); it omits level K.

    >>> printed_dimension().subs({W: 2, M: 2, R: 2, K: 10})
    2046
    """
    return W * (1 + M * (R ** (K - 1) - 1) / (R - 1))


_t = sp.Symbol("t", positive=True)


def hyperexponential_moment(order: int):
    r""":math:`E[X^n] = \int_0^\infty t^n\,\beta e^{St} S_0\,dt` of the two-phase
    hyperexponential of §7 (:math:`\beta = (\beta_1, 1-\beta_1)`,
    :math:`S = \mathrm{diag}(-\alpha_1, -\alpha_2)`, :math:`S_0 = -Se`), integrated
    by SymPy from the density.

    >>> hyperexponential_moment(1)
    -beta1/alpha2 + 1/alpha2 + beta1/alpha1
    """
    density = beta1 * alpha1 * sp.exp(-alpha1 * _t) + (1 - beta1) * alpha2 * sp.exp(-alpha2 * _t)  # β e^{St} S_0
    return sp.integrate(sp.expand(_t ** order * density), (_t, 0, sp.oo))


def hyperexponential_mean():
    r""":math:`b_1 = \beta_1/\alpha_1 + (1-\beta_1)/\alpha_2`, the first moment of
    :func:`hyperexponential_moment`; checked against the printed
    :math:`b_1 = \beta(-S)^{-1}e` (§2, §7) by :func:`check_printed_mean`.

    >>> hyperexponential_mean().subs({alpha1: 2, alpha2: 1, beta1: sp.Rational(1, 2)})
    3/4
    """
    return hyperexponential_moment(1)


def check_printed_mean() -> None:
    """Raise DerivationError unless the mean from the density is the printed
    :math:`\beta(-S)^{-1}e` (§2: b_1, g_1).

    >>> check_printed_mean()
    """
    S = sp.diag(-alpha1, -alpha2)
    beta = sp.Matrix([[beta1, 1 - beta1]])
    require_zero(hyperexponential_mean() - (beta * (-S).inv() * sp.ones(2, 1))[0], "b_1 = beta (-S)^-1 e")


def alpha2_for_mean():
    r"""Solve :math:`b_1 = E[X]` for :math:`\alpha_2`; §7 prints
    :math:`\alpha_2 = 0.1\alpha_1/(b_1\alpha_1 - 0.9)` for :math:`\beta_1 = 0.9`.

    >>> alpha2_for_mean().subs(beta1, sp.Rational(9, 10))
    alpha1/(10*(alpha1*b1 - 9/10))
    """
    return sp.simplify(only_root(sp.solve(sp.Eq(hyperexponential_mean(), b1), alpha2), "b1 = E[X] for alpha2"))


def printed_alpha2():
    """alpha2 as printed in §7 for beta1 = 0.9 (reference only).

    >>> printed_alpha2().subs({alpha1: 9, b1: 1})
    1/9
    """
    return sp.Rational(1, 10) * alpha1 / (b1 * alpha1 - sp.Rational(9, 10))


def hyperexponential_variance():
    r""":math:`\mathrm{var}_s = E[X^2] - E[X]^2` from the moments of the density
    (§7 prints :math:`2\beta S^{-2} e - (\beta(-S)^{-1}e)^2`).

    >>> hyperexponential_variance().subs({alpha1: 1, alpha2: 1, beta1: sp.Rational(1, 3)})
    1
    """
    return sp.simplify(hyperexponential_moment(2) - hyperexponential_mean() ** 2)


# --- the rules of §2 that define the generator -------------------------------
#
# The model is stated once, as rules in *local* form: a rule yields moves,
# each a dict ``{"to": level, "ops": {slot: token}, "new": (...), "rate": c, ...}``.
# ``ops`` acts on the source state's slots, numbered in the order of §3 -- 0 the
# arrival phase ν, 1 the server phase m (levels >= 1), 1 + q the obsolescence
# phase r_q of the q-th buffered page -- one token per slot it changes (the
# other slots are kept); ``new`` appends slots (a server phase from β, pages with phases from
# γ).  A token is a local matrix of the model (see rule_tokens); the counts
# ``offered``/``lost``/``served``/``expired`` say how many pages the move
# offers, loses, serves or lets become obsolete (the measures of §4); a state's
# slots at level i are level_layout(i).  Clocks
# (D_0, S, Γ) carry their diagonals, so the generator is the sum of the moves.
#
# From the rules: the generator state by state on a generic symbolic instance
# (generator_from_rules, the check), and the Lemma's block recipe for any K
# (recipe_from_rules: which Kronecker factors sit in block (i, i')), emitted to
# numeric/generated/avrachenkov_lemma.py.  The rules and the recipe's
# interpreter are plain Python (emitted verbatim, SymPy-free).


def rule_tokens():
    """Token name -> (the slot kind it consumes, the slot kinds it produces):
    ``nu`` (W̄ arrival phases), ``m`` (M service phases), ``r`` (R
    obsolescence phases); ``("gamma", l)`` produces l pages.

    >>> rule_tokens()["S0"]
    ('m', '')
    """
    return {"D": ("nu", "nu"), "Dtail": ("nu", "nu"), "D1": ("nu", "nu"), "S": ("m", "m"), "S0beta": ("m", "m"),
            "S0": ("m", ""), "beta": ("", "m"), "Gamma": ("r", "r"), "Gamma0": ("r", ""), "eR": ("r", ""),
            "gamma": ("", "r"), "scale": ("", "")}


def level_layout(level):
    """The slot kinds of a state at ``level`` (§3): ν; then m and r_1 .. r_{i-1}.

    >>> level_layout(0), level_layout(3)
    (('nu',), ('nu', 'm', 'r', 'r'))
    """
    return ("nu",) if level == 0 else ("nu", "m") + ("r",) * (level - 1)


def paper_arrival(level, K_, k):
    """§2, arrivals (partial admission): between batches the arrival clock
    runs (k = 0: D_0, its diagonal the rate of leaving ν); a batch of k >= 1
    pages (D_k of the level's mode) brings min(k, K - i) pages in and loses
    the rest; at an empty system the first starts service with a phase from
    β and the others join the buffer, behind the pages there, each with an
    obsolescence phase from γ.

    >>> paper_arrival(0, 3, 5)["to"], paper_arrival(0, 3, 5)["new"], paper_arrival(0, 3, 5)["lost"]
    (3, (('beta',), ('gamma', 2)), 2)
    """
    if k == 0:
        return {"to": level, "ops": {0: ("D", 0)}, "new": (), "rate": 1, "offered": 0, "lost": 0}
    accepted = min(k, K_ - level)
    new = ()
    if accepted and level == 0:
        new = (("beta",),) + ((("gamma", accepted - 1),) if accepted > 1 else ())
    elif accepted:
        new = (("gamma", accepted),)
    return {"to": level + accepted, "ops": {0: ("D", k)}, "new": new, "rate": 1, "offered": k, "lost": k - accepted}


def paper_service(level, K_):
    """§2, service: the server's phase clock runs (S); at a completion (S_0)
    the page leaves served and the head of the buffer, its obsolescence
    phase dropped (e_R), starts service with a phase from β; with an empty
    buffer the server idles.

    >>> [m["ops"] for m in paper_service(2, 3)]
    [{1: ('S',)}, {1: ('S0beta',), 2: ('eR',)}]
    """
    if level == 0:
        return []
    clock = {"to": level, "ops": {1: ("S",)}, "new": (), "rate": 1}
    if level == 1:
        return [clock, {"to": 0, "ops": {1: ("S0",)}, "new": (), "rate": 1, "served": 1}]
    return [clock, {"to": level - 1, "ops": {1: ("S0beta",), 2: ("eR",)}, "new": (), "rate": 1, "served": 1}]


def paper_obsolescence(level, K_):
    """§2, obsolescence: every buffered page's phase clock runs (Γ, position
    q = 1 .. i - 1); when it is absorbed (Γ_0) the page leaves the buffer,
    the pages behind it move up.

    >>> [m["ops"] for m in paper_obsolescence(2, 3)]
    [{2: ('Gamma',)}, {2: ('Gamma0',)}]
    """
    out = []
    for q in range(1, level):
        out.append({"to": level, "ops": {1 + q: ("Gamma",)}, "new": (), "rate": 1})
        out.append({"to": level - 1, "ops": {1 + q: ("Gamma0",)}, "new": (), "rate": 1, "expired": 1})
    return out


def paper_rules():
    """The rules of §2 (arrival rule, then the other rules), as interpreted by
    :func:`moves_at` and :func:`recipe_from_rules`.

    >>> [f.__name__ for f in (paper_rules()[0], *paper_rules()[1])]
    ['paper_arrival', 'paper_service', 'paper_obsolescence']
    """
    return paper_arrival, (paper_service, paper_obsolescence)


def moves_at(rules, level, K_, batch_sizes):
    """Every move of ``rules`` at ``level``: the arrival rule for each batch
    size of ``batch_sizes`` (0 = the clock), then the other rules.

    >>> len(moves_at(paper_rules(), 2, 3, range(0, 3)))
    7
    """
    arrival, others = rules
    out = [arrival(level, K_, k) for k in batch_sizes]
    for rule in others:
        out += list(rule(level, K_))
    return out


def _add_run(runs, kind, count):
    """Append ``count`` slots of ``kind`` to the run-length list ``runs`` (kind "": none)."""
    if not (kind and count):
        return
    if runs and runs[-1][0] == kind:
        runs[-1] = (kind, runs[-1][1] + count)
    else:
        runs.append((kind, count))


def _layout_runs(level):
    """The slots of a state at ``level`` (§3: ν; then m and r_1 .. r_{i-1}) as (kind, count) runs.

    >>> _layout_runs(3)
    [('nu', 1), ('m', 1), ('r', 2)]
    """
    return [("nu", 1)] + ([("m", 1)] + ([("r", level - 1)] if level > 1 else []) if level else [])


def _move_term(move, level):
    """A move as a Kronecker term: its tokens in slot order, one identity
    ``("I", a, b, c)`` (size W̄^a M^b R^c) for each run of kept slots, a rate
    other than 1 as a ``("scale", c)`` factor in front; O(tokens), whatever
    the level.  Raises ValueError when the move does not fit the state space
    of §3: a slot the level does not have, a token on the wrong slot, or a
    target state whose slots are not those of its level (the Lemma's blocks
    do not exist for such rules).

    >>> _move_term({"to": 2, "ops": {1: ("S0beta",), 2: ("eR",)}, "new": (), "rate": 1}, 3)
    (('I', 1, 0, 0), ('S0beta',), ('eR',), ('I', 0, 0, 1))
    """
    tokens, ops = rule_tokens(), move["ops"]
    slots = 1 if level == 0 else level + 1  # ν, then m and i - 1 pages; the kinds are not built: O(1) per move
    if any(not 0 <= q < slots for q in ops):
        raise ValueError(f"a move at level {level} acts on the slots {sorted(ops)}; level {level} has {slots}")
    out = [("scale", move["rate"])] if move["rate"] != 1 else []
    runs, start = [], 0  # runs: the produced slots; start: first kept slot not yet written as an identity
    for q in sorted(ops) + [slots]:
        if q > start:  # the kept slots start .. q-1: one identity, exponents (ν, m, r) counted
            exps = (int(start == 0), int(start <= 1 < q), max(0, q - max(start, 2)))
            out.append(("I", *exps))
            for kind, count in zip(("nu", "m", "r"), exps):
                _add_run(runs, kind, count)
        if q == slots:
            break
        tok, start = ops[q], q + 1
        kind = "nu" if q == 0 else "m" if q == 1 else "r"
        if tokens[tok[0]][0] != kind:
            raise ValueError(f"token {tok} acts on slot {tokens[tok[0]][0]!r}, used on {kind!r} at level {level}")
        _add_run(runs, tokens[tok[0]][1], tok[1] if tok[0] == "gamma" else 1)
        out.append(tok)
    for tok in move["new"]:
        _add_run(runs, tokens[tok[0]][1], tok[1] if tok[0] == "gamma" else 1)
    if runs != _layout_runs(move["to"]):
        raise ValueError(f"a move from level {level} produces the slots {runs}, but a state at level "
                         f"{move['to']} has {_layout_runs(move['to'])} (§3): the rules leave the Lemma's state space")
    return tuple(out) + tuple(move["new"])


def _merge_tails(terms):
    """Merge ``D_k ⊗ X + (Σ_{k'>k} D_k') ⊗ X`` into ``(Σ_{k'>=k} D_k') ⊗ X``
    (``D^(r)(1)`` when k = 0), until no pair is left."""
    terms = list(terms)
    merged = True
    while merged:
        merged = False
        for a, s in enumerate(terms):
            if s[0][0] != "D":
                continue
            for b, t in enumerate(terms):
                if t[0] == ("Dtail", s[0][1] + 1) and t[1:] == s[1:]:
                    terms[a] = (("D1",) if s[0][1] == 0 else ("Dtail", s[0][1]),) + s[1:]
                    del terms[b]
                    merged = True
                    break
            if merged:
                break
    return terms


def level_moves(rules, level, K_):
    """The moves at ``level`` for every batch size: sizes 0 .. K - i one by
    one; sizes beyond the free room K - i must act alike (checked on
    K - i + 1 and K - i + 2, else ValueError: the Lemma's tail blocks do not
    exist for these rules) and stand as one move with ``("Dtail", K - i + 1)``.

    >>> [m["ops"][0] for m in level_moves(paper_rules(), 3, 3)[:2]]
    [('D', 0), ('Dtail', 1)]
    """
    room = K_ - level
    moves = moves_at(rules, level, K_, range(0, room + 3))
    first, second = moves[room + 1], moves[room + 2]
    def shape(move):  # the move but for its arrival token
        return move["to"], {q: t for q, t in move["ops"].items() if q}, move["new"], move["rate"]

    same = shape(first) == shape(second)
    if not same:
        raise ValueError(f"level {level}, K = {K_}: batches of {room + 1} and {room + 2} pages act differently, so the "
                         f"Lemma's tail block (sum of D_k over k > K - i) does not exist for these rules")
    tail = dict(first, ops={**first["ops"], 0: ("Dtail", room + 1)})
    return moves[:room + 1] + [tail] + moves[room + 3:]


def level_recipe(rules, level, K_, _memo={}):
    """``{target: terms}``: the blocks Q_{level,target} of every target level,
    read off the rules (the terms of the moves from ``level`` to each target,
    tails merged); computed once per level for the latest (rules, K) -- the
    memo holds plain tuples, never modified, and is emptied when the rules or
    K change, so a sweep over K does not accumulate.

    >>> sorted(level_recipe(paper_rules(), 1, 3))
    [0, 1, 2, 3]
    """
    if _memo.get("for") != (rules, K_):
        _memo.clear()
        _memo["for"] = (rules, K_)
    if level not in _memo:
        by_target = {}
        for move in level_moves(rules, level, K_):
            by_target.setdefault(move["to"], []).append(_move_term(move, level))
        _memo[level] = {t: tuple(_merge_tails(terms)) for t, terms in by_target.items()}
    return _memo[level]


def recipe_from_rules(rules, level, target, K_):
    """Block Q_{level,target} as a sum of Kronecker products, read off the
    rules (:func:`level_recipe`; see :func:`lemma_recipe` for the tokens).

    >>> recipe_from_rules(paper_rules(), 1, 0, 3)
    [(('I', 1, 0, 0), ('S0',))]
    """
    return list(level_recipe(rules, level, K_).get(target, ()))


def lemma_recipe(level: int, target: int, K_: int) -> list[tuple]:
    """The block Q_{level,target} of the Lemma (§3) as a sum of Kronecker
    products, generated from the rules of §2 (:func:`paper_rules`); each term a
    tuple of factor tokens (plain data, no SymPy):

    ``("D", k)`` D_k^(chi(level)); ``("Dtail", k)`` sum_{k'>=k} D_k'; ``("D1",)``
    D(1); ``("I", a, b, c)`` the identity of size W̄^a M^b R^c; ``("beta",)``;
    ``("gamma", l)`` γ^{⊗l}; ``("S",)``; ``("S0",)``; ``("S0beta",)`` S_0 β;
    ``("eR",)`` the column of R ones; ``("Gamma",)``; ``("Gamma0",)``;
    ``("scale", c)`` the 1 x 1 factor c (rules with a rate other than 1).

    The mode is the level's: D^(chi(0)) at level 0 (the Lemma prints D^(N)).

    >>> lemma_recipe(1, 0, 3)
    [(('I', 1, 0, 0), ('S0',))]
    >>> lemma_recipe(2, 1, 3)
    [(('I', 1, 0, 0), ('S0beta',), ('eR',)), (('I', 1, 1, 0), ('Gamma0',))]
    """
    return recipe_from_rules(paper_rules(), level, target, K_)


def _rules_error(fn, *args):
    """``fn(*args)`` with the rule interpreter's ValueError as a DerivationError (the step that does not hold)."""
    try:
        return fn(*args)
    except ValueError as exc:
        raise DerivationError(f"Lemma (§3) from the rules: {exc}") from None


# --- modified rules: each changes one rule of §2 -------------------------------


def head_only_obsolescence(level, K_):
    """Modified §2: only the page at the head of the buffer ages (its Γ clock
    runs and it may become obsolete); the pages behind it keep the phase they
    arrived with until they reach the head.

    >>> [m["ops"] for m in head_only_obsolescence(3, 3)]
    [{2: ('Gamma',)}, {2: ('Gamma0',)}]
    """
    return paper_obsolescence(level, K_)[:2]


def doubled_service(level, K_):
    """Modified §2: the server runs twice as fast (S and S_0 doubled).

    >>> [m["rate"] for m in doubled_service(1, 3)]
    [2, 2]
    """
    return [dict(m, rate=2 * m["rate"]) for m in paper_service(level, K_)]


def complete_rejection(level, K_, k):
    """Modified §2 (the alternative the paper names): a batch that does not fit
    into the free room is lost whole.

    >>> complete_rejection(2, 3, 2)["to"], complete_rejection(2, 3, 2)["lost"]
    (2, 2)
    """
    move = paper_arrival(level, K_, k)
    if k <= K_ - level:
        return move
    return {"to": level, "ops": move["ops"], "new": (), "rate": 1, "offered": k, "lost": k}


def service_keeps_obsolescence(level, K_):
    """A model outside the paper's structure: the page taken into service
    keeps its obsolescence phase (it could expire while served), so a busy
    server's page needs a phase that ξ_t of §3 does not record.

    >>> service_keeps_obsolescence(2, 3)[1]["ops"]
    {1: ('S0beta',)}
    """
    return [dict(m, ops={q: t for q, t in m["ops"].items() if t != ("eR",)}) for m in paper_service(level, K_)]


def lifo_service(level, K_):
    """Modified §2: at a completion the server takes the page that arrived
    last (the tail of the buffer).  The Lemma's blocks exist (with the e_R
    factor at the last position); Theorem 4's tagged-page recursion does not.

    >>> lifo_service(3, 3)[1]["ops"]
    {1: ('S0beta',), 3: ('eR',)}
    """
    moves = paper_service(level, K_)
    if level >= 2:
        moves[1] = dict(moves[1], ops={1: ("S0beta",), level: ("eR",)})
    return moves


MODIFIED_RULES = {
    "paper": paper_rules(),
    "head-only expiry": (paper_arrival, (paper_service, head_only_obsolescence)),
    "doubled service": (paper_arrival, (doubled_service, paper_obsolescence)),
    "complete rejection": (complete_rejection, (paper_service, paper_obsolescence)),
    "LIFO service": (paper_arrival, (lifo_service, paper_obsolescence)),
}
STRUCTURE_BREAK = (paper_arrival, (service_keeps_obsolescence, paper_obsolescence))


# --- the model's matrices: generic symbols or given numbers -------------------------


class LemmaModel:
    """Model components for the Lemma (§2-§3): generic symbols by default
    (D_k^(r) off-diagonal and batch rates, S and Γ off-diagonal rates with
    exit rates S_0, Γ_0, initial vectors β, γ; diagonals fixed by the
    generator property), or given matrices (:meth:`concrete`).

    >>> LemmaModel(W_=2, M_=1, R_=1, kmax=1, modes=1).D(1, 0)
    Matrix([
    [-d1_0_01 - d1_1_00 - d1_1_01,                      d1_0_01],
    [                     d1_0_10, -d1_0_10 - d1_1_10 - d1_1_11]])
    """

    def __init__(self, W_=2, M_=2, R_=2, kmax=2, modes=2):
        self.W, self.M, self.R, self.kmax, self.modes = W_, M_, R_, kmax, modes
        self._D = {}
        for r in range(1, modes + 1):
            batches = {k: sp.Matrix(W_, W_, lambda a, b, k=k: sp.Symbol(f"d{r}_{k}_{a}{b}", nonnegative=True))
                       for k in range(1, kmax + 1)}
            D0 = sp.Matrix(W_, W_, lambda a, b: sp.Symbol(f"d{r}_0_{a}{b}", nonnegative=True) if a != b else 0)
            for a in range(W_):
                D0[a, a] = -sum(D0[a, :]) - sum(sum(batches[k][a, :]) for k in batches)
            self._D[r] = {0: D0, **batches}
        self.beta = self._stochastic("beta", M_)
        self.gamma = self._stochastic("gamma", R_)
        self.S0 = sp.Matrix([sp.Symbol(f"s0_{m}", nonnegative=True) for m in range(M_)])
        self.G0 = sp.Matrix([sp.Symbol(f"g0_{x}", nonnegative=True) for x in range(R_)])
        self.S = self._subgenerator("s", M_, self.S0)
        self.Gamma = self._subgenerator("g", R_, self.G0)

    @classmethod
    def concrete(cls, D: dict, S, beta, Gamma, gamma) -> "LemmaModel":
        """A model with given exact matrices: ``D[r][k]`` (k = 0 .. kmax, D_0 with its
        diagonal), S, β, Γ, γ (SymPy matrices or nested lists of rationals); S_0 = -S e,
        Γ_0 = -Γ e.

        >>> m = LemmaModel.concrete({1: {0: [[-3]], 1: [[3]]}}, [[-2]], [[1]], [[-1]], [[1]])
        >>> m.D(1, 1), m.S0
        (Matrix([[3]]), Matrix([[2]]))
        """
        self = cls.__new__(cls)
        self._D = {r: {k: sp.Matrix(m) for k, m in per.items()} for r, per in D.items()}
        self.modes, self.kmax = max(D), max(max(per) for per in D.values())
        self.S, self.Gamma = sp.Matrix(S), sp.Matrix(Gamma)
        self.beta, self.gamma = sp.Matrix(beta), sp.Matrix(gamma)
        self.W, self.M, self.R = self._D[1][0].rows, self.S.rows, self.Gamma.rows
        self.S0, self.G0 = -self.S * sp.ones(self.M, 1), -self.Gamma * sp.ones(self.R, 1)
        return self

    @staticmethod
    def _stochastic(name, n):
        """A generic probability row vector: the last entry is 1 minus the others."""
        head = [sp.Symbol(f"{name}{a}", nonnegative=True) for a in range(n - 1)]
        return sp.Matrix([[*head, 1 - sum(head)]])

    @staticmethod
    def _subgenerator(name, n, exits):
        T = sp.Matrix(n, n, lambda a, b: sp.Symbol(f"{name}{a}{b}", nonnegative=True) if a != b else 0)
        for a in range(n):
            T[a, a] = -sum(T[a, :]) - exits[a]
        return T

    def D(self, r, k):
        """D_k^(r) (zero beyond kmax).

        >>> LemmaModel(1, 1, 1, kmax=2, modes=1).D(1, 3)
        Matrix([[0]])
        """
        return self._D[r].get(k, sp.zeros(self.W, self.W))

    def D_tail(self, r, k):
        """sum_{k' >= k} D_k'^(r) = D^(r)(1) - sum_{k' < k} D_k'^(r), k >= 1.

        >>> LemmaModel(1, 1, 1, kmax=2, modes=1).D_tail(1, 2)
        Matrix([[d1_2_00]])
        """
        return sum((self.D(r, kk) for kk in range(k, self.kmax + 1)), sp.zeros(self.W, self.W))

    def D_one(self, r):
        """D^(r)(1) = sum_k D_k^(r) (a generator: with W̄ = 1 it is 0).

        >>> LemmaModel(1, 1, 1, kmax=2, modes=1).D_one(1)
        Matrix([[0]])
        """
        return self.D(r, 0) + self.D_tail(r, 1)

    def size(self, kind: str) -> int:
        """Number of values of a slot kind (``nu``, ``m``, ``r``)."""
        return {"nu": self.W, "m": self.M, "r": self.R}[kind]


def lemma_states(model: LemmaModel, K_: int) -> list[tuple]:
    """States (i, nu, m, r_1, ..., r_{i-1}) of §3 in lexicographic order.

    >>> len(lemma_states(LemmaModel(2, 2, 2), 3))
    30
    """
    out = [(0, nu) for nu in range(model.W)]
    for level in range(1, K_ + 1):
        out += [(level, *s) for s in itertools.product(range(model.W), range(model.M), *[range(model.R)] * (level - 1))]
    return out


def _eye(n):
    return sp.eye(n)


def _kron(*factors):
    out = factors[0]
    for f in factors[1:]:
        out = sp.kronecker_product(out, f)
    return out


def _factor(model: LemmaModel, mode: int, token: tuple) -> sp.Matrix:
    """The matrix of one token of a rule or recipe, for mode ``mode``."""
    name = token[0]
    if name == "D":
        return model.D(mode, token[1])
    if name == "Dtail":
        return model.D_tail(mode, token[1])
    if name == "D1":
        return model.D_one(mode)
    if name == "I":
        return _eye(model.W ** token[1] * model.M ** token[2] * model.R ** token[3])
    if name == "gamma":
        return _kron(sp.ones(1, 1), *[model.gamma] * token[1])
    if name == "scale":
        return sp.Matrix([[sp.nsimplify(token[1])]])
    fixed = {"beta": model.beta, "S": model.S, "S0": model.S0, "S0beta": model.S0 * model.beta,
             "eR": sp.ones(model.R, 1), "Gamma": model.Gamma, "Gamma0": model.G0}
    if name not in fixed:
        raise DerivationError(f"unknown rule token {token}")
    return fixed[name]


def _local(model: LemmaModel, mode: int, token, kind: str, value):
    """The local transitions of one slot under ``token``: (values produced, rate) pairs.
    A kept slot keeps its value; a token's matrix is read at the slot's value
    (row), its columns decoded into the values it produces."""
    if token is None:
        return [((value,), 1)]
    consumed, produced = rule_tokens()[token[0]]
    mat = _factor(model, mode, token)
    row = mat.row(value if consumed else 0)
    count = token[1] if token[0] == "gamma" else int(bool(produced))
    sizes = [model.size(produced)] * count if count else []
    out = []
    for col, rate in enumerate(row):
        if rate != 0:
            digits = []
            for size in reversed(sizes):
                col, d = divmod(col, size)
                digits.append(d)
            out.append((tuple(reversed(digits)), rate))
    return out


def generator_from_rules(model: LemmaModel, K_: int, chi, rules=None) -> sp.Matrix:
    """The generator Q of ξ_t built state by state from ``rules`` (default: the
    rules of §2): every move applied to every state, each slot's token read at
    the slot's value, batch sizes 1 .. kmax one by one; self-loops dropped and
    the diagonal set to minus the row's off-diagonal rates (so the clocks'
    diagonals are checked, not used).  ``chi[i]`` is the mode at level i.  A
    move that leaves the state space of §3 raises DerivationError.

    >>> Q = generator_from_rules(LemmaModel(1, 1, 1, kmax=1, modes=1), 2, (1, 1, 1))
    >>> sp.simplify(Q * sp.ones(Q.rows, 1)).T
    Matrix([[0, 0, 0]])
    """
    rules = paper_rules() if rules is None else rules
    states = lemma_states(model, K_)
    index = {st: n for n, st in enumerate(states)}
    Q = sp.zeros(len(states), len(states))
    for level in range(K_ + 1):
        moves = moves_at(rules, level, K_, range(0, model.kmax + 1))
        for st in (s for s in states if s[0] == level):
            for move in moves:
                _apply(model, Q, index, st, move, chi[level])
    for n in range(len(states)):
        Q[n, n] = -sum(Q[n, c] for c in range(len(states)) if c != n)
    return Q


def _apply(model, Q, index, state, move, mode):
    """Add the rates of ``move`` from ``state`` to the row of Q."""
    level, kinds = state[0], level_layout(state[0])
    if any(not 0 <= q < len(kinds) for q in move["ops"]):
        raise DerivationError(f"Lemma (§3) from the rules: a move at level {level} acts on the slots {sorted(move['ops'])}")
    options = [_local(model, mode, move["ops"].get(q), kind, v) for q, (kind, v) in enumerate(zip(kinds, state[1:]))]
    options += [_local(model, mode, tok, "", None) for tok in move["new"]]
    for combo in itertools.product(*options):
        target = (move["to"], *itertools.chain.from_iterable(vals for vals, _ in combo))
        if target not in index:
            raise DerivationError(f"Lemma (§3) from the rules: a move from {state} reaches {target}, not a state of ξ_t")
        if target != state:
            Q[index[state], index[target]] += move["rate"] * sp.Mul(*[rate for _, rate in combo])


def lemma_block(model: LemmaModel, level: int, target: int, K_: int, chi, rules=None) -> sp.Matrix | None:
    """Q_{level,target} assembled from the recipe the rules give
    (:func:`recipe_from_rules`; None: a zero block).

    >>> lemma_block(LemmaModel(1, 1, 1, kmax=1, modes=1), 1, 0, 2, (1, 1, 1))
    Matrix([[s0_0]])
    """
    rules = paper_rules() if rules is None else rules
    terms = _rules_error(recipe_from_rules, rules, level, target, K_)
    if not terms:
        return None
    return sum((_kron(*[_factor(model, chi[level], tok) for tok in term]) for term in terms[1:]),
               _kron(*[_factor(model, chi[level], tok) for tok in terms[0]]))


def level_offsets(model: LemmaModel, K_: int) -> list[int]:
    """First row of each level 0..K (and the total) in the state order of §3.

    >>> level_offsets(LemmaModel(2, 2, 2), 3)
    [0, 2, 6, 14, 30]
    """
    sizes = [model.W if lv == 0 else model.W * model.M * model.R ** (lv - 1) for lv in range(K_ + 1)]
    return [sum(sizes[:lv]) for lv in range(K_ + 2)]


def lemma_residuals(W_=2, M_=2, R_=2, kmax=3, K_=3, chi=(1, 2, 2, 1), rules=None) -> dict:
    """Compare, block by block, the generator built state by state from the
    rules (:func:`generator_from_rules`) with the Kronecker blocks of the
    recipe the same rules give (:func:`lemma_block`) on a generic symbolic
    instance; returns ``{(i, j): residual}`` for the blocks whose difference
    does not expand to the zero matrix (empty: the recipe is the generator).
    The default mode map uses mode 1 at level 0 and mode 2 = N elsewhere, so
    the level-0 mode is exercised; kmax = K exercises the tail blocks.

    >>> lemma_residuals(W_=1, M_=2, R_=2, kmax=2, K_=2, chi=(1, 1, 1))
    {}
    """
    return _residuals(W_, M_, R_, kmax, K_, tuple(chi), paper_rules() if rules is None else rules)


@functools.cache
def _residuals(W_, M_, R_, kmax, K_, chi, rules) -> dict:
    model = LemmaModel(W_, M_, R_, kmax, max(chi))
    Q = generator_from_rules(model, K_, chi, rules)
    off = level_offsets(model, K_)
    bad = {}
    for lv in range(K_ + 1):
        for tg in range(K_ + 1):
            block = Q[off[lv]:off[lv + 1], off[tg]:off[tg + 1]]
            kron = lemma_block(model, lv, tg, K_, chi, rules)
            diff = (block if kron is None else block - kron).applyfunc(sp.expand)
            if not diff.is_zero_matrix:
                bad[(lv, tg)] = diff
    return bad


# --- the printed Lemma, transcribed (compared, never used) -----------------------


def printed_lemma_recipe(level: int, target: int, K_: int) -> list[tuple]:
    """The Lemma of §3 as printed, transcribed into the tokens of
    :func:`lemma_recipe` (Kronecker sums expanded: A ⊕ B = A ⊗ I + I ⊗ B,
    Γ^{⊕n} and Γ_0^{⊕n} as sums over the buffer position q, the printed last
    term "Γ" of Γ_0^{⊕n} read as Γ_0, see ``avrachenkov.lemma.gamma0-sum``;
    identities of size 1 omitted).  The printed level-0 mode N is not a
    token: :func:`printed_level0_block` compares it.

    >>> printed_lemma_recipe(2, 1, 3)
    [(('I', 1, 0, 0), ('S0beta',), ('eR',)), (('I', 1, 1, 0), ('Gamma0',))]
    """
    def eye(a, b, c):
        return [("I", a, b, c)] if (a, b, c) != (0, 0, 0) else []

    def gamma(l):
        return [("gamma", l)] if l else []

    if level == 0:
        if target == 0:
            return [(("D", 0),)]
        head = ("D", target) if target < K_ else ("Dtail", K_)
        return [(head, ("beta",), *gamma(target - 1))]
    n = level - 1  # pages in the buffer
    if target == level - 1:
        if level == 1:
            return [(("I", 1, 0, 0), ("S0",))]
        return ([(("I", 1, 0, 0), ("S0beta",), ("eR",), *eye(0, 0, n - 1))]
                + [(("I", 1, 1, q - 1), ("Gamma0",), *eye(0, 0, n - q)) for q in range(1, n + 1)])
    if target == level:
        arrivals = ("D", 0) if level < K_ else ("D1",)
        return ([(arrivals, ("I", 0, 1, n)), (("I", 1, 0, 0), ("S",), *eye(0, 0, n))]
                + [(("I", 1, 1, q - 1), ("Gamma",), *eye(0, 0, n - q)) for q in range(1, n + 1)])
    if target > level:
        jump = target - level
        head = ("D", jump) if jump < K_ - level else ("Dtail", jump)
        return [(head, ("I", 0, 1, n), ("gamma", jump))]
    return []


def recipe_vs_printed(K_max: int = 8, rules=None) -> dict:
    """``{(K, i, j): (generated, printed)}`` for every block, K = 1 .. K_max,
    where the recipe generated from ``rules`` differs from the printed Lemma
    (terms compared as multisets; empty: the printed Lemma is what the rules give).

    >>> recipe_vs_printed(4)
    {}
    >>> sorted(recipe_vs_printed(3, MODIFIED_RULES["head-only expiry"]))
    [(3, 3, 2), (3, 3, 3)]
    """
    rules = paper_rules() if rules is None else rules
    out = {}
    for K_ in range(1, K_max + 1):
        for lv in range(K_ + 1):
            for tg in range(K_ + 1):
                got, want = _rules_error(recipe_from_rules, rules, lv, tg, K_), printed_lemma_recipe(lv, tg, K_)
                if sorted(got) != sorted(want):
                    out[(K_, lv, tg)] = (got, want)
    return out


def printed_level0_block(model: LemmaModel, target: int, K_: int) -> sp.Matrix:
    """Q_{0,target} as printed: mode N (all robots) at level 0, whatever chi(0).

    >>> printed_level0_block(LemmaModel(1, 1, 1, kmax=1, modes=2), 0, 2)
    Matrix([[-d2_1_00]])
    """
    return lemma_block(model, 0, target, K_, {0: model.modes})


# --- §4-§5: the performance measures as functionals of p, from the rules --------
#
# Every measure of Theorems 1-3 (and V̄ of Corollary 1, by Little's law) is
# sum_i p_i f_i / (a normaliser) with one column vector f_i per level.  The
# vectors are built from the rules: a move that offers, loses, serves or lets
# become obsolete c pages contributes c times its rates (its Kronecker term
# times e); the idle and mode indicators come from the levels' slots and the
# mode map.  The printed vectors (eqs. (5), (7)-(9), (14), (15)) are typed
# from the paper and compared.

COUNTS = ("offered", "lost", "served", "expired")


def _term_rates(model: LemmaModel, mode: int, term: tuple) -> sp.Matrix:
    """The rates of one Kronecker term summed over its targets: (term) e."""
    block = _kron(*[_factor(model, mode, tok) for tok in term])
    return block * sp.ones(block.cols, 1)


def rate_functionals(model: LemmaModel, K_: int, chi, rules=None) -> dict:
    """``{count: [f_0, ..., f_K]}`` for ``offered``, ``lost``, ``served``,
    ``expired``: f_i = sum over the moves at level i (batch sizes 0 .. kmax
    one by one) of the move's count times its Kronecker term times e; and
    ``pages`` (f_i = i e), ``idle`` (e at the levels whose states have no
    server phase, §3), ``mode n`` (e at the levels with chi(i) = n).

    >>> f = rate_functionals(LemmaModel(1, 1, 1, kmax=1, modes=1), 2, (1, 1, 1))
    >>> f["offered"][0], f["lost"][2], f["expired"][2], f["idle"]
    (Matrix([[d1_1_00]]), Matrix([[d1_1_00]]), Matrix([[g0_0]]), [Matrix([[1]]), Matrix([[0]]), Matrix([[0]])])
    """
    rules = paper_rules() if rules is None else rules
    sizes = [b - a for a, b in itertools.pairwise(level_offsets(model, K_))]
    out = {c: [sp.zeros(n, 1) for n in sizes] for c in COUNTS}
    for level in range(K_ + 1):
        for move in moves_at(rules, level, K_, range(0, model.kmax + 1)):
            rates = None
            for c in COUNTS:
                if move.get(c, 0):
                    if rates is None:
                        rates = _term_rates(model, chi[level], _rules_error(_move_term, move, level))
                    out[c][level] += move[c] * rates
    out["pages"] = [lv * sp.ones(n, 1) for lv, n in enumerate(sizes)]
    out["idle"] = [sp.ones(n, 1) * int("m" not in level_layout(lv)) for lv, n in enumerate(sizes)]
    for mode in sorted(set(chi[lv] for lv in range(K_ + 1))):
        out[f"mode {mode}"] = [sp.ones(n, 1) * int(chi[lv] == mode) for lv, n in enumerate(sizes)]
    return out


def measures_from(p: list, f: dict) -> dict:
    r"""The measures of §4-§5 from the level blocks ``p`` of a stationary
    vector and the functionals ``f`` (:func:`rate_functionals`):
    :math:`\lambda = \sum_i p_i f^{offered}_i` (eq. (9)), P_loss, P_obs,
    P_success the lost, obsolete and served page rates over λ (Theorems 2, 3),
    P_star the idle probability (Theorem 1, (5)), φ_n and N_act from the mode
    indicators ((6), (7)), V̄ = (mean number in system)/λ (Little's law: each
    offered page stays V̄ on average, 0 when lost; Corollary 1's (22)).

    >>> f = rate_functionals(LemmaModel(1, 1, 1, kmax=1, modes=1), 1, (1, 1))
    >>> sp.simplify(measures_from([sp.Matrix([[sp.Rational(1, 2)]])] * 2, f)["P_loss"])
    1/2
    """
    def total(name):
        return sp.expand(sum(((pi * fi)[0, 0] for pi, fi in zip(p, f[name])), sp.Integer(0)))

    lam = total("offered")
    out = {"lambda": lam, "P_loss": total("lost") / lam, "P_obs": total("expired") / lam,
           "P_success": total("served") / lam, "P_star": total("idle"), "V_bar": total("pages") / lam}
    modes = sorted(int(k.split()[1]) for k in f if k.startswith("mode "))
    out["phi"] = {n: total(f"mode {n}") for n in modes}
    out["N_act"] = sum(n * out["phi"][n] for n in modes)
    return out


def stationary_exact(model: LemmaModel, K_: int, chi, rules=None) -> list:
    """The stationary vector of the generator built state by state from the
    rules (:func:`generator_from_rules`), solved exactly (pQ = 0, pe = 1), as
    level blocks.  Raises DerivationError when it is not unique.

    >>> m = LemmaModel.concrete({1: {0: [[-1]], 1: [[1]]}}, [[-1]], [[1]], [[-1]], [[1]])
    >>> stationary_exact(m, 1, (1, 1))
    [Matrix([[1/2]]), Matrix([[1/2]])]
    """
    Q = generator_from_rules(model, K_, chi, rules)
    n = Q.rows
    system = Q.T.col_join(sp.ones(1, n))
    rhs = sp.zeros(n, 1).col_join(sp.Matrix([[1]]))
    sol = sp.linsolve((system, rhs))
    if len(sol) != 1 or next(iter(sol)).free_symbols & set(sp.symbols(f"tau0:{n}")):
        raise DerivationError(f"stationary law of the rules' generator: not unique ({len(sol)} solutions)")
    p = sp.Matrix([list(next(iter(sol)))]).applyfunc(sp.factor)
    off = level_offsets(model, K_)
    return [p[:, off[lv]:off[lv + 1]] for lv in range(K_ + 1)]


def printed_functionals(model: LemmaModel, K_: int, chi, thresholds) -> dict:
    """The per-level vectors of the printed Theorems 1-3, transcribed (compared,
    never used): (9) λ: sum_k k (D_k ⊗ I) e; (8): P_loss = 1 - (1/λ) sum_i p_i
    sum_{k=0}^{K-i} (k - K + i)(D_k ⊗ I) e, i.e. the loss vector sum_k k D_k e
    minus that sum; (14) (I ⊗ I ⊗ Γ_0^{⊕(i-1)}) e; (15) (I ⊗ S_0 ⊗ I) e;
    (5) p_0 e; (7) φ_n over the levels j_{N-n}+1 .. j_{N+1-n}, ``thresholds``
    = (j_1, ..., j_{N-1}), j_0 = -1, j_N = K.

    >>> pf = printed_functionals(LemmaModel(1, 1, 1, kmax=1, modes=1), 1, (1, 1), ())
    >>> pf["served"][1], pf["mode 1"]
    (Matrix([[s0_0]]), [Matrix([[1]]), Matrix([[1]])])
    """
    sizes = [b - a for a, b in itertools.pairwise(level_offsets(model, K_))]
    rest = [1 if lv == 0 else model.M * model.R ** (lv - 1) for lv in range(K_ + 1)]

    def arrivals(lv, weight):
        return sum((weight(k) * _kron(model.D(chi[lv], k), _eye(rest[lv])) * sp.ones(sizes[lv], 1)
                    for k in range(0, model.kmax + 1)), sp.zeros(sizes[lv], 1))

    out = {"offered": [arrivals(lv, lambda k: k) for lv in range(K_ + 1)]}
    out["lost"] = [arrivals(lv, lambda k: k) - arrivals(lv, lambda k, lv=lv: (k - K_ + lv) * int(k <= K_ - lv))
                   for lv in range(K_ + 1)]
    out["served"] = [sp.zeros(sizes[0], 1)] + [_kron(_eye(model.W), model.S0, _eye(model.R ** (lv - 1))) * sp.ones(sizes[lv] // model.M, 1)
                                        for lv in range(1, K_ + 1)]
    out["expired"] = [sp.zeros(sizes[lv], 1) if lv < 2 else
                      sum((_kron(_eye(model.W * model.M * model.R ** (q - 1)), model.G0, _eye(model.R ** (lv - 1 - q)))
                           * sp.ones(sizes[lv] // model.R, 1) for q in range(1, lv)), sp.zeros(sizes[lv], 1))
                      for lv in range(K_ + 1)]
    out["idle"] = [sp.ones(n, 1) * int(lv == 0) for lv, n in enumerate(sizes)]
    N = len(thresholds) + 1
    j = (-1, *thresholds, K_)
    for n in range(1, N + 1):
        out[f"mode {n}"] = [sp.ones(sz, 1) * int(j[N - n] + 1 <= lv <= j[N + 1 - n]) for lv, sz in enumerate(sizes)]
    return out


def modes_from_thresholds(thresholds, K_: int) -> tuple:
    """chi(i) of §2/§3: with j_0 = -1 < j_1 <= ... <= j_{N-1} <= j_N = K, the
    level i with j_{r-1} + 1 <= i <= j_r runs N - r + 1 robots.

    >>> modes_from_thresholds((1,), 3)
    (2, 2, 1, 1)
    """
    j, N = (-1, *thresholds, K_), len(thresholds) + 1
    return tuple(next(N - r + 1 for r in range(1, N + 1) if j[r - 1] + 1 <= i <= j[r]) for i in range(K_ + 1))


def functionals_vs_printed(model: LemmaModel, K_: int, thresholds, rules=None) -> dict:
    """``{(name, level): difference}`` where the functionals derived from the
    rules differ from the printed ones (entries expanded; empty: the printed
    Theorems 1-3 are what the rules give).  The mode map is the paper's
    (:func:`modes_from_thresholds`).

    >>> functionals_vs_printed(LemmaModel(1, 1, 2, kmax=2, modes=1), 2, ())
    {}
    """
    chi = modes_from_thresholds(thresholds, K_)
    got, want = rate_functionals(model, K_, chi, rules), printed_functionals(model, K_, chi, thresholds)
    out = {}
    for name, vectors in want.items():
        for lv, (a, b) in enumerate(zip(got[name], vectors)):
            diff = (a - b).applyfunc(sp.expand)
            if not diff.is_zero_matrix:
                out[(name, lv)] = diff
    return out


# --- §5: the tagged page (Theorem 4, Corollary 1) from the rules ------------------
#
# An arriving page is followed until it leaves: its chain holds the pages up to
# it (the server's, then the buffered ones ahead, then its own), without ν and
# without the pages behind it; its moves are the rules' moves other than
# arrivals (assumed: later arrivals join behind it and pages behind never act on
# it -- true for FIFO rules such as §2's; a rule that takes the tagged page into
# service while pages are ahead of it, e.g. LIFO, is refused).  A move ends
# the tagged page's sojourn when it removes the last page: a service completion
# at level 1 (served) or the expiry of the last buffered page (obsolete).

DEPARTS = {"S0": "served", "S0beta": "served", "Gamma0": "expired"}


def _tag_term(model: LemmaModel, mode: int, level: int, move, first=None) -> sp.Matrix:
    """The Kronecker product of a move over the tagged chain's slots (ν dropped, or replaced by ``first``)."""
    ops, new, rate = move["ops"], move["new"], move["rate"]
    factors = [first] if first is not None else []
    for q, kind in enumerate(level_layout(level)):
        if q == 0:
            continue
        factors.append(_eye(model.size(kind)) if q not in ops else _factor(model, mode, ops[q]))
    factors += [_factor(model, mode, tok) for tok in new]
    return sp.nsimplify(rate) * _kron(*factors)


def tagged_chain(model: LemmaModel, K_: int, rules=None) -> tuple:
    """(T, exits, offsets): the tagged page's sub-generator over levels 1..K
    (level l: the tagged page is the l-th page, states m, r_1 .. r_{l-1}),
    ``exits = {"served": t_s, "expired": t_o}`` its absorption rates, and the
    first row of each level (index 0: level 1).  Built from the non-arrival
    rules; raises DerivationError when one of them acts on ν (the tagged
    page's sojourn would depend on the arrival process, against Theorem 4's
    proof) or when T e + t_s + t_o is not 0.

    >>> m = LemmaModel.concrete({1: {0: [[-1]], 1: [[1]]}}, [[-2]], [[1]], [[-3]], [[1]])
    >>> T, exits, _ = tagged_chain(m, 2)
    >>> T, exits["served"].T, exits["expired"].T
    (Matrix([
    [-2,  0],
    [ 2, -5]]), Matrix([[2, 0]]), Matrix([[0, 3]]))
    """
    rules = paper_rules() if rules is None else rules
    sizes = [model.M * model.R ** (lv - 1) for lv in range(1, K_ + 1)]
    offsets = [sum(sizes[:n]) for n in range(K_ + 1)]
    T = sp.zeros(offsets[-1], offsets[-1])
    exits = {"served": sp.zeros(offsets[-1], 1), "expired": sp.zeros(offsets[-1], 1)}
    for level in range(1, K_ + 1):
        for rule in rules[1]:
            for move in rule(level, K_):
                if 0 in move["ops"]:
                    raise DerivationError(f"Theorem 4 (§5) from the rules: a move at level {level} acts on the arrival "
                                          f"phase ({move['ops'][0]}), so the tagged page's sojourn depends on arrivals")
                block = _tag_term(model, 1, level, move)
                rows = slice(offsets[level - 1], offsets[level])
                last = move["ops"].get(level)  # the tagged page's slot: m at level 1, r_{l-1} above
                if last == ("eR",) and level != 2:
                    raise DerivationError(f"Theorem 4 (§5) from the rules: at level {level} the tagged page is taken "
                                          f"into service ahead of the pages in front of it (pages are not served in "
                                          f"order), so its sojourn is not the recursion over the pages ahead")
                if last is not None and last[0] in DEPARTS:
                    exits[DEPARTS[last[0]]][rows, :] += block * sp.ones(block.cols, 1)
                else:
                    cols = slice(offsets[move["to"] - 1], offsets[move["to"]])
                    T[rows, cols] += block
    for entry in T * sp.ones(T.cols, 1) + exits["served"] + exits["expired"]:
        require_zero(entry, "the tagged page's chain: T e + t_served + t_obsolete = 0")
    return T, exits, offsets


def tagged_arrivals(model: LemmaModel, K_: int, chi, p: list, rules=None) -> sp.Matrix:
    r"""The tagged page's initial row over :func:`tagged_chain`'s states, times λ:
    sum over the level i it finds, its batch size k and its place l <= min(k,
    K - i) in the batch (each with probability 1/k, the k pages of a batch
    each tagged, Theorem 4's :math:`p_{i,k}` and :math:`C_{i,l}`) of
    :math:`p_i (D_k e \otimes \cdot)` times the state a batch of l pages
    leaves (the arrival rule at size l, pages behind the tagged one dropped).

    >>> m = LemmaModel.concrete({1: {0: [[-1]], 1: [[1]]}}, [[-2]], [[1]], [[-3]], [[1]])
    >>> tagged_arrivals(m, 2, (1, 1, 1), [sp.Matrix([[sp.Rational(1, 2)]]), sp.Matrix([[sp.Rational(1, 3)]]), sp.Matrix([[sp.Rational(1, 6)]])])
    Matrix([[1/2, 1/3]])
    """
    rules = paper_rules() if rules is None else rules
    sizes = [model.M * model.R ** (lv - 1) for lv in range(1, K_ + 1)]
    offsets = [sum(sizes[:n]) for n in range(K_ + 1)]
    alpha = sp.zeros(1, offsets[-1])
    for level in range(K_):
        for k in range(1, model.kmax + 1):
            De = model.D(chi[level], k) * sp.ones(model.W, 1)
            for l in range(1, min(k, K_ - level) + 1):
                move = rules[0](level, K_, l)
                if move["to"] != level + l:
                    continue  # the tagged page is not admitted
                row = p[level] * _tag_term(model, chi[level], level, move, first=De)
                alpha[:, offsets[level + l - 1]:offsets[level + l]] += row
    return alpha


def sojourn_means(model: LemmaModel, K_: int, chi, p: list, rules=None) -> dict:
    r"""Corollary 1 from the tagged page's chain: with α the tagged page's
    initial row (:func:`tagged_arrivals` / λ), :math:`P_{success} = \alpha(-T)^{-1}t_s`,
    :math:`\bar V^{(1)} = \alpha(-T)^{-2}t_s / P_{success}`, the same with
    :math:`t_o` for :math:`\bar V^{(2)}` (:math:`E[\tau 1\{\cdot\}] = \alpha(-T)^{-2}t`
    for an absorbing chain), :math:`\bar V = \bar V^{(1)}P_{success} + \bar V^{(2)}P_{obs}`
    (22); exact for exact inputs.

    >>> m = LemmaModel.concrete({1: {0: [[-1]], 1: [[1]]}}, [[-2]], [[1]], [[-3]], [[1]])
    >>> sojourn_means(m, 1, (1, 1), [sp.Matrix([[sp.Rational(2, 3)]]), sp.Matrix([[sp.Rational(1, 3)]])])["V1"]
    1/2
    """
    T, exits, _ = tagged_chain(model, K_, rules)
    lam = sum(((pi * f)[0, 0] for pi, f in zip(p, rate_functionals(model, K_, chi, rules)["offered"])), sp.Integer(0))
    alpha = tagged_arrivals(model, K_, chi, p, rules) / lam
    out = {}
    for name, key in (("served", "1"), ("expired", "2")):
        once = (-T).LUsolve(exits[name])
        twice = (-T).LUsolve(once)
        prob, time = (alpha * once)[0, 0], (alpha * twice)[0, 0]
        out[f"P_{name}"], out[f"V{key}"] = prob, (time / prob if prob != 0 else sp.Integer(0))
    out["V"] = out["V1"] * out["P_served"] + out["V2"] * out["P_expired"]
    return out



def sojourn_transforms(model: LemmaModel, K_: int, chi, p: list, u, rules=None) -> dict:
    r"""Theorem 4 at a catastrophe rate u > 0 from the tagged page's chain:
    :math:`v^{(1)}(u) = \alpha(uI - T)^{-1}t_s / P_{success}`, :math:`v^{(2)}(u)`
    the same with :math:`t_o` and :math:`P_{obs}`, and (16)
    :math:`v(u) = v^{(1)}(u)P_{success} + v^{(2)}(u)P_{obs} + P_{loss}` (a lost
    page stays 0).

    >>> m = LemmaModel.concrete({1: {0: [[-1]], 1: [[1]]}}, [[-2]], [[1]], [[-3]], [[1]])
    >>> sojourn_transforms(m, 1, (1, 1), [sp.Matrix([[sp.Rational(2, 3)]]), sp.Matrix([[sp.Rational(1, 3)]])], 1)["v1"]
    2/3
    """
    T, exits, _ = tagged_chain(model, K_, rules)
    f = rate_functionals(model, K_, chi, rules)
    lam = sum(((pi * g)[0, 0] for pi, g in zip(p, f["offered"])), sp.Integer(0))
    lost = sum(((pi * g)[0, 0] for pi, g in zip(p, f["lost"])), sp.Integer(0)) / lam
    alpha = tagged_arrivals(model, K_, chi, p, rules) / lam
    shifted = sp.nsimplify(u) * sp.eye(T.rows) - T
    out = {}
    for name, key in (("served", "1"), ("expired", "2")):
        prob = (alpha * (-T).LUsolve(exits[name]))[0, 0]
        joint = (alpha * shifted.LUsolve(exits[name]))[0, 0]
        out[f"v{key}"] = joint / prob if prob != 0 else sp.Integer(0)
        out[f"P_{name}"] = prob
    out["v"] = out["v1"] * out["P_served"] + out["v2"] * out["P_expired"] + lost
    return out


def generated_sources() -> dict:
    """Rule functions emitted verbatim by ``crawlmath codegen`` (plain Python,
    no SymPy): the rules of §2 and their interpreter go to
    ``numeric/generated/avrachenkov_lemma.py``, whose :func:`lemma_recipe`
    ``numeric/bmap_model.kronecker_blocks`` assembles the generator from.
    The recipe is what the rules give (claim ``avrachenkov.lemma.derived.blocks``
    checks it against the generator built state by state from the same rules,
    ``avrachenkov.lemma.derived.printed`` against the printed Lemma).

    >>> [fn.__name__ for fn in generated_sources()["avrachenkov_lemma"]["functions"]][-1]
    'lemma_recipe'
    """
    doc = ("The Lemma of §3 (Avrachenkov et al.) as a recipe of Kronecker products,\n"
           "generated from the rules of §2 (stated once, in local form, in\n"
           "crawlmath.derive.avrachenkov) by the interpreter recipe_from_rules; checked\n"
           "there against the generator built state by state from the same rules\n"
           "(claim avrachenkov.lemma.derived.blocks) and against the printed Lemma\n"
           "(avrachenkov.lemma.derived.printed); numeric/bmap_model.kronecker_blocks\n"
           "interprets its tokens.")
    functions = (rule_tokens, paper_arrival, paper_service, paper_obsolescence, paper_rules, moves_at,
                 _add_run, _layout_runs, _move_term, _merge_tails, level_moves, level_recipe, recipe_from_rules, lemma_recipe)
    return {"avrachenkov_lemma": {"doc": doc, "functions": functions}}


def formulas() -> list[Formula]:
    """The closed forms emitted to ``numeric/generated/avrachenkov.py``, with
    their provenance (the checks named there run here, each time).

    >>> [f.name for f in formulas()]
    ['avrachenkov_states', 'avrachenkov_alpha2', 'avrachenkov_h2_variance']
    """
    check_level_size()
    check_printed_mean()
    layout = assumed("the state space of ξ_t (§3): level i holds ν, then m and r_1 .. r_{i-1} (level_layout)")
    size = typed("level size W̄ M^{a_i} R^{b_i} (§3)", f"check_level_size: the product of level_layout's slot sizes, "
                 f"symbolic W̄, M, R, i = {LEVEL_SIZE_CHECKED.start}..{LEVEL_SIZE_CHECKED.stop - 1}")
    h2 = assumed("the two-phase hyperexponential of §7: density β e^{St} S_0, β = (β_1, 1 - β_1), S = diag(-α_1, -α_2)")
    mean = derived("b_1 = β_1/α_1 + (1 - β_1)/α_2", "integral of t times the density (SymPy), equal to the printed "
                   "β(-S)^{-1} e (check_printed_mean)")
    return [
        Formula("avrachenkov_states", (W, M, R, K), state_space_dimension(), CITE, "state-space dimension of the chain xi_t",
                printed=printed_dimension(), domain={"W": (1, 4), "M": (1, 4), "R": (1, 4), "K": (1, 20)},
                inputs=(layout, size, derived("the dimension", "symbolic sum of the level sizes over i = 0..K"))),
        Formula("avrachenkov_alpha2", (alpha1, b1, beta1), alpha2_for_mean(), "(Avrachenkov et al., §7)",
                "alpha2 keeping the hyperexponential mean at b1 (needs alpha1 b1 > beta1)",
                domain={"alpha1": (2.0, 10.0), "b1": (0.6, 2.0), "beta1": (0.05, 0.9)},
                inputs=(h2, mean, derived("alpha2", "the one root of b_1 = E[X] in alpha2 (sp.solve)"))),
        Formula("avrachenkov_h2_variance", (alpha1, alpha2, beta1), hyperexponential_variance(), "(Avrachenkov et al., §7)",
                "variance of the two-phase hyperexponential",
                domain={"alpha1": (0.1, 10.0), "alpha2": (0.1, 10.0), "beta1": (0.01, 0.99)},
                inputs=(h2, derived("var = E[X^2] - E[X]^2", "both moments integrated from the density (SymPy)"))),
    ]
