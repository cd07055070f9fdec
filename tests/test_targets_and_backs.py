"""Targets chosen when an action is used (issue 13, item 3) and card backs that show fields
(issue 14, item 2), each on a test game of its own:

- tests/games/sharpshooters: `target t from <collection>` on an action; the user chooses it as
  they use the action (before the cost, before the stack), `targeted(card, source, player,
  ability)` happens so triggers and response windows answer it, the body reads it by name, and
  a target that is no longer legal when the action resolves is left alone (it fizzles);
- tests/games/tiered_tiles: `back shows: tier` in a card type; a face-down (or held) card shows
  its type and those fields in every view and in a player's log, and the agents' samples re-deal
  it only among cards with the same back.
"""
from __future__ import annotations

import random
from pathlib import Path

import pytest

from cardsmith.dsl.loader import check_source, load_game
from cardsmith.dsl.source import Source
from cardsmith.interpreter.determinize import Determinizer, hidden_places
from cardsmith.interpreter.engine import Engine
from cardsmith.interpreter.program import program_for
from cardsmith.interpreter.scenario import run_scenario

GAMES = Path(__file__).resolve().parent / "games"
SHOTS = str(GAMES / "sharpshooters.cards")
TILES = str(GAMES / "tiered_tiles.cards")


def _scenarios():
    for stem in ("sharpshooters", "tiered_tiles"):
        path = GAMES / f"{stem}.scenarios.cards"
        for s in load_game(str(path)).decls.scenarios:
            yield pytest.param(path, s.name, id=f"{stem}: {s.name}")


@pytest.mark.parametrize(("path", "name"), list(_scenarios()))
def test_scenarios_pass(path, name):
    result = run_scenario(load_game(str(path)), name)
    assert result.ok, "\n".join(result.failures)


@pytest.fixture(scope="module")
def shots():
    return load_game(SHOTS)


@pytest.fixture(scope="module")
def tiles():
    return load_game(TILES)


def _answer(eng: Engine, label: str) -> None:
    labels = eng.pending.options
    assert label in labels, (label, labels)
    eng.decide(labels.index(label))


def _play_random(game, players: int, seed: int) -> Engine:
    eng = Engine(game, players, seed)
    rng = random.Random(seed)
    while not eng.finished:
        eng.decide(rng.randrange(len(eng.pending.options)))
    return eng


# ---------------------------------------------------------------------------- targets

def test_the_target_is_a_decision_made_before_the_cost_is_paid(shots):
    eng = Engine(shots, 2, 1)
    _answer(eng, "Rifle: Shoot")
    pending = eng.pending
    assert pending.player == 0 and pending.prompt == "Choose the target of Shoot (t)"
    # only the other player's cards are candidates, and nothing is paid yet
    assert set(pending.options) == {"Rifle", "Decoy", "Mirror", "Dodger", "Trader"}
    assert eng.state.players[0]["ammo"] == 3
    assert not eng.state.stack
    _answer(eng, "Trader")
    assert eng.state.players[0]["ammo"] == 2
    texts = [ev["text"] for ev in eng.log]
    used = next(i for i, t in enumerate(texts) if t.startswith("Player 1 uses Rifle: Shoot"))
    assert texts[used] == "Player 1 uses Rifle: Shoot targeting Trader (on the stack, 1 deep)"
    assert eng.log[used]["targets"] == {"t": "Trader"}
    # the Trader's own `when targeted` trigger answered the targeting
    assert any(t == "Trader of Player 2 triggers on targeted" for t in texts[used:])
    assert eng.state.players[1]["aimed_at"] == 1


def test_a_target_gone_when_the_action_resolves_fizzles(shots):
    eng = Engine(shots, 2, 1)
    _answer(eng, "Rifle: Shoot")
    _answer(eng, "Dodger")
    # the response window after `targeted`: seat 1 passes, seat 2 ducks the Dodger into the hand
    assert eng.pending.prompt == "Respond in Answers?"
    _answer(eng, "pass")
    _answer(eng, "Dodger: Duck")
    _answer(eng, "pass")            # seat 1 again, after the Duck resolved; seat 2 has nothing left
    texts = [ev["text"] for ev in eng.log]
    assert "Rifle: Shoot fizzles for Dodger, no longer a legal target (t)" in texts
    assert eng.state.players[0]["hits"] == 0
    assert not any(ev["event"] == "move" and ev["to"] == "scrap" for ev in eng.log)


def test_a_later_target_is_chosen_from_a_collection_that_names_an_earlier_one(shots):
    prog = program_for(shots)
    swap = next(e for e in prog.actions if e.label == "Swap")
    assert [name for name, *_ in swap.targets] == ["mine", "theirs"]
    eng = Engine(shots, 2, 1)
    _answer(eng, "Trader: Swap")
    assert eng.pending.prompt == "Choose the target of Swap (mine)"
    _answer(eng, "Rifle")
    assert eng.pending.prompt == "Choose the target of Swap (theirs)"
    # armour of it <= armour of mine: every card of the other line has armour 0
    assert len(eng.pending.options) == 5


def test_targeting_is_saved_and_restored_and_replays_the_same(shots):
    """A game saved at a target's decision restores and plays on to the same log."""
    eng = Engine(shots, 2, 4)
    _answer(eng, "Trader: Swap")
    saved = eng.save_json()
    rng = random.Random(9)
    picks = []
    while not eng.finished:
        picks.append(rng.randrange(len(eng.pending.options)))
        eng.decide(picks[-1])
    again = Engine.restore(shots, saved)
    for pick in picks:
        again.decide(pick)
    assert again.result == eng.result
    assert [ev["text"] for ev in again.log] == [ev["text"] for ev in eng.log][-len(again.log):]


def test_random_games_end_and_are_deterministic(shots):
    kinds = set()
    for seed in range(1, 41):
        eng = _play_random(shots, 2, seed)
        assert eng.result is not None
        kinds |= {ev["event"] for ev in eng.log}
        if seed <= 3:
            assert eng.log_jsonl() == _play_random(shots, 2, seed).log_jsonl()
    assert "fizzle" in kinds                 # random play meets a target gone before the shot lands


def _book(game) -> str:
    from cardsmith.dsl.publish.rulebook import build_book, render
    return render(build_book(game, examples=False), "md")


def test_the_rulebook_says_targets(shots):
    text = _book(shots)
    assert ("target *t*: one of the cards in every player's line whose controller is not you, "
            "chosen as you use it") in text
    assert "When this card becomes the target of an action" in text
    assert "the action fizzles for it" in text          # the Targets rule, once for the book


@pytest.mark.parametrize(("source", "code", "line"), [
    ('card type Gun:\n    action "Fire" target t from 3:\n        say "bang"\n', "E0450", 4),
    ('card type Gun:\n    action "Fire" target t from players, target t from players:\n        say "bang"\n', "E0451", 4),
    ('card type Tile:\n    tier: number\n    back shows: tier, teir\n', "E0120", 5),
    ('card type Tile:\n    tier: number\n    back shows: tier, tier\n', "E0120", 5),
])
def test_bad_targets_and_backs_are_located_errors(source, code, line):
    _, diags, _ = check_source(Source("game.cards", 'game "T":\n    players: 2 to 2\n' + source))
    assert [d.code for d in diags] == [code]
    assert diags[0].span.line == line and diags[0].hint


def test_a_target_reads_as_its_element_in_the_body():
    """The body knows the target's type: a card's fields are read from it."""
    text = ('game "T":\n    players: 2 to 2\nzone line: per player, public\n'
            'card type Gun:\n    power: number = 1\n'
            '    action "Fire" target t from cards in every line:\n        say "hit", t.power\n')
    _, diags, _ = check_source(Source("game.cards", text))
    assert diags == []
    bad = text.replace("t.power", "t.pwr")
    _, diags, _ = check_source(Source("game.cards", bad))
    assert [d.code for d in diags] == ["E0204"]


def test_openspiel_plays_targets():
    pyspiel = pytest.importorskip("pyspiel")
    from cardsmith.interpreter.integrations import openspiel as cs
    pyspiel.random_sim_test(cs.load(SHOTS), num_sims=3, serialize=True, verbose=False)


# ---------------------------------------------------------------------------- backs

def _dealt(tiles, players=2, seed=3) -> Engine:
    eng = Engine(tiles, players, seed)
    assert eng.pending is not None
    return eng


def test_a_face_down_card_shows_its_back_to_everyone(tiles):
    eng = _dealt(tiles)
    st = eng.state
    for player in (0, 1):
        zone = eng.view(player)["zones"]["map"]
        assert zone["cards"] == [None] * 6
        assert zone["backs"] == [{"type": "System", "tier": st.cards[c]["tier"]} for c in st.zones["map"]]
        # a hidden zone still shows only how many
        assert eng.view(player)["zones"]["bag"]["cards"] is None
        assert "backs" not in eng.view(player)["zones"]["bag"]
    # a hand: its owner sees the face, the other player the back
    held = st.zones["hand:0"][0]
    mine, theirs = eng.view(0)["zones"]["hand:0"], eng.view(1)["zones"]["hand:0"]
    assert mine["cards"] == [st.cards[held]["name"]] and mine["backs"] == [None]
    assert theirs["cards"] == [None] and theirs["backs"] == [{"type": "System", "tier": st.cards[held]["tier"]}]


def test_a_face_up_card_shows_its_face_not_its_back(tiles):
    eng = _dealt(tiles)
    # explore: the lowest Tier face down turns face up
    label = next(o for o in eng.pending.options if o.startswith("Explore"))
    eng.decide(eng.pending.options.index(label))
    zone = eng.view(1)["zones"]["map"]
    up = [i for i, name in enumerate(zone["cards"]) if name is not None]
    assert len(up) == 1 and zone["backs"][up[0]] is None


def test_a_players_log_names_a_face_down_card_by_its_back(tiles):
    eng = _dealt(tiles)
    st = eng.state
    first = st.zones["map"][0]
    theirs = eng.log_seen_by(1)
    moves = [ev["text"] for ev in theirs if ev["text"].endswith("from bag to map face down")]
    assert len(moves) == 6
    assert moves[0] == f"a System (tier {st.cards[first]['tier']}) from bag to map face down"
    # the card dealt to seat 1's hand: seat 2 reads its back, seat 1 its name
    held = st.zones["hand:0"][0]
    line = f"a System (tier {st.cards[held]['tier']}) from bag to Player 1's hand face down"
    assert line in [ev["text"] for ev in theirs]
    assert f"{st.cards[held]['name']} from bag to Player 1's hand face down" in [ev["text"] for ev in eng.log_seen_by(0)]


def test_a_choice_among_face_down_cards_names_them_by_place_and_back(tiles):
    eng = _dealt(tiles)
    st = eng.state
    labels = [o for o in eng.pending.options if o.startswith("Explore")]
    low = min(st.cards[c]["tier"] for c in st.zones["map"])
    assert labels and all(o.endswith(f": a System (tier {low})") and "card " in o for o in labels)


def test_samples_deal_a_card_only_among_cards_with_the_same_back(tiles):
    game = tiles
    sampler = Determinizer(game)
    rng = random.Random(11)
    for seed in range(1, 6):
        eng = _dealt(game, 3, seed)
        player = eng.pending.player
        hidden = hidden_places(eng.save()["state"], eng.prog.decls, player)
        tiers = {(key, i): eng.state.cards[c]["tier"] for key, i, c in hidden}
        changed = 0
        for _ in range(4):
            sample = Engine.restore(game, sampler.sample(eng, player, rng), log=False)
            assert sample.view(player) == eng.view(player)
            for (key, i), tier in tiers.items():
                c = sample.state.zones[key][i]
                assert sample.state.cards[c]["tier"] == tier
                changed += c != eng.state.zones[key][i]
        assert changed                      # cards do move: only among those with the same back


def test_random_games_with_backs_end(tiles):
    for players in (2, 3):
        for seed in range(1, 21):
            assert _play_random(tiles, players, seed).result is not None


def test_the_rulebook_says_what_the_back_shows(tiles):
    assert "The back of every System shows its tier: everyone may read it" in _book(tiles)


def test_a_game_without_backs_has_no_backs_in_its_views(shots):
    eng = Engine(shots, 2, 1)
    assert all("backs" not in z for z in eng.view(0)["zones"].values())


def test_observations_count_the_backs_a_player_sees(tiles):
    np = pytest.importorskip("numpy")
    from cardsmith.interpreter.integrations.table import table_for
    table = table_for(tiles, 2)
    assert table.backs == ('{"tier": 1, "type": "System"}', '{"tier": 2, "type": "System"}',
                           '{"tier": 3, "type": "System"}')
    eng = _dealt(tiles)
    st = eng.state
    vec = table.encode(eng.view(1))
    width = 1 + len(table.names) + len(table.backs)
    z = table.zone_keys.index("map") * width
    seen = vec[z + 1 + len(table.names):z + width]
    tiers = [st.cards[c]["tier"] for c in st.zones["map"]]
    assert list(seen) == [tiers.count(1), tiers.count(2), tiers.count(3)]
    assert vec[z + 1:z + 1 + len(table.names)].sum() == 0       # no face is seen
    assert np.count_nonzero(vec) > 0


def test_openspiel_plays_backs():
    pyspiel = pytest.importorskip("pyspiel")
    from cardsmith.interpreter.integrations import openspiel as cs
    pyspiel.random_sim_test(cs.load(TILES), num_sims=3, serialize=True, verbose=False)
