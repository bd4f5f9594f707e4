"""Explicit model files of the probabilistic model-checking tools, read exactly.

Three formats describe a finite CTMC, DTMC or MDP state by state:

- Storm's DRN (``storm --exportbuild m.drn``)::

      @type: CTMC
      @reward_models
      busy
      @nr_states
      2
      @model
      state 0 !3/10 [0] init
          action 0 [0]
              1 : 3/10
      state 1 !1 [1]
          action 0 [0]
              0 : 1

  ``state S [!E] [r_1, ...] labels`` (``!E``, the exit rate of a CTMC state,
  must equal the sum of its rates), ``action A [r_1, ...]`` (the choice's
  rewards, one per reward model) and ``T : V`` (V a rate for a CTMC, else a
  probability).
- PRISM's explicit files (``prism m.sm -exportmodel m.all``): ``.tra`` with a
  first line ``n m`` (chains: lines ``s t v``) or ``n c m`` (MDPs: lines
  ``s a t p`` with an optional action label), ``.lab`` (``0="init" 1="full"``
  then ``s: 0 1``), ``.srew`` (``n m`` then ``s r``) and ``.trew`` (``n m``
  then ``s t r``, or ``n c m`` then ``s a t r`` for an MDP).
- crawlmath's JSON of sparse triplets (schema ``schemas/triplets.schema.json``)::

      {"type": "ctmc", "states": 2, "transitions": [[0, 1, "0.3"], [1, 0, 1]],
       "state_rewards": [[1, 1]]}

Every number is read exactly from its text: ``0.1`` is the rational 1/10 (not
the double nearest it) and ``1/3`` (as Storm writes rationals) is 1/3.  A
model is held as *choices* (one per state of a chain, one per enabled action
of an MDP state) with exact transitions; rewards are per state (a rate for a
CTMC, per step otherwise), per choice (per step) and per transition (earned
when it is taken).  Every rule broken is one `InvalidInput` naming the file,
the line, the entry and the rule; a file that is not a regular file is
refused before it is opened, and one larger than the limit with `TooLarge`.

>>> m = parse_drn(DRN_EXAMPLE, "example.drn")
>>> m.kind, m.n, [str(v) for v in m.value]
('ctmc', 2, ['3/10', '1'])
>>> m.state_reward["busy"].tolist()
[Fraction(0, 1), Fraction(1, 1)]
>>> parse_drn(DRN_EXAMPLE.replace("1 : 3/10", "1 : -3/10"), "bad.drn")
Traceback (most recent call last):
...
crawlmath.numeric.errors.InvalidInput: bad.drn:12: a CTMC rate must be >= 0 (got '-3/10')
"""
from __future__ import annotations

import functools
import json
from dataclasses import dataclass, field
from fractions import Fraction
from pathlib import Path

import numpy as np

from ..errors import InvalidInput, TooLarge
from ..validate import read_input_file, require_float_magnitude, require_memory, require_regular_file

MAX_FILE_BYTES = 1 << 30  # 1 GiB of text: ~3e7 transitions, more than the exact routes can take
MAX_NUMBER_CHARS = 4000  # Python refuses int() of longer digit strings (CVE-2020-10735 limit 4300)
BYTES_PER_FILE_BYTE = 40  # Python objects (Fractions, lists) per byte of text read, measured ~25
SCHEMA_PATH = Path(__file__).resolve().parent.parent / "schemas" / "triplets.schema.json"
KINDS = ("ctmc", "dtmc", "mdp")

DRN_EXAMPLE = """\
// an M/M/1/1 queue, lambda = 0.3, mu = 1
@type: CTMC
@parameters

@reward_models
busy
@nr_states
2
@model
state 0 !3/10 [0] init
\taction 0 [0]
\t\t1 : 3/10
state 1 !1 [1]
\taction 0 [0]
\t\t0 : 1
"""


@dataclass(frozen=True)
class ExplicitModel:
    """A finite CTMC, DTMC or MDP with exact numbers.

    ``kind`` ("ctmc", "dtmc", "mdp"), ``n`` states; choice c belongs to state
    ``choice_state[c]`` and carries the label ``choice_label[c]``; transition
    k leaves choice ``src[k]`` for state ``dst[k]`` with the exact ``value[k]``
    (a rate for a CTMC, else a probability; duplicates summed).  Rewards by
    name: ``state_reward[name]`` (per state), ``choice_reward[name]`` (per
    choice) and ``transition_reward[name]`` (per transition), Fractions in
    object arrays.  ``labels``: name -> sorted state indices.  ``source``: the
    file (and format) read.
    """

    kind: str
    n: int
    choice_state: np.ndarray = field(repr=False)
    choice_label: list = field(repr=False)
    src: np.ndarray = field(repr=False)
    dst: np.ndarray = field(repr=False)
    value: np.ndarray = field(repr=False)
    state_reward: dict = field(default_factory=dict, repr=False)
    choice_reward: dict = field(default_factory=dict, repr=False)
    transition_reward: dict = field(default_factory=dict, repr=False)
    labels: dict = field(default_factory=dict, repr=False)
    source: str = ""

    @property
    def reward_names(self) -> list[str]:
        """Every reward model's name, in the order first seen."""
        return list(dict.fromkeys([*self.state_reward, *self.choice_reward, *self.transition_reward]))

    def reward_per_choice(self, name: str | None) -> np.ndarray:
        """The reward earned per unit time (CTMC) or per step (DTMC, MDP) in each
        choice, exactly: state reward + choice reward (per step: a CTMC's choice
        rewards are refused at reading) + Σ_t v(c, t) r(c, t) over its transitions
        (a CTMC's rate times the reward of the jump is the jump reward per unit
        time; a probability times it the expected reward of the step).  ``None``:
        the only reward model (InvalidInput when there are several or none).  A
        label's name (not also a reward model's) is the indicator of its states:
        its average is the long-run fraction of time (or steps) spent there."""
        name = self._reward_name(name)
        total = np.full(self.choice_state.size, Fraction(0), dtype=object)
        if name not in self.reward_names:
            inside = np.isin(self.choice_state, self.labels[name])
            total[inside] = Fraction(1)
            return total
        if name in self.state_reward:
            total = total + self.state_reward[name][self.choice_state]
        if name in self.choice_reward:
            total = total + self.choice_reward[name]
        if name in self.transition_reward:
            np.add.at(total, self.src, self.value * self.transition_reward[name])
        return total

    def _reward_name(self, name: str | None) -> str:
        names = self.reward_names
        if name is None:
            if len(names) != 1:
                raise InvalidInput("--reward", f"the model has {len(names)} reward models {names}: name one",
                                   value=None)
            return names[0]
        if name not in names and name not in self.labels:
            raise InvalidInput("--reward", f"no such reward model or label in {self.source} (reward models {names}, "
                               f"labels {sorted(self.labels)})", value=name)
        return name


# ----------------------------------------------------------------- reading files


def read_text(path, argument: str = "FILE") -> str:
    """The text of ``path``, refused before reading when it is not a regular
    file (a FIFO or a device could block or never end: InvalidInput) or is
    larger than ``MAX_FILE_BYTES`` or the memory limit allows (TooLarge)."""
    p = Path(path)
    size = require_regular_file(p, argument).st_size
    if size > MAX_FILE_BYTES:
        raise TooLarge(argument, f"{size} bytes exceed the limit of {MAX_FILE_BYTES} bytes for a model file",
                       value=str(p))
    require_memory(BYTES_PER_FILE_BYTE * size, argument, f"reading {size} bytes of model text", value=str(p))
    return read_input_file(p, argument, max_bytes=MAX_FILE_BYTES)  # non-blocking open, re-checked by fstat


def read_model(path, fmt: str = "auto", *, lab=None, srew=None, trew=None) -> ExplicitModel:
    """Read a model file: ``fmt`` "drn", "prism" (a ``.tra`` with optional
    ``lab``/``srew``/``trew`` files beside it), "json", or "auto" (by suffix:
    .drn, .tra, .json).  The PRISM ``.tra`` does not say whether a chain is a
    CTMC or a DTMC: a DTMC is assumed when every row sums to exactly 1, else a
    CTMC (rates).  The guess cannot change a result: a CTMC whose every exit rate
    is 1 has the stationary law and long-run averages of the DTMC P = I + Q."""
    p = Path(path)
    if fmt == "auto":
        fmt = {".drn": "drn", ".tra": "prism", ".json": "json"}.get(p.suffix.lower())
        if fmt is None:
            raise InvalidInput("FILE", "unknown format: name it .drn, .tra or .json, or pass --format", value=str(p))
    if fmt == "drn":
        return parse_drn(read_text(p), str(p))
    if fmt == "json":
        return parse_json(read_text(p), str(p))
    if fmt == "prism":
        extra = {k: (str(v), read_text(v, f"--{k}")) for k, v in (("lab", lab), ("srew", srew), ("trew", trew)) if v}
        return parse_prism(read_text(p), str(p), **extra)
    raise InvalidInput("--format", "must be drn, prism, json or auto", value=fmt)


def _number(text: str, where: str) -> Fraction:
    """The exact value of a decimal (``0.1``, ``1e-3``) or rational (``1/3``) literal (or a JSON integer)."""
    if isinstance(text, int):
        return require_float_magnitude(Fraction(text), where, str(text))
    if len(text) > MAX_NUMBER_CHARS:
        raise InvalidInput(where, f"a number may have at most {MAX_NUMBER_CHARS} characters", value=text[:20] + "...")
    value, in_range = _parse_literal(text)
    if value is None:
        raise InvalidInput(where, "must be a decimal or rational number (e.g. 0.25, 1e-3, 1/3)", value=text)
    return value if in_range else require_float_magnitude(value, where, text)


@functools.lru_cache(maxsize=1 << 16)
def _parse_literal(text: str) -> tuple[Fraction | None, bool]:
    """(exact value or None, whether float64 carries it); cached: model files repeat a few
    literals (rates, 1, 0.5) hundreds of thousands of times."""
    try:
        value = Fraction(text)
    except (ValueError, ZeroDivisionError):
        return None, False
    try:
        require_float_magnitude(value, "", text)
    except InvalidInput:
        return value, False
    return value, True


def _integer(text: str, where: str, what: str, *, below: int | None = None) -> int:
    if not text.isdigit():
        raise InvalidInput(where, f"{what} must be a non-negative integer", value=text)
    value = int(text)
    if below is not None and value >= below:
        raise InvalidInput(where, f"{what} must be < {below}", value=text)
    return value


# ----------------------------------------------------------------- building a model


class _Builder:
    """Collects choices and transitions as they are read, then checks the model's rules."""

    def __init__(self, kind: str, source: str):
        self.kind, self.source = kind, source
        self.choice_state, self.choice_label, self.choice_line = [], [], []
        self.src, self.dst, self.value = [], [], []
        self.state_reward, self.choice_reward = {}, {}
        self.trans_reward = {}  # name -> {(choice, dst): reward}

    def choice(self, state: int, label, line: int) -> int:
        self.choice_state.append(state)
        self.choice_label.append(label)
        self.choice_line.append(line)
        return len(self.choice_state) - 1

    def transition(self, choice: int, dst: int, value: Fraction, line: int, text: str) -> None:
        where = f"{self.source}:{line}"
        if self.kind == "ctmc":
            if value < 0:
                raise InvalidInput(where, "a CTMC rate must be >= 0", value=text)
        elif not 0 <= value <= 1:
            raise InvalidInput(where, "a probability must lie in [0, 1]", value=text)
        self.src.append(choice)
        self.dst.append(dst)
        self.value.append(value)

    def build(self, n: int, labels: dict) -> ExplicitModel:
        if self.kind == "ctmc":  # a CTMC state without rates is absorbing: give it an empty choice
            for s in sorted(set(range(n)) - set(self.choice_state)):
                self.choice(s, None, "(no transitions)")
                for rewards in self.choice_reward.values():
                    rewards.append(Fraction(0))
        cs = np.asarray(self.choice_state, dtype=np.int64)
        src, dst = np.asarray(self.src, dtype=np.int64), np.asarray(self.dst, dtype=np.int64)
        value = np.empty(len(self.value), dtype=object)
        value[:] = self.value
        src, dst, value = _merge(src, dst, value)
        self._check_states(cs, n)
        self._check_rows(src, value)
        trew = {}
        for name, table in self.trans_reward.items():
            r = np.full(src.size, Fraction(0), dtype=object)
            pos = {(int(c), int(t)): k for k, (c, t) in enumerate(zip(src, dst))}
            for (c, t), (val, line) in table.items():
                if (c, t) not in pos:
                    raise InvalidInput(f"{self.source}:{line}", "a transition reward names a transition the model "
                                       "does not have", value=f"{self.choice_state[c]} -> {t}")
                r[pos[(c, t)]] += val
            trew[name] = r
        return ExplicitModel(self.kind, n, cs, list(self.choice_label), src, dst, value,
                             {k: _objects(v) for k, v in self.state_reward.items()},
                             {k: _objects(v) for k, v in self.choice_reward.items()}, trew, labels, self.source)

    def _check_states(self, cs: np.ndarray, n: int) -> None:
        counts = np.bincount(cs, minlength=n) if cs.size else np.zeros(n, dtype=np.int64)
        missing = np.flatnonzero(counts == 0)
        if missing.size:
            raise InvalidInput(self.source, "every state needs a choice (a row of transitions)",
                               value=f"state {int(missing[0])}")
        if self.kind != "mdp" and counts.max() > 1:
            s = int(np.flatnonzero(counts > 1)[0])
            line = self.choice_line[int(np.flatnonzero(cs == s)[1])]
            raise InvalidInput(f"{self.source}:{line}", f"a {self.kind.upper()} has one choice per state; "
                               "several actions make it an MDP", value=f"state {s}")

    def _check_rows(self, src: np.ndarray, value: np.ndarray) -> None:
        """The probabilities of a DTMC or MDP choice sum to exactly 1 (the numbers are exact: no tolerance)."""
        sums = np.full(len(self.choice_state), Fraction(0), dtype=object)
        np.add.at(sums, src, value)
        for c, total in enumerate(sums):
            where = f"{self.source}:{self.choice_line[c]}"
            if self.kind != "ctmc" and total != 1:
                raise InvalidInput(where, "the probabilities of a choice must sum to exactly 1 (they are read "
                                   "exactly; export with exact values)", value=str(total))


def _objects(values) -> np.ndarray:
    out = np.empty(len(values), dtype=object)
    out[:] = list(values)
    return out


def _merge(src: np.ndarray, dst: np.ndarray, value: np.ndarray):
    """Sum duplicate (choice, target) transitions; sorted by choice then target."""
    if not src.size:
        return src, dst, value
    order = np.lexsort((dst, src))
    s, d, v = src[order], dst[order], value[order]
    new = np.ones(s.size, dtype=bool)
    new[1:] = (s[1:] != s[:-1]) | (d[1:] != d[:-1])
    starts = np.flatnonzero(new)
    summed = np.add.reduceat(v, starts) if not new.all() else v
    return s[starts], d[starts], summed


# ----------------------------------------------------------------- DRN (Storm)


def parse_drn(text: str, source: str = "<drn>") -> ExplicitModel:
    """A model from Storm's DRN text (see the module docstring)."""
    lines = text.splitlines()
    header, body_start = _drn_header(lines, source)
    kind, n, names = header["type"], header["nr_states"], header["reward_models"]
    b = _Builder(kind, source)
    state_rew = {name: [Fraction(0)] * n for name in names}
    choice_rew = {name: [] for name in names}
    labels: dict[str, list[int]] = {}
    state = choice = None
    exit_rate = {}
    seen = set()
    for i in range(body_start, len(lines)):
        line = lines[i].strip()
        where = f"{source}:{i + 1}"
        if not line or line.startswith("//"):
            continue
        head, _, rest = line.partition(" ")
        if head == "state":
            state, exit_given, rewards, state_labels = _drn_state(rest, where, n, len(names))
            if state in seen:
                raise InvalidInput(where, "a state is declared twice", value=str(state))
            seen.add(state)
            if exit_given is not None:
                if kind != "ctmc":
                    raise InvalidInput(where, f"an exit rate (!) belongs to a CTMC state, not to a {kind.upper()}",
                                       value=exit_given[1])
                exit_rate[state] = (exit_given[0], i + 1, exit_given[1])
            for name, r in zip(names, rewards):
                state_rew[name][state] = r
            for lab in state_labels:
                labels.setdefault(lab, []).append(state)
            choice = None
        elif head == "action":
            if state is None:
                raise InvalidInput(where, "an action must follow a state line", value=line)
            label, rewards = _drn_action(rest, where, len(names))
            choice = b.choice(state, label, i + 1)
            for name, r in zip(names, rewards):
                if kind == "ctmc" and r != 0:
                    raise InvalidInput(where, "a CTMC action reward is not supported (give a state reward, a "
                                       "rate)", value=str(r))
                choice_rew[name].append(r)
        elif ":" in line:
            if state is None:
                raise InvalidInput(where, "a transition must follow a state line", value=line)
            if choice is None:  # a chain may list its transitions without an action line
                choice = b.choice(state, None, i + 1)
                for name in names:
                    choice_rew[name].append(Fraction(0))
            t_text, _, v_text = (s.strip() for s in line.partition(":"))
            t = _integer(t_text, where, "a target state", below=n)
            b.transition(choice, t, _number(v_text, where), i + 1, v_text)
        else:
            raise InvalidInput(where, "expected 'state S ...', 'action A ...' or 'T : value'", value=line)
    if len(seen) != n:
        missing = min(set(range(n)) - seen)
        raise InvalidInput(source, f"@nr_states is {n} but state {missing} is never declared", value=missing)
    b.state_reward = {k: v for k, v in state_rew.items()}
    b.choice_reward = {k: v for k, v in choice_rew.items()}
    model = b.build(n, {k: np.array(sorted(v), dtype=np.int64) for k, v in labels.items()})
    _check_exit_rates(model, exit_rate, source)
    return model


def _drn_header(lines: list[str], source: str) -> tuple[dict, int]:
    """The @-sections before @model: type, nr_states, reward model names."""
    header = {"reward_models": []}
    i = 0
    while i < len(lines):
        line = lines[i].strip()
        where = f"{source}:{i + 1}"
        i += 1
        if not line or line.startswith("//"):
            continue
        if line == "@model":
            break
        if line.startswith("@type:"):
            t = line[6:].strip()
            if t not in ("CTMC", "DTMC", "MDP"):
                raise InvalidInput(where, "@type must be CTMC, DTMC or MDP (Markov automata, POMDPs and games "
                                   "are not supported)", value=t)
            header["type"] = t.lower()
        elif line.startswith("@value_type:"):
            v = line[12:].strip()
            if v not in ("double", "rational", "exact"):
                raise InvalidInput(where, "@value_type must be double or rational (parametric and interval "
                                   "models are not supported)", value=v)
        elif line in ("@parameters", "@reward_models", "@nr_states", "@nr_choices", "@placeholders"):
            nxt = lines[i].strip() if i < len(lines) else ""
            i += 1
            if line == "@parameters" and nxt:
                raise InvalidInput(f"{source}:{i}", "parametric models are not supported", value=nxt)
            if line == "@placeholders":
                raise InvalidInput(where, "placeholders are not supported", value=nxt)
            if line == "@reward_models":
                header["reward_models"] = nxt.split()
            elif line == "@nr_states":
                header["nr_states"] = _integer(nxt, f"{source}:{i}", "@nr_states")
        else:
            raise InvalidInput(where, "unknown header line (expected @type, @parameters, @reward_models, "
                               "@nr_states, @nr_choices or @model)", value=line)
    else:
        raise InvalidInput(source, "no @model line: not a DRN file", value=None)
    for key in ("type", "nr_states"):
        if key not in header:
            raise InvalidInput(source, f"the header has no @{key}", value=None)
    if header["nr_states"] == 0:
        raise InvalidInput(source, "@nr_states must be >= 1", value=0)
    return header, i


def _drn_rewards(text: str, where: str, count: int) -> list[Fraction]:
    parts = [s.strip() for s in text.split(",")] if text.strip() else []
    if len(parts) != count:
        raise InvalidInput(where, f"expected {count} rewards (one per @reward_models entry)", value=f"[{text}]")
    return [_number(s, where) for s in parts]


def _drn_state(rest: str, where: str, n: int, nrew: int):
    """(state, (exit rate, its text) or None, rewards, labels) of a ``state`` line."""
    tokens = rest.split(None, 1)
    if not tokens:
        raise InvalidInput(where, "a state line needs a state number", value="state")
    s = _integer(tokens[0], where, "a state number", below=n)
    tail = tokens[1].strip() if len(tokens) > 1 else ""
    exit_given = None
    if tail.startswith("!"):
        e_text, _, tail = tail[1:].partition(" ")
        exit_given = (_number(e_text, where), e_text)
        tail = tail.strip()
    if tail.startswith("{"):  # state valuations: descriptive only
        close = tail.find("}")
        if close < 0:
            raise InvalidInput(where, "a state valuation '{...}' is not closed", value=tail)
        tail = tail[close + 1:].strip()
    rewards = [Fraction(0)] * nrew
    if tail.startswith("["):
        close = tail.find("]")
        if close < 0:
            raise InvalidInput(where, "a reward list '[...]' is not closed", value=tail)
        rewards = _drn_rewards(tail[1:close], where, nrew)
        tail = tail[close + 1:].strip()
    return s, exit_given, rewards, [t.strip('"') for t in tail.split()]


def _drn_action(rest: str, where: str, nrew: int):
    rest = rest.strip()
    label, rewards = rest, [Fraction(0)] * nrew
    if "[" in rest:
        open_ = rest.index("[")
        close = rest.find("]", open_)
        if close < 0:
            raise InvalidInput(where, "a reward list '[...]' is not closed", value=rest)
        label, rewards = rest[:open_].strip(), _drn_rewards(rest[open_ + 1:close], where, nrew)
    if not label:
        raise InvalidInput(where, "an action needs a label or number", value="action")
    return label, rewards


def _check_exit_rates(model: ExplicitModel, exit_rate: dict, source: str) -> None:
    """Storm writes a CTMC state's exit rate as ``!E``: it must be the sum of the state's rates."""
    if not exit_rate:
        return
    sums = np.full(model.n, Fraction(0), dtype=object)
    np.add.at(sums, model.choice_state[model.src], model.value)
    for s, (e, line, text) in exit_rate.items():
        if e != sums[s]:
            raise InvalidInput(f"{source}:{line}", f"the exit rate must equal the sum of the state's rates "
                               f"({sums[s]})", value=text)


# ----------------------------------------------------------------- PRISM explicit


def parse_prism(tra: str, source: str = "<tra>", *, lab=None, srew=None, trew=None) -> ExplicitModel:
    """A model from PRISM's explicit ``.tra`` text, with the optional
    ``(name, text)`` of its ``.lab``, ``.srew`` and ``.trew`` files (the reward
    model is named after the reward file's stem)."""
    lines = tra.splitlines()
    first, start = _first_line(lines, source)
    if len(first) not in (2, 3):
        raise InvalidInput(f"{source}:{start}", "the first line must be 'states transitions' or "
                           "'states choices transitions'", value=" ".join(first))
    mdp = len(first) == 3
    n = _integer(first[0], f"{source}:{start}", "the number of states")
    if n == 0:
        raise InvalidInput(f"{source}:{start}", "the number of states must be >= 1", value=first[0])
    declared = _integer(first[-1], f"{source}:{start}", "the number of transitions")
    rows = []
    for i in range(start, len(lines)):
        parts = lines[i].split()
        if not parts or parts[0].startswith("#"):
            continue
        rows.append((i + 1, parts))
    if len(rows) != declared:
        raise InvalidInput(f"{source}:{start}", f"declares {declared} transitions but the file has {len(rows)}",
                           value=declared)
    kind = "mdp" if mdp else _chain_kind(rows, source, n)
    b = _Builder(kind, source)
    choice_of = {}
    width = 4 if mdp else 3
    for line, parts in rows:
        where = f"{source}:{line}"
        if len(parts) not in (width, width + 1):
            raise InvalidInput(where, f"expected {'s a t p [action]' if mdp else 's t v [action]'}",
                               value=" ".join(parts))
        s = _integer(parts[0], where, "a source state", below=n)
        a = _integer(parts[1], where, "a choice number") if mdp else 0
        t = _integer(parts[width - 2], where, "a target state", below=n)
        key = (s, a)
        if key not in choice_of:
            label = parts[width] if len(parts) > width else (a if mdp else None)
            choice_of[key] = b.choice(s, label, line)
        b.transition(choice_of[key], t, _number(parts[width - 1], where), line, parts[width - 1])
    labels = _parse_lab(*lab, n) if lab else {}
    name = None
    if srew:
        name = Path(srew[0]).stem
        b.state_reward[name] = _parse_srew(*srew, n)
    if trew:
        name = name or Path(trew[0]).stem
        b.trans_reward[name] = _parse_trew(*trew, n, mdp, choice_of)
    return b.build(n, labels)


def _first_line(lines: list[str], source: str) -> tuple[list[str], int]:
    for i, line in enumerate(lines):
        parts = line.split()
        if parts and not parts[0].startswith("#"):
            return parts, i + 1
    raise InvalidInput(source, "is empty", value=None)


def _chain_kind(rows, source: str, n: int) -> str:
    sums = [Fraction(0)] * n
    for line, parts in rows:
        if len(parts) >= 3:
            try:
                sums[int(parts[0])] += Fraction(parts[2])
            except (ValueError, IndexError, ZeroDivisionError):
                return "ctmc"  # the row is then refused, with its line, by the reader proper
    return "dtmc" if all(v == 1 for v in sums) else "ctmc"


def _parse_lab(name: str, text: str, n: int) -> dict:
    lines = text.splitlines()
    if not lines:
        return {}
    names = {}
    for item in lines[0].split():
        idx, eq, quoted = item.partition("=")
        if not eq or not idx.isdigit():
            raise InvalidInput(f"{name}:1", "label declarations must read 0=\"init\" 1=\"name\" ...", value=item)
        names[int(idx)] = quoted.strip('"')
    out: dict[str, list[int]] = {v: [] for v in names.values()}
    for i, line in enumerate(lines[1:], start=2):
        if not line.strip():
            continue
        head, colon, tail = line.partition(":")
        if not colon:
            raise InvalidInput(f"{name}:{i}", "expected 'state: label numbers'", value=line)
        s = _integer(head.strip(), f"{name}:{i}", "a state", below=n)
        for tok in tail.split():
            k = _integer(tok, f"{name}:{i}", "a label number")
            if k not in names:
                raise InvalidInput(f"{name}:{i}", "label number not declared on line 1", value=tok)
            out[names[k]].append(s)
    return {k: np.array(sorted(v), dtype=np.int64) for k, v in out.items()}


def _reward_rows(name: str, text: str):
    lines = text.splitlines()
    first, start = _first_line(lines, name)
    for i in range(start, len(lines)):
        parts = lines[i].split()
        if parts and not parts[0].startswith("#"):
            yield i + 1, parts


def _parse_srew(name: str, text: str, n: int) -> list[Fraction]:
    out = [Fraction(0)] * n
    for line, parts in _reward_rows(name, text):
        where = f"{name}:{line}"
        if len(parts) != 2:
            raise InvalidInput(where, "expected 'state reward'", value=" ".join(parts))
        out[_integer(parts[0], where, "a state", below=n)] += _number(parts[1], where)
    return out


def _parse_trew(name: str, text: str, n: int, mdp: bool, choice_of: dict) -> dict:
    table = {}
    width = 4 if mdp else 3
    for line, parts in _reward_rows(name, text):
        where = f"{name}:{line}"
        if len(parts) != width:
            raise InvalidInput(where, f"expected {'s a t reward' if mdp else 's t reward'}", value=" ".join(parts))
        s = _integer(parts[0], where, "a state", below=n)
        a = _integer(parts[1], where, "a choice number") if mdp else 0
        t = _integer(parts[width - 2], where, "a target state", below=n)
        if (s, a) not in choice_of:
            raise InvalidInput(where, "a transition reward names a choice the .tra file does not have",
                               value=" ".join(parts))
        key = (choice_of[(s, a)], t)
        old = table.get(key, (Fraction(0), line))[0]
        table[key] = (old + _number(parts[width - 1], where), line)
    return table


# ----------------------------------------------------------------- JSON triplets


def _schema() -> dict:
    return json.loads(SCHEMA_PATH.read_text(encoding="utf-8"))


def parse_json(text: str, source: str = "<json>") -> ExplicitModel:
    """A model from crawlmath's JSON of triplets (``schemas/triplets.schema.json``).
    A value is a string or a JSON number, read exactly from its text (``0.1`` is 1/10)."""
    import jsonschema  # lazy: slow to import; only JSON model files need it

    try:
        data = json.loads(text, parse_float=str, parse_constant=_refuse_constant)
    except json.JSONDecodeError as exc:
        raise InvalidInput(f"{source}:{exc.lineno}", f"is not JSON ({exc.msg})", value=None) from None
    errors = sorted(jsonschema.Draft202012Validator(_schema()).iter_errors(data), key=lambda e: list(e.path))
    if errors:
        e = errors[0]
        path = "".join(f"[{p}]" if isinstance(p, int) else f".{p}" for p in e.path) or "(top level)"
        raise InvalidInput(f"{source}: {path}", e.message, value=None)
    kind, n = data["type"], data["states"]
    if n == 0:
        raise InvalidInput(f"{source}: .states", "must be >= 1", value=0)
    b = _Builder(kind, source)
    choice_of = {}
    mdp = kind == "mdp"
    for k, row in enumerate(data["transitions"]):
        where = f"{source}: .transitions[{k}]"
        s, a, t = (row[0], row[1], row[2]) if mdp else (row[0], 0, row[1])
        for v in (s, t):
            if v >= n:
                raise InvalidInput(where, f"a state must be < {n}", value=v)
        if (s, a) not in choice_of:
            choice_of[(s, a)] = b.choice(s, a if mdp else None, k)
        b.transition(choice_of[(s, a)], t, _number(row[-1], where), k, row[-1])
    b.choice_line = [f"transition {k}" for k in b.choice_line]  # JSON has no useful line numbers
    for name, rows in data.get("state_rewards", {}).items():
        values = [Fraction(0)] * n
        for k, (s, r) in enumerate(rows):
            if s >= n:
                raise InvalidInput(f"{source}: .state_rewards.{name}[{k}]", f"a state must be < {n}", value=s)
            values[s] += _number(r, f"{source}: .state_rewards.{name}[{k}]")
        b.state_reward[name] = values
    for name, rows in data.get("choice_rewards", {}).items():
        if kind == "ctmc":
            raise InvalidInput(f"{source}: .choice_rewards", "a CTMC has state rewards (rates), not choice rewards")
        values = [Fraction(0)] * len(b.choice_state)
        for k, row in enumerate(rows):
            key = (row[0], row[1]) if mdp else (row[0], 0)
            if key not in choice_of:
                raise InvalidInput(f"{source}: .choice_rewards.{name}[{k}]", "names a choice without transitions",
                                   value=list(key))
            values[choice_of[key]] += _number(row[-1], f"{source}: .choice_rewards.{name}[{k}]")
        b.choice_reward[name] = values
    return b.build(n, {k: np.array(sorted(set(v)), dtype=np.int64) for k, v in data.get("labels", {}).items()})


def _refuse_constant(name: str):
    raise InvalidInput("FILE", "NaN and Infinity are not numbers of a model", value=name)

