"""Any .cards file as an OpenSpiel game: OpenSpiel's own checks and bots run on it."""
from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

pyspiel = pytest.importorskip("pyspiel", reason="the openspiel extra (pip install 'cardsmith[openspiel]')")

from open_spiel.python.algorithms import ismcts, mcts  # noqa: E402

from cardsmith.interpreter.integrations import openspiel as cs  # noqa: E402

ROOT = Path(__file__).resolve().parent.parent
DUEL = str(ROOT / "tests" / "games" / "high_card_duel.cards")
BATTLEFIELD = str(ROOT / "games" / "battlefield_space.cards")


@pytest.fixture(scope="module")
def duel():
    return pyspiel.load_game(cs.register(DUEL))


def dealt(game, seed: int = 3):
    state = game.new_initial_state()
    state.apply_action(seed)
    return state


def test_a_registered_file_loads_by_its_name_and_by_the_generic_name(duel):
    assert cs.register(DUEL) == "cardsmith_high_card_duel"
    kind = duel.get_type()
    assert kind.information == pyspiel.GameType.Information.IMPERFECT_INFORMATION
    assert kind.chance_mode == pyspiel.GameType.ChanceMode.EXPLICIT_STOCHASTIC
    assert kind.utility == pyspiel.GameType.Utility.CONSTANT_SUM
    assert duel.num_players() == 2 and duel.num_distinct_actions() == 16    # 16 cards
    generic = pyspiel.load_game("cardsmith", {"file": DUEL, "seeds": 7})
    assert generic.max_chance_outcomes() == 7
    assert str(pyspiel.load_game(f"cardsmith(file={DUEL})").new_initial_state()) == "(before the deal)"


def test_a_player_count_the_game_does_not_allow_is_refused():
    with pytest.raises(Exception, match="2 to 2 players, not 3"):
        pyspiel.load_game("cardsmith", {"file": DUEL, "players": 3})


def test_openspiel_random_simulation_test_passes_on_the_test_game(duel):
    pyspiel.random_sim_test(duel, num_sims=6, serialize=True, verbose=False)


def test_openspiel_random_simulation_test_passes_on_a_bundled_game():
    pyspiel.random_sim_test(cs.load(BATTLEFIELD), num_sims=1, serialize=True, verbose=False)


def test_chance_picks_the_seed_then_the_players_face_the_decisions(duel):
    state = duel.new_initial_state()
    assert state.is_chance_node()
    assert sum(p for _, p in state.chance_outcomes()) == pytest.approx(1.0)
    state.apply_action(5)
    eng = state._live.eng
    assert state.current_player() == eng.pending.player == 0
    assert state.legal_actions() == list(range(len(eng.pending.options)))
    strings = [state.action_to_string(a) for a in state.legal_actions()]
    assert len(set(strings)) == len(strings)
    assert all(s.split(" [")[0] in eng.pending.options for s in strings)


def test_the_information_state_is_the_view_and_the_players_own_choices(duel):
    state = dealt(duel)
    mover = state.current_player()
    text = state.information_state_string(mover)
    assert cs.describe(state._live.eng.view(mover)) in text
    assert state.information_state_string(mover) != state.information_state_string(1 - mover)
    before = state.information_state_string(1 - mover)
    state.apply_action(0)
    # the other player sees the card led (it is face up), and nothing of the mover's choice list
    assert state.information_state_string(1 - mover) != before
    assert "chose: []" in state.information_state_string(1 - mover)
    tensor = np.asarray(state.information_state_tensor(1 - mover))
    assert tensor.shape == (duel.information_state_tensor_size(),) and tensor.any()


def test_information_states_do_not_change_with_the_cards_a_player_cannot_see(duel):
    state = dealt(duel)
    mover = state.current_player()
    eng = state._live.eng
    other_hand, deck = eng.state.zones[f"hand:{1 - mover}"], eng.state.zones["deck"]
    names = eng.state.cards
    i, j = next((a, b) for a in range(len(other_hand)) for b in range(len(deck))
                if names[other_hand[a]]["name"] != names[deck[b]]["name"])
    swapped = state.clone()
    st = swapped._live.eng.state
    a, b = st.zones[f"hand:{1 - mover}"][i], st.zones["deck"][j]
    st.zones[f"hand:{1 - mover}"][i], st.zones["deck"][j] = b, a
    st.card_zone[a], st.card_zone[b] = "deck", f"hand:{1 - mover}"
    assert str(swapped) != str(state)
    assert swapped.information_state_string(mover) == state.information_state_string(mover)
    assert swapped.information_state_tensor(mover) == state.information_state_tensor(mover)
    assert swapped.information_state_string(1 - mover) != state.information_state_string(1 - mover)


def test_resampling_keeps_the_information_state_and_deals_the_rest_again(duel):
    state = dealt(duel)
    state.apply_action(1)
    mover = state.current_player()
    key = state.information_state_string(mover)
    sampler = pyspiel.UniformProbabilitySampler(0.0, 1.0)
    worlds = set()
    for _ in range(12):
        sample = state.resample_from_infostate(mover, sampler)
        assert sample.information_state_string(mover) == key
        worlds.add(str(sample))
    assert len(worlds) > 1


def test_returns_come_from_the_result(duel):
    state = dealt(duel, 11)
    while not state.is_terminal():
        state.apply_action(state.legal_actions()[0])
    winners = state._live.eng.result["winners"]
    expected = [1.0 / len(winners) if p in winners else 0.0 for p in range(2)] if winners else [0.5, 0.5]
    assert state.returns() == expected
    assert sum(state.returns()) == pytest.approx(1.0)


def play_out(game, bot, seat: int, seed: int) -> list[float]:
    rng = np.random.RandomState(seed)
    state = game.new_initial_state()
    while not state.is_terminal():
        if state.is_chance_node():
            outcomes = state.chance_outcomes()
            state.apply_action(outcomes[rng.randint(len(outcomes))][0])
        elif state.current_player() == seat:
            action = bot.step(state)
            assert action in state.legal_actions()
            state.apply_action(action)
        else:
            state.apply_action(rng.choice(state.legal_actions()))
    return state.returns()


def test_openspiel_ismcts_bot_plays_a_bundled_game():
    game = cs.load(BATTLEFIELD)
    evaluator = mcts.RandomRolloutEvaluator(1, np.random.RandomState(0))
    bot = ismcts.ISMCTSBot(game, evaluator, uct_c=2.0, max_simulations=3, random_state=np.random.RandomState(1))
    returns = play_out(game, bot, 0, 2)
    assert sum(returns) == pytest.approx(1.0)


def test_openspiel_mcts_bot_plays_the_test_game(duel):
    evaluator = mcts.RandomRolloutEvaluator(1, np.random.RandomState(0))
    bot = mcts.MCTSBot(duel, uct_c=2.0, max_simulations=20, evaluator=evaluator,
                       random_state=np.random.RandomState(1))
    assert sum(play_out(duel, bot, 1, 4)) == pytest.approx(1.0)
