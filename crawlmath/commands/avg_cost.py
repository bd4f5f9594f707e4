"""``crawlmath avg-cost``: the optimal long-run average cost of an MDP read from a
Storm DRN, PRISM explicit or JSON-triplet file (issue 30, item 6)."""
from __future__ import annotations

from ._common import inputs, print_json
from .ctmc import PRINT_MAX, add_model_arguments, load

NAME = "avg-cost"
HELP = "Optimal average cost, policy and bias of an MDP from a Storm DRN, PRISM .tra or JSON file, exactly read."
EXAMPLE = """
crawlmath avg-cost admission.drn                          # float64 policy iteration
crawlmath avg-cost admission.drn --digits 30              # g* to 30 digits inside exact bounds, two routes
crawlmath avg-cost admission.tra --srew cost.srew --trew cost.trew --digits 30 --json
"""

UNITS = {"digits": "significant decimal digits", "reward": "cost per step (minimised)"}


def add_arguments(p):
    """Register the options of ``crawlmath avg-cost`` on the argparse parser ``p``."""
    add_model_arguments(p)


def run(args) -> int:
    """``crawlmath avg-cost``: read the MDP, minimise its long-run average cost and print g*, the policy and
    the bias; returns 0."""
    from ..numeric.errors import InvalidInput

    model = load(args)
    if model.kind != "mdp":
        raise InvalidInput("FILE", f"is a {model.kind.upper()}, not an MDP: use crawlmath ctmc", value=args.file)
    out = _float_result(model, args.reward) if args.digits is None else _certified_result(model, args.reward,
                                                                                          args.digits)
    out = {"states": model.n, "choices": int(model.choice_state.size), **out}
    if args.json:
        print_json({**out, "inputs": inputs(args, UNITS)})
        return 0
    _show(out, model)
    return 0


def _labels(model, choice) -> list:
    return [model.choice_label[int(k)] for k in choice]


def _float_result(model, reward) -> dict:
    import numpy as np

    from ..numeric.markov import average_cost_mdp
    from ..numeric.markov import float_mdp, policy_choices

    P, c, rank = float_mdp(model, model.reward_per_choice(reward))
    sol = average_cost_mdp(P, c)
    g = sol.gain if sol.gain is not None else sol.g.tolist()
    return {"gain": g, "gain_bounds": None if sol.gain_bounds is None else list(sol.gain_bounds),
            "error_bound": sol.error_bound, "policy": _labels(model, policy_choices(model, rank, sol.policy)),
            "bias": np.asarray(sol.bias).tolist(), "residual": sol.residual, "iterations": sol.iterations,
            "changes": 0, "digits": None,
            "method": f"float64 {sol.method} (inputs read exactly, solved in float64)"}


def _certified_result(model, reward, digits: int) -> dict:
    from ..numeric.markov import optimal_average, outward_text

    r = optimal_average(model, reward, digits)
    a = r.average
    method = ("float policy iteration, then exact policy improvement on the refined bias; " + a.method
              + "; lower bound min over all states and actions of c + P h - h")
    bounds = [outward_text(b, digits + 3, up) for b, up in zip(r.bounds, (False, True))]
    return {"gain": a.text, "gain_bounds": bounds, "error_bound": None,
            "policy": _labels(model, r.policy), "bias": r.bias.tolist(), "residual": None, "iterations": None,
            "changes": r.changes, "digits": digits, "method": method}


def _show(out: dict, model) -> None:
    print(f"{model.source}: MDP, {out['states']} states, {out['choices']} choices")
    print(f"optimal average cost g*  {out['gain']}")
    if out["gain_bounds"] and out["digits"] is not None:
        print(f"  in [{out['gain_bounds'][0]}, {out['gain_bounds'][1]}]  (exact bounds)")
    elif out["gain_bounds"]:
        print(f"  in [{out['gain_bounds'][0]!r}, {out['gain_bounds'][1]!r}]  (error <= {out['error_bound']:.2g}: "
              "rigorous bounds for the float64 MDP; --digits for the exact one)")
    print(f"method  {out['method']}")
    if out["changes"]:
        print(f"exact improvement changed {out['changes']} actions of the float policy")
    for s, (a, h) in enumerate(zip(out["policy"][:PRINT_MAX], out["bias"][:PRINT_MAX])):
        print(f"  state {s}: action {a}   bias h = {h:.15g}")
    if out["states"] > PRINT_MAX:
        print(f"  ... ({out['states'] - PRINT_MAX} more; all under --json)")
