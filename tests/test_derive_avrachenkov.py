"""The Avrachenkov et al. derivations (derive/avrachenkov.py) answer for the rules they are given.

The Lemma's block recipe is generated from the rules of §2 (stated once, in local form); the measures of
Theorems 1-3 and V̄ of Corollary 1 are functionals built from the same rules.  Modified rules, each against
an answer obtained without the derivation under test:
- one arrival, service and obsolescence phase (Poisson arrivals, exponential service and patience): the
  chain is a birth-death chain, solved here by its product form (the M/M/1/K queue with impatient waiting
  pages), with P_loss = p_K (PASTA), P_success = mu (1 - p_0)/lambda (the server's output), P_obs the rest
  and V̄ = L/lambda; for the paper's rules, head-only expiry (death rate mu + theta from level 2 on) and
  doubled service (2 mu);
- complete rejection of batches that do not fit, K = 2, batches of 1 or 2: the two cut equations by hand;
- Corollary 1 for Poisson arrivals: the tagged page followed by hand through the pages ahead of it;
- the paper's rules on §7's example (K = 3): crawlmath's numeric exact-rational route (bmap_model.measures on
  rational_stationary, the generator enumerated in numeric code; V̄^(1), V̄^(2) from its own tagged-page
  route) against the derived functionals and the tagged page's chain built from the rules;
and models where the paper's structure breaks, refused by name (the page in service keeping its obsolescence
phase: no Lemma; LIFO service: the Lemma's blocks exist, Theorem 4's tagged-page recursion does not).
"""
import pytest
import sympy as sp

from crawlmath.derive import DerivationError
from crawlmath.derive import avrachenkov as av
from crawlmath.numeric import bmap as bm
from crawlmath.numeric.bmap import load_model
from crawlmath.numeric.generated import avrachenkov_lemma as generated

LAM, MU, THETA = sp.Rational(3, 2), sp.Integer(1), sp.Rational(1, 3)


def _exp_model(lam=LAM, mu=MU, theta=THETA):
    return av.LemmaModel.concrete({1: {0: [[-lam]], 1: [[lam]]}}, [[-mu]], [[1]], [[-theta]], [[1]])


def _birth_death(K, death):
    """Product-form law of the birth-death chain: up at LAM, down at death(i) from level i."""
    w = [sp.Integer(1)]
    for i in range(1, K + 1):
        w.append(w[-1] * LAM / death(i))
    return [x / sum(w) for x in w]


def _closed_form(K, death, service_rate):
    p = _birth_death(K, death)
    served = service_rate * (1 - p[0]) / LAM
    return {"P_loss": p[K], "P_success": served, "P_obs": 1 - p[K] - served, "P_star": p[0],
            "V_bar": sum(i * x for i, x in enumerate(p)) / LAM}


def _derived(rules, K):
    model = _exp_model()
    chi = (1,) * (K + 1)
    p = av.stationary_exact(model, K, chi, rules)
    return av.measures_from(p, av.rate_functionals(model, K, chi, rules))


@pytest.mark.parametrize("name, death, service_rate", [
    ("paper", lambda i: MU + (i - 1) * THETA, MU),
    ("head-only expiry", lambda i: MU + THETA * int(i >= 2), MU),
    ("doubled service", lambda i: 2 * MU + (i - 1) * THETA, 2 * MU),
])
def test_poisson_reduction_matches_the_birth_death_chain(name, death, service_rate):
    K = 4
    got, want = _derived(av.MODIFIED_RULES[name], K), _closed_form(K, death, service_rate)
    for key, value in want.items():
        assert sp.simplify(got[key] - value) == 0, (name, key, got[key], value)
    assert got["lambda"] == LAM


def _tagged(K, p, ahead, own, service):
    served = time_served = expired = time_expired = sp.Integer(0)
    for n in range(K):
        reach, mean = sp.Integer(1), sp.Integer(0)  # P(reach j pages ahead), E[time so far | reach]
        for j in range(n, 0, -1):
            rate = ahead(j) + own(j)
            expired += p[n] * reach * own(j) / rate
            time_expired += p[n] * reach * own(j) / rate * (mean + 1 / rate)
            reach, mean = reach * ahead(j) / rate, mean + 1 / rate
        served += p[n] * reach
        time_served += p[n] * reach * (mean + 1 / service)
    accepted = sum(p[:K])
    return served / accepted, time_served / served, time_expired / expired if expired else sp.Integer(0)


@pytest.mark.parametrize("name, ahead, own, service", [
    ("paper", lambda j: MU + (j - 1) * THETA, lambda j: THETA, MU),
    ("head-only expiry", lambda j: MU + THETA * int(j >= 2), lambda j: THETA * int(j == 1), MU),
    ("doubled service", lambda j: 2 * MU + (j - 1) * THETA, lambda j: THETA, 2 * MU),
])
def test_poisson_sojourn_means_match_the_tagged_page_by_hand(name, ahead, own, service):
    K, rules, model = 4, av.MODIFIED_RULES[name], _exp_model()
    chi = (1,) * (K + 1)
    p = av.stationary_exact(model, K, chi, rules)
    got = av.sojourn_means(model, K, chi, p, rules)
    m = av.measures_from(p, av.rate_functionals(model, K, chi, rules))
    success_given_accepted, v1, v2 = _tagged(K, [x[0, 0] for x in p], ahead, own, service)
    assert got["V1"] == v1 and got["V2"] == v2
    assert got["P_served"] == m["P_success"] == success_given_accepted * (1 - m["P_loss"])
    assert got["V"] == m["V_bar"]  # (22) against Little's law


def test_paper_and_head_only_expiry_differ_where_they_should():
    paper, head = _derived(av.MODIFIED_RULES["paper"], 4), _derived(av.MODIFIED_RULES["head-only expiry"], 4)
    assert paper["P_obs"] > head["P_obs"] and paper["P_loss"] < head["P_loss"]


def test_complete_rejection_by_the_cut_equations():
    a1, a2, mu, theta = sp.Rational(1, 2), sp.Rational(1, 3), sp.Integer(1), sp.Rational(1, 4)
    model = av.LemmaModel.concrete({1: {0: [[-(a1 + a2)]], 1: [[a1]], 2: [[a2]]}}, [[-mu]], [[1]], [[-theta]], [[1]])
    rules = av.MODIFIED_RULES["complete rejection"]
    p = [x[0, 0] for x in av.stationary_exact(model, 2, (1, 1, 1), rules)]
    # cuts {0} | {1, 2} and {0, 1} | {2}: a batch of 2 finding one page waiting is lost whole
    p1 = (a1 + a2) / mu  # relative to p_0
    p2 = (a2 + a1 * p1) / (mu + theta)  # a pair from the empty system, a single page onto one
    p1, p2 = p1 / (1 + p1 + p2), p2 / (1 + p1 + p2)
    assert (p[1], p[2]) == (p1, p2)
    m = av.measures_from([sp.Matrix([[x]]) for x in p], av.rate_functionals(model, 2, (1, 1, 1), rules))
    assert m["P_loss"] == (2 * a2 * p1 + (a1 + 2 * a2) * p2) / (a1 + 2 * a2)
    partial = av.measures_from(av.stationary_exact(model, 2, (1, 1, 1)), av.rate_functionals(model, 2, (1, 1, 1)))
    assert partial["P_loss"] != m["P_loss"]


def test_generated_recipe_is_the_printed_lemma_for_the_paper_rules():
    assert av.recipe_vs_printed(8) == {}
    for K in (1, 4, 9):
        for i in range(K + 1):
            for j in range(K + 1):
                assert generated.lemma_recipe(i, j, K) == av.lemma_recipe(i, j, K) == av.printed_lemma_recipe(i, j, K)


@pytest.mark.parametrize("name, blocks", [
    ("head-only expiry", {(3, 3, 2), (3, 3, 3)}),
    ("doubled service", {(3, 1, 0), (3, 1, 1), (3, 2, 1), (3, 2, 2), (3, 3, 2), (3, 3, 3)}),
    ("complete rejection", {(3, 0, 0), (3, 0, 3), (3, 1, 1), (3, 1, 3), (3, 2, 2), (3, 2, 3)}),
])
def test_modified_rules_change_the_recipe_and_it_is_their_generator(name, blocks):
    rules = av.MODIFIED_RULES[name]
    assert {key for key in av.recipe_vs_printed(3, rules) if key[0] == 3} == blocks
    assert av.lemma_residuals(W_=1, M_=2, R_=2, kmax=3, K_=3, chi=(1, 2, 2, 1), rules=rules) == {}


def test_the_state_by_state_generator_can_disagree_with_a_recipe():
    """The comparison can fail: blocks from one rule set against the generator of another."""
    model = av.LemmaModel(1, 1, 2, kmax=1, modes=1)
    Q = av.generator_from_rules(model, 3, (1,) * 4, av.MODIFIED_RULES["head-only expiry"])
    off = av.level_offsets(model, 3)
    paper_block = av.lemma_block(model, 3, 2, 3, (1,) * 4)
    assert (Q[off[3]:off[4], off[2]:off[3]] - paper_block).applyfunc(sp.expand) != sp.zeros(4, 2)


def test_printed_theorems_1_to_3_are_the_derived_functionals_for_the_paper_only():
    model = av.LemmaModel(2, 1, 2, kmax=3, modes=2)
    assert av.functionals_vs_printed(model, 3, (1,)) == {}
    assert set(av.functionals_vs_printed(model, 3, (1,), av.MODIFIED_RULES["head-only expiry"])) == {("expired", 3)}
    assert set(av.functionals_vs_printed(model, 3, (1,), av.MODIFIED_RULES["complete rejection"])) == {("lost", 1), ("lost", 2)}


def test_structure_break_is_refused_by_name():
    with pytest.raises(DerivationError, match="leave the Lemma's state space"):
        av.recipe_vs_printed(3, av.STRUCTURE_BREAK)
    with pytest.raises(DerivationError, match="not a state of"):
        av.generator_from_rules(av.LemmaModel(1, 1, 2, kmax=1, modes=1), 2, (1, 1, 1), av.STRUCTURE_BREAK)


def test_lifo_has_lemma_blocks_but_no_tagged_page_recursion():
    rules = av.MODIFIED_RULES["LIFO service"]
    assert {key for key in av.recipe_vs_printed(3, rules) if key[0] == 3} == {(3, 3, 2)}
    assert av.lemma_residuals(W_=1, M_=2, R_=2, kmax=3, K_=3, chi=(1, 2, 2, 1), rules=rules) == {}
    with pytest.raises(DerivationError, match="not served in order"):
        av.tagged_chain(_exp_model(), 3, rules)
    assert av.tagged_chain(_exp_model(), 2, rules)[0].shape == (2, 2)  # one page ahead at most: LIFO = FIFO


def test_batches_beyond_the_room_that_act_differently_have_no_tail_block():
    def only_pairs_rejected(level, K_, k):
        move = av.paper_arrival(level, K_, k)
        return dict(move, to=level, new=(), lost=k) if k == K_ - level + 1 else move

    with pytest.raises(DerivationError, match="tail block"):
        av.lemma_block(av.LemmaModel(1, 1, 1, kmax=1, modes=1), 1, 1, 2, (1, 1, 1), (only_pairs_rejected, av.paper_rules()[1]))


def _concrete(model: bm.BmapModel) -> av.LemmaModel:
    """The numeric model's exact inputs as a LemmaModel."""
    D = {r: {k: sp.Matrix(model.D_exact(r, k).tolist()) for k in range(model.kmax + 1)} for r in range(1, model.N + 1)}
    ph, ob = model.service, model.obsolescence
    return av.LemmaModel.concrete(D, ph.S_exact.tolist(), [list(ph.beta_exact)], ob.S_exact.tolist(), [list(ob.beta_exact)])


def test_numeric_exact_measures_are_the_derived_functionals():
    model = load_model("avrachenkov-example.json", K=3, reduce=False)  # §7's example: exact generator inputs, batches <= 4
    levels = model.check_policy(bm.Policy((3, 1), (1,)))
    p = bm.rational_stationary(model, levels)
    st = bm.Stationary(bm.split_levels(model, p), "exact rational solve", 0.0)
    numeric = bm.measures(model, levels, st, rational=True)
    blocks = [sp.Matrix([[sp.Rational(int(x.p), int(x.q)) for x in b]]) for b in st.p]
    concrete = _concrete(model)
    derived = av.measures_from(blocks, av.rate_functionals(concrete, model.K, levels))
    as_q = lambda x: sp.Rational(int(x.p), int(x.q))  # noqa: E731
    pairs = {"lambda": numeric.lam, "P_loss": numeric.p_loss, "P_obs": numeric.p_obs, "P_success": numeric.p_success,
             "P_star": numeric.p_star, "N_act": numeric.n_act}
    for key, value in pairs.items():
        assert derived[key] == as_q(value), key
    assert derived["V_bar"] == as_q(numeric.mean_number) / as_q(numeric.lam)
    assert derived["P_loss"] + derived["P_obs"] + derived["P_success"] == 1
    assert derived["P_loss"] > 0 and derived["P_obs"] > 0
    tagged = av.sojourn_means(concrete, model.K, levels, blocks)
    assert (tagged["V1"], tagged["V2"], tagged["P_served"]) == (as_q(numeric.v1), as_q(numeric.v2), as_q(numeric.p_success_tagged))
    assert tagged["V"] == derived["V_bar"]


def test_every_formula_states_its_provenance_and_typed_pieces_name_their_check():
    for f in av.formulas():
        kinds = {i.kind for i in f.inputs}
        assert f.inputs and "derived" in kinds, f.name
        assert all(i.how for i in f.inputs if i.kind == "typed"), f.name
    states = next(f for f in av.formulas() if f.name == "avrachenkov_states")
    assert "typed: level size" in states.provenance()
