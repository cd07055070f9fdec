"""What issue 12 (The Space War) needed of the language, each on a test game of its own:

- per-card knowledge: a public zone `face down known to its owner` (tests/games/known_station):
  its face-down cards are seen by the zone's owner alone, in the view, the player's log, the
  choices, the agents' samples and the observations; face up, by everyone;
- an action usable from several zones, `from hand or reserve` (tests/games/two_pockets);
- `modify` of players' attributes and the game's (tests/games/command_bonuses): reads see the
  modified number, `set` / `add` / `subtract` change the stored one, tabled per state version
  like a card field's.
"""
from __future__ import annotations

import json
import random
from pathlib import Path

import pytest

from cardsmith.dsl.diagnostics import CardsmithError
from cardsmith.dsl.loader import load_game, load_text
from cardsmith.dsl.publish import english as E
from cardsmith.interpreter.determinize import Determinizer, hidden_places
from cardsmith.interpreter.engine import Engine
from cardsmith.interpreter.machine import Machine
from cardsmith.interpreter.play import run_game
from cardsmith.interpreter.program import program_for
from cardsmith.interpreter.resolver import usable
from cardsmith.interpreter.scenario import run_scenario

GAMES = Path(__file__).resolve().parent / "games"
MINE = ("known_station", "two_pockets", "command_bonuses")


def _scenarios():
    for stem in MINE:
        path = GAMES / f"{stem}.scenarios.cards"
        for s in load_game(str(path)).decls.scenarios:
            yield pytest.param(path, s.name, id=f"{stem}: {s.name}")


@pytest.mark.parametrize("path, name", list(_scenarios()))
def test_scenarios_of_the_test_games(path, name):
    result = run_scenario(load_game(str(path)), name)
    assert result.ok, "\n".join(result.failures)


def _first_error(text: str):
    with pytest.raises(CardsmithError) as err:
        load_text(text, "g.cards")
    return err.value.diagnostics[0]


HEAD = 'game "G":\n    players: 2 to 2\n\n'


# ------------------------------------------------------------------ per-card knowledge

@pytest.fixture(scope="module")
def station():
    return load_game(str(GAMES / "known_station.cards"))


def _built(station, seed=1) -> Engine:
    """A game after both players built their two station cards face down (setup)."""
    eng = Engine(station, 2, seed=seed)
    while eng.pending.prompt == "Build a station card":
        eng.decide(0)
    return eng


def _names(eng, seat, key):
    return eng.view(seat)["zones"][key]["cards"]


def test_the_owner_sees_face_down_station_cards_and_the_opponent_sees_their_backs(station):
    eng = _built(station)
    st = eng.state
    for seat, key in ((0, "station:0"), (1, "station:1")):
        cards = st.zones[key]
        assert len(cards) == 2 and not any(st.face_up[c] for c in cards)
        assert _names(eng, seat, key) == [st.cards[c]["name"] for c in cards]
        assert _names(eng, 1 - seat, key) == [None, None]
        assert _names(eng, -1, key) == [None, None]        # no seat: public information only


def test_a_station_card_flipped_face_up_is_seen_by_everyone(station):
    eng = _built(station)
    hit = eng.state.zones["station:1"][0]
    eng.m.flip([hit], True, None)
    assert _names(eng, 0, "station:1")[0] == eng.state.cards[hit]["name"]
    assert _names(eng, 1, "station:1")[0] == eng.state.cards[hit]["name"]
    assert _names(eng, 0, "station:1")[1] is None


def test_each_players_log_names_the_cards_built_to_their_owner_alone(station):
    eng = _built(station)
    at = [i for i, e in enumerate(eng.log) if e["event"] == "move" and e["to"] == "station:0"]
    assert len(at) == 2 and len(eng.log_seen_by(0)) == len(eng.log_seen_by(1)) == len(eng.log)
    mine = [eng.log_seen_by(0)[i]["text"] for i in at]
    theirs = [eng.log_seen_by(1)[i]["text"] for i in at]
    names = [eng.log[i]["cards"][0] for i in at]
    assert mine == [f"{n} from Player 1's hand to Player 1's station face down" for n in names]
    assert theirs == ["a card from Player 1's hand to Player 1's station face down"] * 2


def test_the_owner_chooses_face_down_station_cards_by_name(station):
    eng = _built(station)
    while eng.pending.player != 0 or eng.pending.prompt != "Your move":
        eng.decide(0)
    eng.decide(eng.pending.options.index("Recall"))
    st = eng.state
    face_down = [c for c in st.zones["station:0"] if not st.face_up[c]]
    assert eng.pending.prompt == "Recall a station card"
    assert sorted(eng.pending.options) == sorted(st.cards[c]["name"] for c in face_down)


def test_samples_keep_the_owners_station_and_deal_the_opponents_again(station):
    eng = _built(station)
    data = eng.save()["state"]
    places = {(key, c) for key, _, c in hidden_places(data, station.decls, 0)}
    assert not any(key == "station:0" for key, _ in places)
    assert {("station:1", c) for c in data["zones"]["station:1"]} <= places
    det = Determinizer(station)
    mine = list(data["zones"]["station:0"])
    theirs = set()
    for k in range(30):
        sample = det.sample(eng, 0, random.Random(k))["state"]
        assert sample["zones"]["station:0"] == mine              # what seat 1 knows stays
        theirs.add(tuple(sample["zones"]["station:1"]))
        # and seat 1 sees the sample exactly as the true game
        other = Engine.restore(station, dict(eng.save(), state=sample))
        assert other.view(0)["zones"] == eng.view(0)["zones"]
    assert len(theirs) > 1                                      # what seat 1 does not know varies


def test_observations_follow_the_view():
    np = pytest.importorskip("numpy")
    from cardsmith.interpreter.integrations.table import table_for
    game = load_game(str(GAMES / "known_station.cards"))
    eng = _built(game)
    table = table_for(game, 2)
    mine, theirs = table.encode(eng.view(0)), table.encode(eng.view(1))
    assert not np.array_equal(mine, theirs)
    width = 1 + len(table.names)
    z = table.zone_keys.index("station:0") * width
    assert mine[z] == theirs[z] == 2                        # both see how many
    assert mine[z + 1:z + width].sum() == 2                 # only the owner sees which
    assert theirs[z + 1:z + width].sum() == 0


def test_known_to_its_owner_needs_a_public_zone_per_player():
    d = _first_error(HEAD + "zone pool: shared, face down known to its owner\n")
    assert d.code == "E0112" and d.span.line == 4 and "shared" in d.message
    d = _first_error(HEAD + "zone deck: per player, hidden, face down known to its owner\n")
    assert d.code == "E0112" and "hidden" in d.message


def test_the_rulebook_says_who_knows_the_face_down_cards(station):
    from cardsmith.dsl.publish.rulebook import build_book, render
    text = render(build_book(station, examples=False), "md")
    assert "face up; only its owner knows the face-down ones" in text
    assert "everyone; face down, its owner only" in text


# ------------------------------------------------------------------ several zones

@pytest.fixture(scope="module")
def pockets():
    return load_game(str(GAMES / "two_pockets.cards"))


def test_an_action_from_two_zones_offers_the_cards_of_both_and_no_other(pockets):
    eng = Engine(pockets, 2, seed=3)
    m, st = eng.m, eng.state
    in_hand, in_reserve, in_discard = st.zones["deck:0"][:3]
    theirs = st.zones["deck:1"][0]
    m.move([in_hand], "hand:0", None, None, None)
    m.move([in_reserve], "reserve:0", None, "up", None)
    m.move([in_discard], "discard:0", None, "up", None)
    m.move([theirs], "reserve:1", None, "up", None)
    st.active = 0
    entry = m.prog.actions[0]
    offered = {int(k.partition(":")[2]) for k in usable(m, 0, False) if k.startswith(f"{entry.index}:")}
    assert in_hand in offered and in_reserve in offered
    assert in_discard not in offered and theirs not in offered
    assert entry.from_zones == ("hand", "reserve")


def test_the_rulebook_names_every_zone_of_an_action(pockets):
    ctx = E.make_ctx(pockets.decls, param_types=E.param_types(pockets.decls))
    [play] = pockets.decls.card_types["Coin"].abilities
    text = E.plain(E.flatten([E.describe(play, E.ability_ctx(ctx, "Coin"))]))
    assert text.startswith("Action \u201cPlay\u201d (while it is in your hand or reserve; in your turn):")


def test_an_unknown_zone_among_several_is_named():
    d = _first_error(HEAD + "zone hand: per player\nzone reserve: per player\nzone box: shared\n"
                     "card type Coin:\n    action \"Play\" from hand or resrve:\n        stop\n")
    assert d.code == "E0207" and "resrve" in d.message and "reserve" in (d.hint or "")


# ------------------------------------------------------------------ players' and the game's numbers

BONUSES = GAMES / "command_bonuses.cards"


@pytest.fixture(scope="module")
def bonuses():
    return load_game(str(BONUSES))


def test_modifiers_are_indexed_by_what_they_change(bonuses):
    prog = program_for(bonuses)
    assert prog.modified_fields == {"rank"}
    assert prog.modified_player_attrs == {"draws", "deploys"}
    assert prog.modified_game_attrs == {"hand_limit"}
    assert set(prog.modifiers) == {"rank", ("player", "draws"), ("player", "deploys"), ("game", "hand_limit")}
    # deploys reads rank, itself modified: worked out per read; the others once per state version
    assert prog.tabled_mods == {"rank", ("player", "draws"), ("game", "hand_limit")}
    assert "renown" in prog.tabled_reads           # the Tactician's condition: a set moves the version


def _play(seed: int, tabled: bool, fused: bool = True):
    game = load_game(str(BONUSES))                 # a fresh Game: its program is built anew
    prog = program_for(game)
    if not tabled:
        prog.tabled_mods = frozenset()
    old = Machine.fused
    Machine.fused = fused
    try:
        eng = run_game(game, 2, seed, log=True)
    finally:
        Machine.fused = old
    return json.dumps(eng.m.log.events, sort_keys=True, default=str), eng.result, eng.state.work


@pytest.mark.parametrize("seed", [1, 2, 5])
def test_the_same_play_with_and_without_the_table_fused_or_not(seed):
    tabled = _play(seed, True)
    assert _play(seed, False) == tabled
    assert _play(seed, True, fused=False) == tabled


def test_a_restored_game_does_the_same_work_as_the_one_it_was_saved_from(bonuses):
    """A restored machine starts with no tables of players' and the game's modifiers either."""
    for seed in (1, 4):
        rng = random.Random(seed)
        eng = Engine(bonuses, players=2, seed=seed, log=False)
        answers = []
        while not eng.finished:
            k = rng.randrange(len(eng.pending.options))
            answers.append(k)
            eng.decide(k)
        whole = eng.save()
        for cut in range(1, len(answers), 3):
            eng = Engine(bonuses, players=2, seed=seed, log=False)
            for k in answers[:cut]:
                eng.decide(k)
            eng.view(0)                             # a look between decisions changes nothing
            eng = Engine.restore(bonuses, eng.save(), log=False)
            for k in answers[cut:]:
                eng.decide(k)
            assert eng.save() == whole, (seed, cut)


def test_reads_see_the_modified_number_and_set_changes_the_stored_one(bonuses):
    eng = Engine(bonuses, 2, seed=0)
    m, st = eng.m, eng.state
    # wherever the cards are now (after setup, in the decks and hands), none is in a command
    qm = next(c for c, f in enumerate(st.cards) if f["name"] == "Quartermaster")
    treasurer = next(c for c, f in enumerate(st.cards) if f["name"] == "Treasurer")
    stored = st.players[0]["draws"]
    m.move([qm], "command:0", None, "up", None)
    m.move([treasurer], "command:1", None, "up", None)
    assert m.modified_player(0, "draws") == stored + 1 and st.players[0]["draws"] == stored
    assert m.modified_game("hand_limit") == st.game["hand_limit"] + 2
    view = eng.view(1)
    assert view["players"][0]["draws"] == stored + 1 and view["players"][1]["draws"] == st.players[1]["draws"]
    assert view["game"]["hand_limit"] == st.game["hand_limit"] + 2
    work = st.work
    eng.view(0)
    assert st.work == work                          # a look counts no work: the game runs the same
    m.assign("player", 0, "draws", 5, None)
    assert m.modified_player(0, "draws") == 6      # the table was built before the set: it is not stale


def test_a_pay_cost_counts_the_modified_number():
    text = HEAD + ("player has:\n    gold: number = 0\n\nzone box: shared\nzone hand: per player, owner only\n"
                   "zone bank: per player\n\ncard type Coin:\n    rich: flag = no\n"
                   "    modify gold of you by 2 while rich\n"
                   "    action \"Spend\" from hand, cost: pay 2 gold:\n        move this to your bank\n\n"
                   "cards Coin in box:\n    | name | rich |\n    | \"Poor\" | no |\n    | \"Rich\" | yes |\n\n"
                   "round \"R\":\n    for each p in players:\n        p may \"Act?\":\n"
                   "            p may take actions\n")
    game = load_text(text, "g.cards")
    eng = Engine(game, 2, seed=0)
    m, st = eng.m, eng.state
    poor, rich = st.zones["box"]
    m.move([poor], "hand:0", None, None, None)
    assert usable(m, 0, False) == []                 # no gold: nothing to pay with
    m.move([rich], "bank:0", None, None, None)
    assert usable(m, 0, False) == [f"0:{poor}"]      # the Rich coin's +2 pays for it
    assert m.modified_player(0, "gold") == 2 and st.players[0]["gold"] == 0


@pytest.mark.parametrize("body, code, words", [
    ("modify gold of you by 1", "E0203", "players have no attribute 'gold'"),
    ("modify draws by 1", "E0201", "the game has no attribute 'draws'"),
    ("modify title of you by 1", "E0408", "only numbers can be modified"),
    ("modify limit by \"x\"", "E0408", None),
    ("modify power of 3 by 1", "E0409", "modify changes cards or players"),
    ("modify limt by 1", "E0201", "the game has no attribute 'limt'"),
])
def test_what_modify_may_change_is_checked(body, code, words):
    text = HEAD + ("player has:\n    draws: number = 1\n    title: text = \"\"\n\ngame has:\n    limit: number = 3\n\n"
                   f"zone box: shared\n\ncard type Unit:\n    power: number = 1\n    {body}\n")
    d = _first_error(text)
    assert d.code == code and d.span.line == 15, (d.code, d.message)
    if words:
        assert words in d.message
    if body == "modify draws by 1":
        assert "modify draws of you by 1" in d.hint
    if body == "modify limt by 1":
        assert "did you mean 'limit'?" == d.hint


def test_the_rulebook_says_a_number_bonus_like_a_card_prints_it(bonuses):
    effect = {cd.name: E.card_effect_text(bonuses, cd) for cd in bonuses.cards}
    assert effect["Quartermaster"] == "Your draws: +1 (only while this card's text counts)."
    assert effect["Censor"] == "Your opponent's draws: -1 (only while this card's text counts)."
    assert effect["Treasurer"] == "The hand limit: +2 (only while this card's text counts)."
    assert effect["Tactician"].startswith("Your draws: +2, while ")
    assert "Your deploys: plus this card's rank minus 1" in effect["Drill Sergeant"]
