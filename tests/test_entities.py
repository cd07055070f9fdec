"""Entities (issue 13, item 1; docs/language.md, "entity"): kinds a player owns several of, each
with its own attributes and zones, created and destroyed during play. Played by
tests/games/flotillas (boats with crews); the checker's and the runtime's errors on small games.
"""
from __future__ import annotations

import json
import random
from pathlib import Path

import pytest

from cardsmith.dsl.diagnostics import CardsmithError
from cardsmith.dsl.loader import check_source, load_game, load_text
from cardsmith.dsl.render import render_diagnostic
from cardsmith.dsl.source import Source
from cardsmith.interpreter.engine import Engine
from cardsmith.interpreter.errors import GameAborted
from cardsmith.interpreter.scenario import run_scenario

GAMES = Path(__file__).resolve().parent / "games"
FLOTILLAS = str(GAMES / "flotillas.cards")
HEAD = 'game "T":\n    players: 2 to 2\n'
SHIP = ("entity ship \"Runabout\": per player, at most 2\n    has:\n        speed: number = 1, at least 0, at most 5\n"
        "        home: zone = none\n"
        "zone crew: per ship, unordered, public\nzone pool: shared, hidden\n"
        "card type Hand:\n    power: number = 1\ncards Hand in pool:\n    | name | copies |\n    | Deckhand | 4 |\n")


def _scenarios():
    path = GAMES / "flotillas.scenarios.cards"
    for s in load_game(str(path)).decls.scenarios:
        yield pytest.param(path, s.name, id=s.name)


@pytest.mark.parametrize(("path", "name"), list(_scenarios()))
def test_scenarios_pass(path, name):
    result = run_scenario(load_game(str(path)), name)
    assert result.ok, "\n".join(result.failures)


@pytest.fixture(scope="module")
def game():
    return load_game(FLOTILLAS)


def _play(game, seed: int, players: int = 2, stop_after: int | None = None) -> tuple[Engine, random.Random]:
    eng = Engine(game, players, seed, player_names=[f"P{i + 1}" for i in range(players)])
    rng = random.Random(seed)
    n = 0
    while not eng.finished and (stop_after is None or n < stop_after):
        eng.decide(rng.randrange(len(eng.pending.options)))
        n += 1
    return eng, rng


def _diags(text: str):
    _, diags, sources = check_source(Source("game.cards", text))
    return diags, sources


def _first(text: str):
    diags, sources = _diags(text)
    assert diags, "nothing was reported"
    return diags[0], render_diagnostic(diags[0], sources)


# ---------------------------------------------------------------- the checker

@pytest.mark.parametrize(("text", "code", "line", "hint"), [
    # `at most N` is required: the zones are set out ahead for that many
    (HEAD + "entity ship: per player\n", "E0140", 3, "at most 3"),
    (HEAD + "entity ship: at most 2\n", "E0140", 3, "per player"),
    (HEAD + "entity ship: per player, at most 0\n", "E0140", 3, "from 1 to"),
    # a zone per an unknown kind, with the closest one suggested
    (HEAD + SHIP + "zone cargo: per shp\n", "E0141", 3 + SHIP.count("\n"), "did you mean 'ship'"),
    # create names the kind, all its plural
    (HEAD + SHIP + "setup:\n    create a shp for seat 1\n", "E0250", 4 + SHIP.count("\n"), "did you mean 'ship'"),
    (HEAD + SHIP + "setup:\n    create a ships for seat 1\n", "E0250", 4 + SHIP.count("\n"), "create a ship"),
    (HEAD + SHIP + "setup:\n    let n be count(all shipz)\n", "E0250", 4 + SHIP.count("\n"), "did you mean 'ships'"),
    # an entity's attributes and zones
    (HEAD + SHIP + "setup:\n    create a ship for seat 1 as s\n    set s's sped to 2\n", "E0251",
     5 + SHIP.count("\n"), "did you mean 'speed'"),
    (HEAD + SHIP + "setup:\n    for each s in seat 1's ships:\n        move cards in s's crw to pool\n", "E0251",
     5 + SHIP.count("\n"), "did you mean 'crew'"),
    # wrong types: an entity where a player is wanted, a card destroyed
    (HEAD + SHIP + "setup:\n    create a ship for seat 1 as s\n    create a ship for s\n", "E0408",
     5 + SHIP.count("\n"), "a player"),
    (HEAD + SHIP + "setup:\n    destroy top card of pool\n", "E0408", 4 + SHIP.count("\n"), "destroy s"),
    (HEAD + SHIP + "setup:\n    create a ship for seat 1 as s\n    set s's speed to yes\n", "E0408",
     5 + SHIP.count("\n"), "set it to"),
    # what cannot be set: an entity's zone, its owner, a player's entities
    (HEAD + SHIP + "setup:\n    create a ship for seat 1 as s\n    set s's owner to seat 2\n", "E0410",
     5 + SHIP.count("\n"), "create a new one"),
    (HEAD + SHIP + "setup:\n    create a ship for seat 1 as s\n    set s's crew to pool\n", "E0410",
     5 + SHIP.count("\n"), "move cards"),
    # a zone per ship is named through a ship, not a player
    (HEAD + SHIP + "setup:\n    move top card of pool to seat 1's crew\n", "E0205", 4 + SHIP.count("\n"),
     "s's crew"),
    (HEAD + SHIP + "setup:\n    move top card of pool to crew\n", "E0201", 4 + SHIP.count("\n"), "zone per ship"),
    # a zone per player cannot discard down into a zone per ship: whose?
    (HEAD + SHIP + "zone hold: per player, at most 2, discard down into crew\n", "E0141", 3 + SHIP.count("\n"),
     "shared one"),
    # cards start in a shared zone, not in a zone per ship
    (HEAD + SHIP + "cards Hand in crew:\n    | name |\n    | Mate |\n", "E0504", 3 + SHIP.count("\n"), "move them in setup"),
    # an entity-typed attribute names a kind that exists
    (HEAD + "entity ship: per player, at most 2\n    has:\n        escort: shp = none\n", "E0101", 5,
     "did you mean 'ship'"),
])
def test_checker_errors_are_located_with_a_fix(text, code, line, hint):
    d, drawn = _first(text)
    assert d.code == code, (d.code, d.message)
    assert d.span.line == line, (d.span, d.message)
    assert hint in (d.hint or ""), d.hint
    assert f"error[{code}]" in drawn and "^" in drawn


def test_a_zone_per_ship_that_discards_down_is_one_error_that_says_why():
    diags, _ = _diags(HEAD + SHIP.replace("zone crew: per ship, unordered, public",
                                          "zone crew: per ship, unordered, public, at most 2, discard down into pool"))
    assert [d.code for d in diags] == ["E0141"], [(d.code, d.message) for d in diags]
    (d,) = diags
    assert "'shared'" not in d.message and "is shared" not in d.message
    assert "only a zone per player discards down" in d.message
    assert "drop ', discard down into pool'" in d.hint and "if count(cards in c's crew) < 2:" in d.hint


def test_a_clean_game_of_every_expression_checks():
    text = HEAD + SHIP + """player has:
    total: number = 0
procedure refit(s):
    add 1 to s's speed
setup:
    create a ship for seat 1 as s
    create a ship for seat 2
    set s's home to pool
    refit(s)
    move top card of pool to s's crew
    let fleet be your_ships_of(seat 1)
    for each t in all ships where t's speed >= 1:
        add t's speed to t's owner's total
    seat 1 chooses pick from seat 1's ships where count(cards in it's crew) = 0, prompt "Which?"
    let fastest be first(all ships sorted by it's speed highest first)
    if s is in play and s is not fastest and the owner of s is seat 1:
        add speed of s to seat 1's total
define your_ships_of(p) as p's ships
"""
    diags, _ = _diags(text)
    assert [d for d in diags if d.severity == "error"] == [], [(d.code, d.span.line, d.message) for d in diags]


def test_the_created_event_names_the_entity_and_its_owner():
    text = HEAD + SHIP + """player has:
    launched: number = 0
card type Dock:
    when created where entity is a ship:
        add 1 to player's launched
zone yard: shared, public
zone docks: per player, public
card "Pier": Dock in yard
    "Where new ships are launched."
setup:
    move top card of yard to seat 1's docks
    create a ship for seat 1 as s
    create a ship for seat 2
    create a ship for seat 2 as t
    move top card of pool to t's crew
    move cards in t's crew to pool
    destroy t
"""
    game = load_text(text)
    eng = Engine(game, 2, 0, player_names=["Ann", "Bob"])
    assert [p["launched"] for p in eng.view(0)["players"]] == [1, 2]
    texts = [ev["text"] for ev in eng.log]
    assert "Ann's Runabout 1 is created for Ann" in texts
    assert "Bob's Runabout 2 is destroyed" in texts
    # every event names its rule: file, line, column
    created = [ev for ev in eng.log if ev.get("event") == "created"]
    assert created and all(ev.get("rule", "").startswith(("game.cards:", "<text>")) for ev in created), created[:1]


# ---------------------------------------------------------------- the runtime's errors

def _aborted(text: str) -> GameAborted:
    with pytest.raises(GameAborted) as err:
        Engine(load_text(text), 2, 0)
    return err.value


def test_creating_past_at_most_stops_the_game_at_that_rule():
    err = _aborted(HEAD + SHIP + "setup:\n    repeat 3 times:\n        create a ship for seat 1\n")
    d = err.diagnostics[0]
    assert d.code == "E0860" and d.span.line == 5 + SHIP.count("\n")
    assert "at most 2" in d.message and "count(p's ships) < 2" in d.hint


def test_destroying_a_ship_with_crew_aboard_stops_the_game():
    err = _aborted(HEAD + SHIP + "setup:\n    create a ship for seat 1 as s\n    move top card of pool to s's crew\n"
                   "    destroy s\n")
    d = err.diagnostics[0]
    assert d.code == "E0861" and d.span.line == 6 + SHIP.count("\n")
    assert "crew" in d.message and "move them first" in d.hint


def test_reading_a_destroyed_ship_stops_the_game_and_in_play_asks_first():
    err = _aborted(HEAD + SHIP + "player has:\n    n: number = 0\nsetup:\n    create a ship for seat 1 as s\n"
                   "    destroy s\n    set seat 1's n to s's speed\n")
    d = err.diagnostics[0]
    assert d.code == "E0861" and d.span.line == 8 + SHIP.count("\n") and "is in play" in d.hint
    game = load_text(HEAD + SHIP + "player has:\n    n: number = 0\nsetup:\n    create a ship for seat 1 as s\n"
                     "    destroy s\n    if s is not in play:\n        set seat 1's n to 7\n")
    assert Engine(game, 2, 0).view(0)["players"][0]["n"] == 7


def test_a_new_ship_after_a_destroyed_one_reuses_its_place_but_not_its_number(game):
    eng = Engine(load_text(HEAD + SHIP + "setup:\n    create a ship for seat 1 as a\n    create a ship for seat 1 as b\n"
                           "    destroy a\n    create a ship for seat 1 as c\n    move top card of pool to c's crew\n"),
                 2, 0, player_names=["Ann", "Bob"])
    ents = eng.view(0)["entities"]
    assert [e["label"] for e in ents] == ["Ann's Runabout 2", "Ann's Runabout 3"]
    assert ents[1]["zones"]["crew"] == "crew:0/0"        # the first slot, freed by the destroyed one
    assert eng.view(0)["zones"]["crew:0/0"]["entity"] == "Ann's Runabout 3"
    texts = [ev["text"] for ev in eng.log]
    assert any(t.endswith("to Ann's Runabout 3's crew") for t in texts), texts


# ---------------------------------------------------------------- views, saves, determinism, conservation

def test_the_view_shows_each_players_entities_and_hides_hidden_crews():
    text = HEAD + SHIP.replace("zone crew: per ship, unordered, public", "zone crew: per ship, unordered, owner only") \
        + "setup:\n    create a ship for seat 1 as s\n    set s's speed to 4\n    move top card of pool to s's crew face up\n"
    eng = Engine(load_text(text), 2, 0, player_names=["Ann", "Bob"])
    mine, theirs = eng.view(0), eng.view(1)
    assert mine["entities"] == theirs["entities"]          # who owns what, and its attributes, are public
    (ship,) = mine["entities"]
    assert ship["owner"] == 0 and ship["attributes"]["speed"] == 4 and ship["label"] == "Ann's Runabout 1"
    key = ship["zones"]["crew"]
    assert mine["zones"][key]["cards"] == ["Deckhand"]    # owner only: its owner sees it
    assert theirs["zones"][key]["cards"] == [None] and theirs["zones"][key]["count"] == 1


def test_the_terminal_view_names_each_entity_in_play_with_its_attributes_and_zones():
    from cardsmith.interpreter.agents import format_view
    text = HEAD + SHIP.replace("zone crew: per ship, unordered, public", "zone crew: per ship, unordered, owner only") \
        + ("setup:\n    create a ship for seat 1 as s\n    set s's speed to 4\n    move top card of pool to s's crew\n"
           "    create a ship for seat 2\n")
    eng = Engine(load_text(text), 2, 0, player_names=["Ann", "Bob"])
    mine = format_view(eng.view(0))
    assert "Your Runabout 1: speed 4, home none" in mine
    assert mine[mine.index("Your Runabout 1: speed 4, home none") + 1] == "  crew: Deckhand"
    assert "Bob's Runabout 1: speed 1, home none" in mine
    assert mine[mine.index("Bob's Runabout 1: speed 1, home none") + 1] == "  crew: empty"
    theirs = format_view(eng.view(1))
    assert theirs[theirs.index("Ann's Runabout 1: speed 4, home none") + 1] == "  crew: 1 card, hidden"
    # nothing for the slots no ship is in: one crew line per ship in play, none unnamed
    assert sum(line.strip().startswith("crew:") for line in mine) == 2, mine


def test_a_game_saved_mid_play_goes_on_the_same_after_restore(game):
    for seed in range(4):
        eng, rng = _play(game, seed, stop_after=3)
        assert not eng.finished
        saved = eng.save_json()
        assert json.loads(saved)["state"]["entities"]["live"], "the save holds the live boats"
        back = Engine.restore(game, saved)
        assert back.view(0) == eng.view(0)
        while not eng.finished:
            i = rng.randrange(len(eng.pending.options))
            eng.decide(i)
            back.decide(i)
        assert back.state.result == eng.state.result
        went_on = [e["text"] for e in back.log]       # a restored game logs from where it was saved
        assert went_on and went_on == [e["text"] for e in eng.log][-len(went_on):]


def test_an_old_save_without_entities_still_loads():
    game = load_game(str(GAMES / "card_parts.cards"))
    eng = Engine(game, 2, 1)
    data = eng.save()
    del data["state"]["entities"]
    back = Engine.restore(game, data)
    assert back.state.entities == {"next": 1, "made": {}, "live": {}}


def test_the_same_seed_and_choices_give_the_same_log(game):
    a, _ = _play(game, 11, players=3)
    b, _ = _play(game, 11, players=3)
    assert a.log_jsonl() == b.log_jsonl()
    assert any("Boat" in ev["text"] for ev in a.log)


@pytest.mark.parametrize("players", [2, 3, 4])
def test_every_card_is_in_exactly_one_zone_entity_zones_included(game, players):
    for seed in range(15):
        eng, _ = _play(game, seed, players=players)
        st = eng.state
        seen = [c for cards in st.zones.values() for c in cards]
        assert sorted(seen) == list(range(len(game.cards)))
        for key, cards in st.zones.items():
            assert all(st.card_zone[c] == key for c in cards)
        # a free slot of a boat's crew holds no card: nothing left play with a sunk boat
        live = {(r["owner"], r["slot"]) for r in st.entities["live"].values()}
        for key, cards in st.zones.items():
            if key.startswith("crew:") and cards:
                seat, slot = key.partition(":")[2].split("/")
                assert (int(seat), int(slot)) in live, key


def test_the_game_runs_to_its_end_with_boats_sunk(game):
    sunk = 0
    for seed in range(20):
        eng, _ = _play(game, seed)
        assert eng.state.result is not None
        sunk += sum(p["sunk"] for p in eng.view(0)["players"])
    assert sunk > 0, "the storm sank no boat in 20 games: the destroy path went untested"


# ---------------------------------------------------------------- plurals, kinds as types

def test_an_irregular_plural_is_declared_and_a_clash_is_refused():
    text = HEAD + """entity ally: per player, at most 2, plural allies
    has:
        loyal: flag = yes
player has:
    n: number = 0
setup:
    create an ally for seat 1
    create an ally for seat 1 as a
    set seat 1's n to count(seat 1's allies where it's loyal)
"""
    assert Engine(load_text(text), 2, 0).view(0)["players"][0]["n"] == 2
    d, _ = _first(HEAD + "zone ships: shared\nentity ship: per player, at most 2\n")
    assert d.code == "E0140" and d.span.line == 4 and "plural ship_group" in d.hint


def test_an_attribute_may_hold_another_entity_and_compare_it():
    text = HEAD + """entity ship: per player, at most 2
    has:
        escort: ship = none
player has:
    same: flag = no
setup:
    create a ship for seat 1 as lead
    create a ship for seat 1 as wing
    set wing's escort to lead
    set seat 1's same to wing's escort is lead and wing's escort is not wing
"""
    assert Engine(load_text(text), 2, 0).view(0)["players"][0]["same"] is True


def test_instead_of_destroyed_keeps_the_entity_in_play():
    text = HEAD + SHIP + """player has:
    saved: number = 0
card type Shield:
    instead of destroyed where entity is a ship:
        add 1 to player's saved
zone yard: shared, public
zone docks: per player, public
card "Dome": Shield in yard
    "Keeps ships from being destroyed."
setup:
    move top card of yard to seat 1's docks
    create a ship for seat 1 as s
    move top card of pool to s's crew
    destroy s
    if s is in play:
        add 10 to seat 1's saved
"""
    eng = Engine(load_text(text), 2, 0)
    assert eng.view(0)["players"][0]["saved"] == 11       # replaced (its crew aboard is no error), and still in play
    assert len(eng.view(0)["entities"]) == 1


def test_an_action_from_a_zone_per_ship_is_offered_for_the_cards_aboard_its_owners_ships():
    text = HEAD + SHIP + """player has:
    fired: number = 0
card type Gun:
    action "Fire" from crew:
        add 1 to you's fired
cards Gun in pool:
    | name | copies |
    | Cannon | 1 |
setup:
    create a ship for seat 1 as s
    create a ship for seat 1 as t
    move cards in pool where it is a Gun to t's crew face up
round "Battle":
    seat 1 may take actions
    seat 1 wins
"""
    eng = Engine(load_text(text), 2, 0)
    assert eng.pending is not None and any("Fire" in o for o in eng.pending.options), eng.pending
    eng.decide(next(i for i, o in enumerate(eng.pending.options) if "Fire" in o))
    assert eng.view(0)["players"][0]["fired"] == 1


def test_options_that_would_read_the_same_say_where_each_card_is():
    text = HEAD + """entity ship "Runabout": per player, at most 2
zone crew: per ship, unordered, public
zone hold: per player, public
zone pool: shared, hidden
player has:
    fired: number = 0
card type Gun:
    action "Fire" from crew:
        add 1 to you's fired
cards Gun in pool:
    | name | copies |
    | Cannon | 4 |
setup:
    create a ship for seat 1 as s
    create a ship for seat 1 as t
    move top card of pool to s's crew face up
    move top card of pool to t's crew face up
    move top card of pool to seat 1's hold face up
    move top card of pool to seat 1's hold face up
round "Battle":
    seat 1 may take actions
    seat 1 chooses c from cards in every crew, prompt "Which?"
    say "picked", c
    seat 1 chooses d from cards in seat 1's hold, prompt "Which?"
    say "picked", d
    seat 1 wins
"""
    eng = Engine(load_text(text), 2, 0, player_names=["Ann", "Bob"])
    assert sorted(o for o in eng.pending.options if "Fire" in o) == \
        ["Cannon (Ann's Runabout 1's crew): Fire", "Cannon (Ann's Runabout 2's crew): Fire"], eng.pending.options
    eng.decide(next(i for i, o in enumerate(eng.pending.options) if "Fire" not in o))     # done with actions
    assert sorted(eng.pending.options) == ["Cannon (Ann's Runabout 1's crew)", "Cannon (Ann's Runabout 2's crew)"]
    eng.decide(0)
    # two copies in one zone are one choice to a player: no zone added, nothing to tell them apart
    assert eng.pending.options == ["Cannon", "Cannon"], eng.pending.options


def test_the_ship_holding_a_card_is_the_entity_whose_zone_holds_it():
    text = HEAD + SHIP + """player has:
    found: number = 0
setup:
    create a ship for seat 1 as s
    create a ship for seat 2 as t
    move top card of pool to t's crew
    let c be top card of t's crew
    if the ship holding c is t and the owner of (the ship holding c) = seat 2:
        add 1 to seat 1's found
    if the ship holding (top card of pool) is none:
        add 10 to seat 1's found
    move c to pool
    if the ship holding c is none:
        add 100 to seat 1's found
"""
    eng = Engine(load_text(text), 2, 0)
    assert eng.view(0)["players"][0]["found"] == 111


@pytest.mark.parametrize(("expr", "code", "hint"), [
    ("the ships holding c", "E0250", "the ship holding"),
    ("the shop holding c", "E0250", "ship"),
    ("the ship holding seat 1", "E0408", "a card"),
])
def test_the_ship_holding_is_checked(expr, code, hint):
    diags, sources = _diags(HEAD + SHIP + f"setup:\n    let c be top card of pool\n    let x be {expr}\n")
    found = [d for d in diags if d.code == code]
    assert found and hint in (found[0].hint or ""), [(d.code, d.message, d.hint) for d in diags]


def test_the_ship_holding_in_english():
    from cardsmith.dsl.publish.rulebook import build_book, render
    game = load_text(HEAD + SHIP + "setup:\n    create a ship for seat 1 as s\n"
                     "    move top card of pool to s's crew\n    set (the ship holding (top card of s's crew))'s speed to 2\n")
    text = render(build_book(game, examples=False), "md")
    assert "the Runabout whose zones hold" in text, text


def test_say_writes_lists_in_words_and_hides_the_cards_others_may_not_see():
    text = HEAD + SHIP.replace("zone crew: per ship, unordered, public", "zone crew: per ship, unordered, owner only") \
        + """setup:
    create a ship for seat 1 as s
    create a ship for seat 1
    move top card of pool to s's crew
    move top card of pool to s's crew
    say "aboard", cards in s's crew
    say "ships", seat 1's ships, "none", seat 2's ships
    say "groups", the groups of 2 from [1, 2, 3]
"""
    eng = Engine(load_text(text), 2, 0, player_names=["Ann", "Bob"])
    said = [ev["text"] for ev in eng.log if ev["event"] == "say"]
    assert said == ["aboard Deckhand and Deckhand", "ships Ann's Runabout 1 and Ann's Runabout 2 none none",
                    "groups [1 and 2], [1 and 3] and [2 and 3]"]
    seen = [ev["text"] for ev in eng.log_seen_by(1) if ev["event"] == "say"]
    assert "Deckhand" not in seen[0] and "[" not in seen[0] and "'" not in seen[0], seen


def test_runtime_hints_use_the_designers_names():
    err = _aborted(HEAD + SHIP + "setup:\n    create a ship for seat 1 as boat\n    destroy boat\n"
                   "    set boat's speed to 2\n")
    d = err.diagnostics[0]
    assert d.code == "E0861" and "if boat is in play" in d.hint and " s " not in d.hint, d.hint
    err = _aborted(HEAD + SHIP + "setup:\n    create a ship for seat 1 as boat\n    destroy boat\n"
                   "    let n be boat's speed\n")
    assert "if boat is in play" in err.diagnostics[0].hint, err.diagnostics[0].hint
    err = _aborted(HEAD + SHIP + "setup:\n    create a ship for seat 1 as boat\n    move top card of pool to boat's crew\n"
                   "    destroy boat\n")
    assert "move cards in boat's crew" in err.diagnostics[0].hint, err.diagnostics[0].hint
    err = _aborted(HEAD + SHIP + "setup:\n    let q be seat 1\n    repeat 3 times:\n        create a ship for q\n")
    assert "count(q's ships) < 2" in err.diagnostics[0].hint, err.diagnostics[0].hint


@pytest.mark.parametrize(("extra", "hint"), [
    ("", "players have no zones or attributes of their own yet"),
    ("player has:\n    gold: number = 0\n", "their attributes are gold"),
])
def test_e0206_says_what_a_player_has_and_never_none(extra, hint):
    diags, _ = _diags(HEAD + extra + "setup:\n    for each p in players:\n        add 1 to p's zzz\n")
    (d,) = [d for d in diags if d.code == "E0206"]
    assert hint in d.hint and "none" not in d.hint and "zones are" not in d.hint, d.hint


def test_e0206_on_an_entitys_attribute_read_from_a_player_names_the_kind():
    diags, _ = _diags(HEAD + SHIP + "setup:\n    for each q in players:\n        set q's speed to 2\n"
                      "        move top card of pool to q's crew\n")
    (d,) = [d for d in diags if d.code == "E0206"]
    assert "a ship's, not a player's" in d.hint and "for each x in q's ships" in d.hint, d.hint
    (d,) = [d for d in diags if d.code == "E0205"]
    assert "for each s in q's ships" in d.hint, d.hint


# ---------------------------------------------------------------- publishing

def test_the_rulebook_says_the_kind_its_attributes_zones_and_statements(game):
    from cardsmith.dsl.publish.rulebook import build_book, render
    text = render(build_book(game, examples=False), "md")
    assert "Each player may have up to 3 Boats at a time." in text
    assert "**What each Boat has**" in text and "| Mooring | a zone; starts empty |" in text
    assert "| crew | each Boat | everyone | The sailors aboard this boat. |" in text
    assert "Each Boat has its own crew" in text
    assert "Create a Boat for the player (call it *b*)" in text
    assert "*wreck* is destroyed: it leaves play." in text
    assert "**Boat** (entity)" in text
    assert "**crew** (zone) The sailors aboard this boat. One for each Boat, public." in text


def test_the_zone_diagram_draws_a_zone_per_boat_as_each_boats():
    from cardsmith.dsl.publish.diagrams import zones_graph
    dot = zones_graph(load_game(FLOTILLAS).decls).source
    assert "crew\\n(each Boat, public)" in dot and "dock\\n(shared, hidden)" in dot, dot[:800]


def test_the_editor_completes_kinds_plurals_and_what_an_entity_has():
    from cardsmith.dsl.lsp import features
    from cardsmith.dsl.lsp.features import Project
    from cardsmith.dsl.lsp.index import build
    text = Path(FLOTILLAS).read_text(encoding="utf-8") + "\nprocedure probe(p, b):\n    create a \n    let x be all \n    let y be b's \n"
    index = build("g.cards", text)
    project = Project(index, {"g.cards": index})
    lines = text.split("\n")

    def names(prefix: str) -> set[str]:
        number = next(i for i, line in enumerate(lines, 1) if line == prefix)
        return {c.label for c in features.completions(project, "g.cards", number, len(prefix) + 1)}
    assert "boat" in names("    create a ")
    assert "boats" in names("    let x be all ")
    assert {"boats", "crew", "distance", "moored", "sunk"} <= names("    let y be b's ")


def test_every_card_aboard_a_players_ships_is_one_collection():
    game = load_text(HEAD + SHIP + """player has:
    n: number = 0
setup:
    create a ship for seat 1 as s
    create a ship for seat 1 as t
    move top 2 cards of pool to s's crew
    move top card of pool to t's crew
    set seat 1's n to count(cards in (x's crew for each x in seat 1's ships))
""")
    assert Engine(game, 2, 0).view(0)["players"][0]["n"] == 3


def test_every_crew_is_that_zone_of_every_ship_in_play():
    game = load_text(HEAD + SHIP + """player has:
    n: number = 0
    zones: number = 0
setup:
    create a ship for seat 1 as s
    create a ship for seat 2 as t
    create a ship for seat 2 as u
    move top 2 cards of pool to s's crew
    move top card of pool to u's crew
    destroy t
    set seat 1's n to count(cards in every crew)
    set seat 1's zones to count(every crew)
""")
    assert {k: v for k, v in Engine(game, 2, 0).view(0)["players"][0].items() if k in ("n", "zones")} == \
        {"n": 3, "zones": 2}


CARAVANS = str(GAMES / "caravans.cards")


def test_the_rulebooks_pictures_draw_each_entity_in_play_with_the_cards_in_its_zones():
    import re
    from cardsmith.dsl.publish import examples as X, layout as L
    game = load_game(CARAVANS)
    ex = X.examples(game)
    assert ex.moments
    for m in ex.moments:
        svg = L.table_svg(game.decls, ex.seats, m.table)
        assert "On each Caravan" not in svg, "a moment of play draws the caravans in play, not the layout"
        texts = re.findall(r">([^<]*)</text>", svg)
        in_play = [label for label, kind, _ in m.table[L.ENTITIES]]
        assert in_play and [t for t in texts if "Caravan" in t] == in_play
        for label, _, where in m.table[L.ENTITIES]:
            # the area titled with its name holds its cargo box, which says how many goods it holds
            held = m.table[f"cargo:{where}"]
            area = texts[texts.index(label):]
            assert area[1] == "cargo" and area[2] == f"{len(held)} card{'' if len(held) == 1 else 's'}"
            assert area[3:3 + len(held)] == [n for n, _ in reversed(held)]
    assert any(m.table[k] for m in ex.moments for k in m.table if k.startswith("cargo:")), "goods are loaded"
    # the layout (no moment) still draws one area for every caravan
    assert "On each Caravan (up to 3 per player)" in L.table_svg(game.decls, ["Each player"], None)
