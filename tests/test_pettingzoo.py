"""Any .cards file as a PettingZoo AEC environment: PettingZoo's own api_test passes."""
from __future__ import annotations

import warnings
from pathlib import Path

import numpy as np
import pytest

pytest.importorskip("pettingzoo", reason="the pettingzoo extra (pip install 'cardsmith[pettingzoo]')")

from pettingzoo.test import api_test, seed_test  # noqa: E402

from cardsmith.interpreter.integrations.pettingzoo import env  # noqa: E402

ROOT = Path(__file__).resolve().parent.parent
DUEL = str(ROOT / "tests" / "games" / "high_card_duel.cards")
BATTLEFIELD = str(ROOT / "games" / "battlefield_space.cards")


@pytest.mark.parametrize("path", [DUEL, BATTLEFIELD], ids=["high_card_duel", "battlefield_space"])
def test_pettingzoo_api_test_passes(path):
    with warnings.catch_warnings():
        # api_test's advice for flat observations; ours is the usual dict with an action mask
        warnings.filterwarnings("ignore", message="Observation space for each agent probably should be")
        warnings.filterwarnings("ignore", message="Observation is not a NumPy array")
        api_test(env(path), num_cycles=300)


def test_pettingzoo_seed_test_passes():
    seed_test(lambda: env(DUEL), num_cycles=50)


def test_the_action_mask_is_the_decision_of_the_agent_to_act():
    e = env(DUEL)
    e.reset(seed=4)
    agent = e.agent_selection
    pending = e.engine.pending
    assert agent == f"player_{pending.player}"
    mask = e.observe(agent)["action_mask"]
    assert mask.dtype == np.int8 and mask.sum() == len(pending.options) and mask[:len(pending.options)].all()
    other = next(a for a in e.agents if a != agent)
    assert not e.observe(other)["action_mask"].any()
    with pytest.raises(ValueError, match="action_mask"):
        e.step(len(pending.options))


def test_the_observation_is_the_view_and_nothing_hidden():
    e = env(DUEL)
    e.reset(seed=2)
    agent = e.agent_selection
    seat = int(agent.split("_")[1])
    before = e.observe(agent)["observation"].copy()
    theirs = e.observe(f"player_{1 - seat}")["observation"].copy()
    st = e.engine.state
    hand, deck = st.zones[f"hand:{1 - seat}"], st.zones["deck"]
    i, j = next((a, b) for a in range(len(hand)) for b in range(len(deck))
                if st.cards[hand[a]]["name"] != st.cards[deck[b]]["name"])
    a, b = hand[i], deck[j]
    hand[i], deck[j] = b, a
    st.card_zone[a], st.card_zone[b] = "deck", f"hand:{1 - seat}"
    assert np.array_equal(e.observe(agent)["observation"], before)
    # the other player holds a different hand now, and sees it
    assert not np.array_equal(e.observe(f"player_{1 - seat}")["observation"], theirs)
    assert e.view(agent) == e.engine.view(seat)


def test_rewards_come_from_the_result():
    e = env(DUEL)
    e.reset(seed=9)
    totals = {agent: 0.0 for agent in e.possible_agents}
    rng = np.random.default_rng(0)
    for agent in e.agent_iter():
        observation, reward, terminated, truncated, _ = e.last()
        totals[agent] += reward
        if terminated or truncated:
            e.step(None)
            continue
        legal = np.flatnonzero(observation["action_mask"])
        e.step(int(rng.choice(legal)))
    winners = e.engine.result["winners"]
    expected = {f"player_{s}": (1.0 / len(winners) if s in winners else 0.0) if winners else 0.5 for s in range(2)}
    assert totals == expected
