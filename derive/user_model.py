r"""A user's own model, read from a JSON file, and the registry of model kinds.

``crawlmath codegen --model FILE`` emits code (Python with its mpmath twin,
C, LaTeX) for a model the user states, not only for the papers'.  The file
names the model's ``kind`` and its parts; the schema
``numeric/schemas/user-model.schema.json`` checks its structure (one
``$defs`` entry per kind), :func:`parse_expression` reads the formulas in it
and the kind's ``build`` turns the parts into the model object that the
kind's derivation module takes as input (the paper's model is the same
object with its default parts).  A file of the static M/M/1/K kind::

    {"kind": "static-mm1k", "name": "doubled_loss",
     "service": "mu", "capacity": "K", "weights": {"idle": "gamma", "loss": 2}}

Expressions are never handed to ``sympify``/``parse_expr`` (they ``eval``):
:func:`parse_expression` reads a whitelist grammar -- decimal numbers (read
exactly: ``0.1`` is 1/10), the names a field allows, ``+ - * / **``,
parentheses and the functions ``exp``, ``log``, ``sqrt`` -- and refuses
anything else with `InvalidInput` naming the field.  Sizes are bounded
(:data:`MAX_CHARS` characters, :data:`MAX_DEPTH` nested parentheses, number
literals of at most :data:`MAX_LITERAL` characters, exponents a number of
size at most :data:`MAX_EXPONENT` or linear in the names (any exponent on
a power of names for a kind that never substitutes numbers, ``any_exponent``), no towers of
powers, a number to a symbolic power growing by at most 2^8 per unit of a
name), so no input makes SymPy build a gigantic number.

A kind is registered with a few lines (:func:`register`): its ``$defs`` name
in the schema, a ``build`` from the checked document to the model object, and
the derivation's ``model_formulas(model)``, which returns the `Formula`
objects that derive for the model and the ones refused with the step that
failed (see :func:`crawlmath.derive.static_mm1k.model_formulas`).

>>> doc = {"kind": "static-mm1k", "name": "doubled_loss", "service": "mu", "capacity": "K",
...        "weights": {"idle": "gamma", "loss": 2}}
>>> model = build(doc)
>>> model
StaticModel(service=mu, capacity=K, idle_weight=gamma, loss_weight=2)
>>> parse_expression("mu*(1 + n/K)", {"mu": mu, "n": n, "K": K}, "service")
mu*(1 + n/K)
>>> try:
...     parse_expression("__import__('os')", {"mu": mu}, "service")
... except InvalidInput as exc:
...     print(exc)
service: '_' at position 0 is not part of the grammar (numbers, names, + - * / **, parentheses, exp, log, sqrt) (got "__import__('os')")
"""
from __future__ import annotations

import dataclasses
import json
import math
import re
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Callable, Mapping

import sympy as sp

from ..numeric.errors import InvalidInput
from . import static_mm1k
from .static_mm1k import K, gamma, mu, n, rho

SCHEMA_PATH = Path(__file__).resolve().parent.parent / "numeric" / "schemas" / "user-model.schema.json"

MAX_CHARS = 500  # an expression's length: a model's law fits in a line
MAX_DEPTH = 20  # nested parentheses (the parser recurses per level)
MAX_LITERAL = 30  # characters of one number literal ("1e999999" would be a million-digit integer)
MAX_EXPONENT = 100  # size of a number in an exponent (2**(100*n) at the largest numeric capacity, 20, has 2000 bits)
MAX_BITS = 4096  # a number computed while parsing ((2**100)**100 is refused)
MAX_GROWTH_BITS = 8  # a number to a symbolic power: at most 2^8 per unit of a name (256**n, 2**(8*n), exp(n) pass)
FUNCTIONS: dict[str, Callable[[sp.Expr], sp.Expr]] = {"exp": sp.exp, "log": sp.log, "sqrt": sp.sqrt}

_TOKEN = re.compile(r"\s*(?:(?P<number>(?:\d+\.?\d*|\.\d+)(?:[eE][+-]?\d+)?)|(?P<name>[A-Za-z][A-Za-z0-9_]*)"
                    r"|(?P<op>\*\*|[-+*/()]))")


def _refuse(where: str, rule: str, text: str):
    return InvalidInput(where, rule, value=text)


class _Parser:
    """Recursive descent over the grammar

    ``expr := term (('+'|'-') term)*``; ``term := unary (('*'|'/') unary)*``;
    ``unary := ('+'|'-') unary | power``; ``power := atom ('**' unary)?``;
    ``atom := NUMBER | NAME | FUNCTION '(' expr ')' | '(' expr ')'``

    (Python's precedence: ``-x**2`` is ``-(x**2)``, ``2**-1`` is 1/2, ``**`` binds to the right)."""

    def __init__(self, text: str, names: Mapping[str, sp.Expr], where: str, any_exponent: bool = False):
        self.text, self.names, self.where, self.any_exponent = text, names, where, any_exponent
        self.tokens = self._tokenize()
        self.pos = 0
        self.depth = 0

    def fail(self, rule: str):
        return _refuse(self.where, rule, self.text)

    def _tokenize(self) -> list[tuple[str, str]]:
        tokens, at = [], 0
        while at < len(self.text):
            m = _TOKEN.match(self.text, at)
            if not m or m.end() == at:
                rest = self.text[at:].lstrip()
                if not rest:
                    break
                hint = " (powers are written **)" if rest[0] == "^" else ""
                raise self.fail(f"{rest[0]!r} at position {len(self.text) - len(rest)} is not part of the grammar "
                                f"(numbers, names, + - * / **, parentheses, {', '.join(FUNCTIONS)}){hint}")
            kind = m.lastgroup
            tokens.append((kind, m.group(kind)))
            at = m.end()
        return tokens

    def peek(self) -> tuple[str, str] | None:
        return self.tokens[self.pos] if self.pos < len(self.tokens) else None

    def take(self, value: str | None = None) -> tuple[str, str]:
        token = self.peek()
        if token is None or (value is not None and token[1] != value):
            found = "the end" if token is None else repr(token[1])
            wanted = repr(value) if value else "a number, a name or ("
            raise self.fail(f"expected {wanted} but found {found}")
        self.pos += 1
        return token

    def parse(self) -> sp.Expr:
        if not self.tokens:
            raise self.fail("is empty")
        value = self.expr()
        if self.peek() is not None:
            raise self.fail(f"unexpected {self.peek()[1]!r} after a complete expression")
        self.check_growth(value)  # what SymPy built: 2**(8*n)*2**(8*n) is 2**(16*n), 2**n*3**n two growths
        return value

    def expr(self) -> sp.Expr:
        value = self.term()
        while self.peek() and self.peek()[1] in "+-" and self.peek()[0] == "op":
            op = self.take()[1]
            right = self.term()
            value = value + right if op == "+" else value - right
        return value

    def term(self) -> sp.Expr:
        value = self.unary()
        while self.peek() and self.peek()[1] in ("*", "/"):
            op = self.take()[1]
            right = self.unary()
            if op == "/" and right == 0:
                raise self.fail("divides by zero")
            value = value * right if op == "*" else value / right
        return value

    def unary(self) -> sp.Expr:
        token = self.peek()
        if token and token[1] in ("+", "-"):
            self.take()
            value = self.unary()
            return -value if token[1] == "-" else value
        return self.power()

    def power(self) -> sp.Expr:
        base = self.atom()
        if self.peek() and self.peek()[1] == "**":
            self.take()
            exponent = self.unary()
            self._check_power(base, exponent)
            value = base**exponent
            if any(max(abs(c.p), c.q).bit_length() > MAX_BITS for c in value.atoms(sp.Rational)):
                raise self.fail(f"a number in it has more than {MAX_BITS} bits")
            return value
        return base

    def _check_power(self, base: sp.Expr, exponent: sp.Expr) -> None:
        if base == 0 and (exponent.is_number and exponent.is_negative):
            raise self.fail("divides by zero (0 to a negative power)")
        if any(abs(c) > MAX_EXPONENT for c in exponent.atoms(sp.Number)):
            raise self.fail(f"an exponent's numbers must be at most {MAX_EXPONENT} in size")
        if not exponent.is_number:
            if self.any_exponent and not base.is_number:
                return  # a name's power never becomes a number while deriving (any_exponent): nothing to grow
            linear = exponent.is_polynomial() and sp.Poly(exponent).total_degree() <= 1
            if not linear or any(not p.exp.is_number for p in base.atoms(sp.Pow)) or base.has(sp.exp):
                raise self.fail("an exponent must be a number or linear in the names, with no power tower "
                                "(a power of a power with a symbolic exponent)")
            self.check_growth(base**exponent)

    def check_growth(self, value: sp.Expr) -> None:
        """The numbers to symbolic powers in ``value`` grow together by at most 2^MAX_GROWTH_BITS per unit of a
        name: at a numeric capacity SymPy multiplies such factors out over every state (100**(100*n) at K = 6 runs
        for minutes)."""
        bits = 0.0
        for power in value.atoms(sp.Pow):
            base, exponent = power.as_base_exp()
            if exponent.is_number or not base.is_number or base == 1:
                continue
            if base == 0:
                raise self.fail("0 to a symbolic power")
            slope = max(abs(exponent.diff(v)) for v in exponent.free_symbols)
            size = (math.log2(abs(base.p)) - math.log2(base.q)) if base.is_Rational else math.log2(abs(float(base)))
            bits += float(slope) * abs(size)
        if bits > MAX_GROWTH_BITS:
            raise self.fail(f"numbers to symbolic powers may grow by at most 2^{MAX_GROWTH_BITS} per unit of a name "
                            f"together (here 2^{bits:.3g})")

    def atom(self) -> sp.Expr:
        kind, value = self.take()
        if kind == "number":
            if len(value) > MAX_LITERAL:
                raise self.fail(f"a number literal has at most {MAX_LITERAL} characters")
            mantissa, _, power = value.lower().partition("e")
            if power and abs(int(power)) > MAX_EXPONENT:
                raise self.fail(f"a number's decimal exponent must be at most {MAX_EXPONENT} in size")
            return sp.Rational(value)
        if value == "(":
            return self.nested(self.expr)
        if kind == "name" and value in FUNCTIONS:
            self.take("(")
            return FUNCTIONS[value](self.nested(self.expr))
        if kind == "name" and value in self.names:
            return self.names[value]
        allowed = ", ".join(self.names) or "no names"
        if kind == "name":
            raise self.fail(f"the name {value!r} is not allowed here (allowed: {allowed}, and the functions "
                            f"{', '.join(FUNCTIONS)})")
        raise self.fail(f"expected a number, a name or ( but found {value!r}")

    def nested(self, inner: Callable[[], sp.Expr]) -> sp.Expr:
        self.depth += 1
        if self.depth > MAX_DEPTH:
            raise self.fail(f"is nested more than {MAX_DEPTH} parentheses deep")
        value = inner()
        self.take(")")
        self.depth -= 1
        return value


def parse_expression(text, names: Mapping[str, sp.Expr], where: str, any_exponent: bool = False) -> sp.Expr:
    """The SymPy expression ``text`` states, read by the whitelist grammar of
    :class:`_Parser` (never ``eval``): numbers exactly (``0.1`` is 1/10), the
    ``names`` given (name -> SymPy symbol), ``+ - * / **``, parentheses,
    ``exp``, ``log``, ``sqrt``.  A JSON number (int or `DecimalText`) is read
    from its text.  Anything else is `InvalidInput` naming ``where``.
    ``any_exponent``: a power of an expression that is not a number may have any exponent (h**(2/x)), for a kind
    whose derivation never replaces a name by a number (a numeric capacity makes n**(n**5) a huge integer, so the
    static kind keeps exponents linear); a number's power keeps the linear, growth-bounded rule.

    >>> parse_expression("2.5*mu**2 - 1/3", {"mu": mu}, "w")
    5*mu**2/2 - 1/3
    >>> parse_expression(0.1, {}, "w")
    1/10
    >>> try:
    ...     parse_expression("mu^2", {"mu": mu}, "w")
    ... except InvalidInput as exc:
    ...     print(exc.rule)
    '^' at position 2 is not part of the grammar (numbers, names, + - * / **, parentheses, exp, log, sqrt) (powers are written **)
    """
    if isinstance(text, bool) or not isinstance(text, (str, int, float)):
        raise _refuse(where, "must be an expression (a string) or a number", repr(text))
    if not isinstance(text, str):
        text = getattr(text, "text", None) or repr(text)  # a DecimalText keeps the digits as written
    if len(text) > MAX_CHARS:
        raise _refuse(where, f"is longer than {MAX_CHARS} characters", text[:40] + "...")
    value = _Parser(text, names, where, any_exponent).parse()
    if value.has(sp.zoo, sp.nan, sp.oo, -sp.oo):
        raise _refuse(where, "is not finite (a division by zero or an infinite value)", text)
    if value.has(sp.I):
        raise _refuse(where, "is not real (a square root or logarithm of a negative number)", text)
    return value


# --- the registry of model kinds -----------------------------------------------------

@dataclass(frozen=True)
class ModelKind:
    """One kind of model a user may state: ``name`` is the file's ``"kind"``
    and the schema's ``$defs`` entry; ``build(document, where)`` makes the
    model object from the checked document (`InvalidInput` naming a field on
    a bad part); ``model_formulas(model)`` derives what holds for it (an object
    with ``formulas`` and ``refused``: (formula name, the refusal) pairs);
    ``doc`` is one line with the source."""
    name: str
    build: Callable[[Mapping[str, Any], str], Any]
    model_formulas: Callable[[Any], Any]
    doc: str


KINDS: dict[str, ModelKind] = {}


def register(kind: ModelKind) -> ModelKind:
    """Add ``kind`` to :data:`KINDS` (its ``$defs`` entry must exist in the schema).

    >>> sorted(KINDS)
    ['scheduling', 'static-mm1k', 'workbench']
    """
    if kind.name not in _schema()["$defs"]:
        raise ValueError(f"model kind {kind.name!r} has no $defs entry in {SCHEMA_PATH.name}")
    KINDS[kind.name] = kind
    return kind


def _schema() -> dict:
    return json.loads(SCHEMA_PATH.read_text(encoding="utf-8"))


def _field(path) -> str:
    return "".join(f"[{p}]" if isinstance(p, int) else f".{p}" for p in path) or "(top level)"


def check_document(document, where: str = "MODEL") -> ModelKind:
    """The registered kind of ``document`` after checking it against the
    schema's envelope and the kind's ``$defs`` entry; `InvalidInput` naming
    the field (``where: .weights.loss``) and the rule otherwise."""
    schema = _schema()
    _require_valid(schema, document, where)  # the envelope: an object with a kind and a name
    if document["kind"] not in KINDS:
        raise InvalidInput(f"{where}: .kind", f"must be one of {', '.join(sorted(KINDS))}", value=document["kind"])
    _require_valid({**schema, "$ref": f"#/$defs/{document['kind']}"}, document, where)
    return KINDS[document["kind"]]


def _require_valid(schema: dict, document, where: str) -> None:
    """`InvalidInput` naming the field of the first error (in document order) of ``document`` against ``schema``."""
    import jsonschema

    errors = sorted(jsonschema.Draft202012Validator(schema).iter_errors(document), key=lambda e: list(map(str, e.path)))
    if errors:
        raise InvalidInput(f"{where}: {_field(errors[0].path)}", errors[0].message)


def build(document: Mapping[str, Any], where: str = "MODEL"):
    """The model object ``document`` states (checked by :func:`check_document`)."""
    return check_document(document, where).build(document, where)


def load(path, argument: str = "--model") -> tuple[str, ModelKind, Any]:
    """(name, kind, model object) from the JSON file ``path``: read with
    `validate.read_input_file` (a regular file, size-capped), decoded with
    numbers kept as written (`DecimalText`), checked and built."""
    from ..numeric.bmap._phase_type import DecimalText
    from ..numeric.validate import parse_document, read_input_file

    text = read_input_file(path, argument)
    parse_document(text, argument, "JSON", where=str(path))  # syntax and nesting depth, as one InvalidInput
    document = json.loads(text, parse_float=DecimalText, parse_constant=_not_a_number(argument))
    where = f"{argument} {path}"
    kind = check_document(document, where)
    return document["name"], kind, kind.build(document, where)


def _not_a_number(argument: str):
    def refuse(name: str):
        raise InvalidInput(argument, "NaN and Infinity are not numbers of a model", value=name)
    return refuse


@dataclass(frozen=True)
class Derived:
    """What derives for a user's model: the formulas, and the ones refused with the step that failed."""
    name: str
    kind: str
    formulas: tuple
    refused: tuple[tuple[str, str], ...]


def derive(name: str, kind: ModelKind, model) -> Derived:
    """Run the kind's derivation on ``model``.  A derivation SymPy cannot carry
    out (``NotImplementedError`` from ``summation``/``solve``) is a refusal of
    the whole model, raised as `DerivationError` naming the kind.

    Every formula's mpmath twin is emitted settled (``Formula.settle_mp``:
    ``codegen_runtime.settle`` raises the precision until two evaluations
    agree to the caller's): whether a user's form cancels is not known in
    advance, and the static kind's stationarity has the double root at 1 for
    which the paper's own twin settles."""
    from . import DerivationError

    try:
        result = kind.model_formulas(model)
    except NotImplementedError as exc:
        raise DerivationError(f"{kind.name}: SymPy cannot carry out a step of the derivation for this model: {exc}") from exc
    formulas = tuple(dataclasses.replace(f, settle_mp=True) for f in result.formulas)
    return Derived(name, kind.name, formulas, tuple(result.refused))


def declared_parameters(document: Mapping[str, Any], where: str, reserved) -> dict[str, sp.Symbol]:
    """The document's ``parameters`` (the schema's ``$defs/parameters``) as positive real symbols, name -> symbol;
    `InvalidInput` when one reuses a ``reserved`` name of the kind or a function name.

    >>> declared_parameters({"parameters": ["c"]}, "MODEL", reserved=("mu",))
    {'c': c}
    """
    parameters = {p: sp.Symbol(p, positive=True) for p in document.get("parameters", [])}
    clash = sorted(set(parameters) & {*reserved, *FUNCTIONS})
    if clash:
        raise InvalidInput(f"{where}: .parameters", "must not reuse the model's own names or the functions",
                           value=clash[0])
    return parameters


# --- the static M/M/1/K kind (Liu–Nain 2005, §1.2.1) -----------------------------------

def _static(document: Mapping[str, Any], where: str) -> static_mm1k.StaticModel:
    """A `StaticModel` from a ``static-mm1k`` document: service law mu(n) in
    n, mu, K; capacity "K" or an integer; idle and loss weights in gamma, mu,
    K and the declared ``parameters``; ``arrival``, when given, must be
    rho*mu (rho = N lambda/mu is the decision variable of §1.2.1)."""
    parameters = declared_parameters(document, where, reserved=("rho", "mu", "gamma", "K", "n", "i"))
    if "arrival" in document:
        arrival = parse_expression(document["arrival"], {"rho": rho, "mu": mu}, f"{where}: .arrival")
        if sp.simplify(arrival - rho * mu) != 0:
            raise InvalidInput(f"{where}: .arrival", "the static kind's arrival rate is rho*mu (N crawlers at rate "
                               "lambda, rho = N lambda/mu the decision variable); another arrival law is not this kind",
                               value=document["arrival"])
    service = parse_expression(document["service"], {"n": n, "mu": mu, "K": K}, f"{where}: .service")
    capacity = K if document["capacity"] == "K" else sp.Integer(document["capacity"])
    weight_names = {"gamma": gamma, "mu": mu, "K": K, **parameters}
    weights = document.get("weights", {})
    idle = parse_expression(weights.get("idle", "gamma"), weight_names, f"{where}: .weights.idle")
    loss = parse_expression(weights.get("loss", 1), weight_names, f"{where}: .weights.loss")
    try:
        return static_mm1k.StaticModel(service=service, capacity=capacity, idle_weight=idle, loss_weight=loss)
    except ValueError as exc:
        raise InvalidInput(where, str(exc)) from None


def _static_formulas(model: static_mm1k.StaticModel) -> static_mm1k.ModelFormulas:
    """`static_mm1k.model_formulas`, with the cost's floating-point form where it derives for the model: the expm1
    rewriting of `static_mm1k.cost_stable` (for a cost whose only removable point is rho = 1), emitted only after
    each of its branches is shown identical to the derived cost.  Without it the float code evaluates
    (rho - 1)/(rho^(K+1) - 1) as derived, with a relative error near eps/|rho - 1| (4.6e-10 at rho = 1 + 1e-8)."""
    result = static_mm1k.model_formulas(model)
    formulas = tuple(_with_stable_cost(model, f) if f.name == "cost" else f for f in result.formulas)
    return static_mm1k.ModelFormulas(formulas, result.refused)


def _with_stable_cost(model, cost):
    from sympy.codegen.cfunctions import expm1

    from . import DerivationError, is_identically_zero
    from .formula import derived

    try:
        if [at for at, _ in static_mm1k.removable_points(model)] != [1]:
            return cost
        stable = static_mm1k.cost_stable(model)
    except DerivationError:
        return cost
    for branch, condition in stable.args:
        if isinstance(condition, sp.Eq):
            continue
        back = branch.replace(lambda e: isinstance(e, expm1), lambda e: sp.exp(e.args[0]) - 1)
        back = sp.powsimp(sp.expand_log(back.replace(lambda e: isinstance(e, sp.exp), lambda e: sp.exp(sp.expand(e.args[0]))),
                                        force=True), force=True)  # exp(a log rho) -> rho**a
        if not is_identically_zero(back - static_mm1k.cost(model)):
            return cost
    how = ("expm1 rewriting (static_mm1k.cost_stable), rho > 1 scaled by rho^-(K+1); each branch checked identical "
           "to the derived cost with exp(a log rho) = rho^a")
    return dataclasses.replace(cost, stable=stable, inputs=cost.inputs + (derived("the float form", how),))


register(ModelKind("static-mm1k", _static, _static_formulas,
                   "the static crawler count, an M/M/1/K queue with cost w0 P(X=0) + wK rho mu P(X=K) (Liu–Nain 2005, §1.2.1)"))


# --- the scheduling kind (Coffman–Liu–Weber 1997, §3-4) ----------------------------------

def _scheduling(document: Mapping[str, Any], where: str):
    """A `scheduling.SchedulingModel` from a ``scheduling`` document: one page's objective ``term`` in x (its
    frequency), h, mu, c (the page's) and nu, c0 and the declared ``parameters`` (common to the pages); the
    ``weight`` c_i in the same names less x (default c: general weights)."""
    from . import scheduling as s

    reserved = ("x", "h", "mu", "c", "nu", "c0", "lambda")
    names = {"x": s.x, "h": s.h, "mu": s.mu, "c": s.c, "nu": s.nu, "c0": s.c0,
             **declared_parameters(document, where, reserved=reserved)}
    term = parse_expression(document["term"], names, f"{where}: .term", any_exponent=True)  # h**(1/x) is (7)'s
    weight = parse_expression(document.get("weight", "c"), {k: v for k, v in names.items() if k != "x"},
                              f"{where}: .weight", any_exponent=True)
    try:
        return s.SchedulingModel(term=term, weight=weight)
    except ValueError as exc:  # the model's own rules: the term depends on x, the weight is a page constant
        raise InvalidInput(f"{where}: {'.weight' if 'weight' in str(exc) else '.term'}", str(exc)) from None


def _scheduling_formulas(model):
    from . import scheduling

    return scheduling.model_formulas(model)


register(ModelKind("scheduling", _scheduling, _scheduling_formulas,
                   "page-visit frequencies minimising sum_i term(x_i) under sum x_i = 1 (Coffman–Liu–Weber 1997, §3–4)"))


# --- the workbench kind (Buijsrogge 2014, Ch. 4) ------------------------------------------

def _workbench(document: Mapping[str, Any], where: str):
    """A `buijsrogge.WorkbenchModel` from a ``workbench`` document: ``slots`` "K" or an integer, ``colours`` "C" or
    an integer, ``removal`` one of the rules, ``redraw`` a boolean, ``draw`` and ``weights`` lists of numbers (one
    per colour, so only with an integer ``colours``)."""
    from . import buijsrogge as b

    size = {"slots": b.K, "colours": b.C}
    parts = {name: symbol if document.get(name, str(symbol)) == str(symbol) else sp.Integer(document[name])
             for name, symbol in size.items()}
    for name in ("draw", "weights"):
        if name in document:
            parts[name] = tuple(parse_expression(v, {}, f"{where}: .{name}[{k}]") for k, v in enumerate(document[name]))
    try:
        return b.WorkbenchModel(**parts, removal=document.get("removal", "colour"), redraw=document.get("redraw", False))
    except ValueError as exc:  # the model's own rules: one probability per colour summing to 1, weights for 'colour'
        field = next((f".{n}" for n in ("draw", "weights", "slots", "colours") if n in str(exc)), "(top level)")
        raise InvalidInput(f"{where}: {field}", str(exc)) from None


def _workbench_formulas(model):
    from . import buijsrogge

    return buijsrogge.model_formulas(model)


register(ModelKind("workbench", _workbench, _workbench_formulas,
                   "the BUbiNG workbench game: K balls, C colours, a removal rule; colours online (Buijsrogge 2014, Ch. 4)"))
