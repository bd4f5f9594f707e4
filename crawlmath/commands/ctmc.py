"""``crawlmath ctmc``: stationary law and long-run average rewards of a Markov chain
read from a Storm DRN, PRISM explicit or JSON-triplet file (issue 30, item 6)."""
from __future__ import annotations

from ._common import inputs, integer, print_json

NAME = "ctmc"
HELP = "Stationary law and long-run average rewards of a CTMC/DTMC from a Storm DRN, PRISM .tra or JSON file, exactly read."
EXAMPLE = """
crawlmath ctmc queue.drn                                 # float64: π and every reward model's average
crawlmath ctmc queue.drn --digits 30 --reward busy       # 30 digits, two routes, exact bounds
crawlmath ctmc queue.drn --digits 30 --reward full       # a label: long-run probability of its states
crawlmath ctmc queue.tra --srew queue.srew --digits 40 --json
crawlmath ctmc model.json --digits 30                    # JSON triplets (numeric/schemas/triplets.schema.json)
"""

PI_EXACT_MAX = 1000  # recurrent states for the exact-rational cross-check of π (fmpq_mat, O(n^3): ~7 s at 1000)
PRINT_MAX = 20  # π entries shown on the terminal (all of them under --json)

UNITS = {"digits": "significant decimal digits",
         "reward": "per unit time (CTMC) or per step (DTMC), as the file's reward model"}


def add_model_arguments(p) -> None:
    """FILE and its companions, shared with ``avg-cost``."""
    p.add_argument("file", metavar="FILE", help="model file: Storm DRN (.drn), PRISM explicit transitions (.tra) or "
                                                 "JSON triplets (.json); numbers are read exactly (0.1 = 1/10)")
    p.add_argument("--format", choices=("auto", "drn", "prism", "json"), default="auto",
                   help="file format (default: from the suffix)")
    p.add_argument("--lab", help="PRISM .lab file (labels) of a .tra")
    p.add_argument("--srew", help="PRISM .srew file (state rewards) of a .tra; the reward model is named after it")
    p.add_argument("--trew", help="PRISM .trew file (transition rewards) of a .tra")
    p.add_argument("--reward", help="reward model to average, or a label (its long-run probability); default: every "
                                    "reward model for ctmc, the only one for avg-cost")
    p.add_argument("--digits", type=integer("--digits"), default=None,
                   help="deliver D significant digits, certified by two routes inside exact bounds (default: float64)")
    p.add_argument("--json", action="store_true", help="print one JSON object (the inputs echoed under \"inputs\")")


def add_arguments(p):
    """Register the options of ``crawlmath ctmc`` on the argparse parser ``p``."""
    add_model_arguments(p)


def load(args):
    """The model named by ``args`` (one-line errors for bad files), with ``--digits`` checked."""
    from ..numeric.errors import InvalidInput
    from ..numeric.markov import read_model

    if args.digits is not None and not 1 <= args.digits <= 1000:
        raise InvalidInput("--digits", "must lie in 1..1000", value=args.digits)
    if args.format not in ("auto", "prism") and (args.lab or args.srew or args.trew):
        raise InvalidInput("--srew" if args.srew else "--trew" if args.trew else "--lab",
                           "applies to PRISM .tra files only", value=args.format)
    return read_model(args.file, args.format, lab=args.lab, srew=args.srew, trew=args.trew)


def run(args) -> int:
    """``crawlmath ctmc``: read the chain, print its stationary law and long-run average rewards; returns 0."""
    from ..numeric.errors import InvalidInput

    model = load(args)
    if model.kind == "mdp":
        raise InvalidInput("FILE", "is an MDP: use crawlmath avg-cost", value=args.file)
    names = [args.reward] if args.reward else model.reward_names
    out = _float_result(model, names) if args.digits is None else _certified_result(model, names, args.digits)
    out = {"kind": model.kind, "states": model.n, "transitions": int(model.src.size), **out}
    if args.json:
        print_json({**out, "inputs": inputs(args, UNITS)})
        return 0
    _show(out, model)
    return 0


def _float_result(model, names) -> dict:
    import numpy as np
    import scipy.sparse as sps

    from ..numeric.markov import ctmc_stationary
    from ..numeric.markov import integer_chain

    # the structure (zero rates and self-loops dropped, one closed class) as for --digits; then float64
    chain = integer_chain(model.n, model.choice_state[model.src], model.dst, model.value, [0] * model.n)
    rec = chain.recurrent
    pos = np.full(model.n, -1)
    pos[rec] = np.arange(rec.size)
    keep = (pos[chain.src] >= 0) & (pos[chain.dst] >= 0)
    rates = chain.weight[keep].astype(float) / chain.scale
    Q = sps.csr_matrix((rates, (pos[chain.src[keep]], pos[chain.dst[keep]])), shape=(rec.size, rec.size))
    st = ctmc_stationary(Q - sps.diags(np.asarray(Q.sum(axis=1)).ravel()))
    pi = np.zeros(model.n)
    pi[rec] = st.pi
    averages = {}
    for name in names:
        r = np.zeros(model.n)
        r[model.choice_state] = model.reward_per_choice(name).astype(float)
        averages[name] = {"value": float(pi @ r), "method": f"float64 stationary law ({st.method}), π r"}
    return {"recurrent_states": int(rec.size), "pi": pi.tolist(), "pi_method": f"float64 {st.method}",
            "residual": st.residual, "averages": averages, "digits": None}


def _certified_result(model, names, digits: int) -> dict:
    from fractions import Fraction

    from ..numeric.errors import SolverError
    from ..numeric.markov import (agrees_with_enclosure, chain_averages, decimal_text, outward_text,
                                  stationary_enclosure)

    results, chain, (mass, steps) = chain_averages(model, names, digits)
    averages = {name: {"value": a.text, "method": a.method,
                       "bounds": [outward_text(b, digits + 3, up) for b, up in zip(a.bounds, (False, True))]}
                for name, a in results.items()}
    rec = chain.recurrent
    total = int(mass.sum())
    pi_rec = [Fraction(int(m), total) for m in mass]
    method = f"refined to {digits + 2} digits per entry with exact integer residuals ({steps} steps)"
    certified = True
    if rec.size <= PI_EXACT_MAX:
        method += "; " + _exact_crosscheck(chain, pi_rec, digits)
    else:
        balls = stationary_enclosure(chain, digits)
        if balls is None:
            certified = False
            method += (f"; one route only (recurrent class of {rec.size} > {PI_EXACT_MAX} states for the exact check, "
                       "and its breadth-first levels too wide for the ball-arithmetic block elimination)")
        elif agrees_with_enclosure(mass, balls, digits):
            method += ("; inside a rigorous enclosure to that accuracy (block elimination by breadth-first levels in "
                       "ball arithmetic, python-flint arb_mat)")
        else:
            raise SolverError(f"refined π and its ball-arithmetic enclosure disagree beyond 10^-{digits}")
    pi = ["0"] * model.n
    for i, p in zip(rec, pi_rec):
        pi[int(i)] = decimal_text(p, digits)
    return {"recurrent_states": int(rec.size), "pi": pi, "pi_method": method, "averages": averages,
            "digits": digits, "pi_certified": certified}


def _exact_crosscheck(chain, pi_rec, digits: int) -> str:
    """π of the recurrent class in exact rationals (python-flint fmpq_mat) must agree with the refined π."""
    from fractions import Fraction

    import numpy as np
    from flint import fmpq, fmpq_mat

    from ..numeric.errors import SolverError

    rec = chain.recurrent
    m = rec.size
    pos = np.full(chain.n, -1)
    pos[rec] = np.arange(m)
    A = fmpq_mat(m, m)  # Qᵀ with the last equation replaced by Σ π = 1
    for s, t, w in zip(chain.src, chain.dst, chain.weight):
        i, j = pos[s], pos[t]
        if i < 0 or j < 0:
            continue
        q = fmpq(int(w), chain.scale)
        if j < m - 1:
            A[int(j), int(i)] += q
        if i < m - 1:
            A[int(i), int(i)] -= q
    for j in range(m):
        A[m - 1, j] = 1
    b = fmpq_mat(m, 1)
    b[m - 1, 0] = 1
    x = A.solve(b)
    exact = [Fraction(int(x[i, 0].p), int(x[i, 0].q)) for i in range(m)]
    worst = max(abs(a - e) / e for a, e in zip(pi_rec, exact))
    if worst > Fraction(1, 10 ** digits):
        raise SolverError(f"refined π and exact-rational π differ by {float(worst):.3g} relative "
                          f"(more than 10^-{digits})")
    return f"equal to the exact rational solution to {digits} digits in every entry (python-flint fmpq_mat)"


def _show(out: dict, model) -> None:
    d = out["digits"]
    print(f"{model.source}: {out['kind'].upper()}, {out['states']} states, {out['transitions']} transitions, "
          f"{out['recurrent_states']} recurrent")
    print(f"stationary law    {out['pi_method']}")
    for i, p in enumerate(out["pi"][:PRINT_MAX]):
        print(f"  pi[{i}] = {p if d else format(p, '.15g')}")
    if len(out["pi"]) > PRINT_MAX:
        print(f"  ... ({len(out['pi']) - PRINT_MAX} more; all under --json)")
    unit = "per unit time" if out["kind"] == "ctmc" else "per step"
    for name, a in out["averages"].items():
        value = a["value"] if d else format(a["value"], ".15g")
        print(f"average {name!r} ({unit})  {value}")
        if d:
            print(f"  in [{a['bounds'][0]}, {a['bounds'][1]}]  ({a['method']})")
