"""What a simulation reports (interpreter/report.py, docs/simulate.md): the Tally a game carries,
the declared measures and groups, the report built from records, and the constructs' checks."""
from __future__ import annotations

import json
from pathlib import Path

import pytest

from cardsmith.dsl.diagnostics import CardsmithError
from cardsmith.dsl.loader import load_game, load_text
from cardsmith.dsl.publish import english as E
from cardsmith.interpreter.engine import Engine
from cardsmith.interpreter.play import run_game
from cardsmith.interpreter.report import (SCHEMA, Report, Tally, build_report, counted_events, declared,
                                          end_of_game)
from cardsmith.interpreter.simulate import play_one
from cardsmith.interpreter.stats import wilson_interval

GAMES = Path(__file__).parent / "games"
GAME = str(GAMES / "designer_report.cards")


@pytest.fixture(scope="module")
def game():
    return load_game(GAME)


def _played(game, players: int, seed: int, log: bool = True):
    tally = Tally(counted_events(game))
    eng = run_game(game, players, seed, log=log, tally=tally)
    return eng, tally, end_of_game(eng, tally)


# ---------------------------------------------------------------- the tally, game by game


@pytest.mark.parametrize("players, seed", [(2, 1), (3, 5), (4, 9), (4, 10)])
def test_decisions_are_counted_as_the_log_tells_them(game, players, seed):
    eng, tally, ends = _played(game, players, seed)
    choices = [e for e in eng.log if e["event"] == "choice"]
    asked = sum(e["how"] == "chosen" for e in choices)
    forced = sum(e["how"] == "forced" for e in choices)
    assert ends["decisions"] == {"real": asked, "forced": forced}
    assert asked + forced == len(choices) > 0


def test_four_players_run_the_stack_dry_and_are_forced(game):
    """16 cards, 8 dealt, 8 left for 16 draws: in rounds 3 and 4 nobody draws, so each player
    chooses from two cards in round 3 and has one left in round 4 (a forced choice)."""
    for seed in (3, 4):
        _, _, ends = _played(game, 4, seed)
        assert ends["decisions"] == {"real": 12, "forced": 4}
    _, _, ends = _played(game, 2, 3)                # 8 cards left for 8 draws: always two to choose from
    assert ends["decisions"] == {"real": 8, "forced": 0}


@pytest.mark.parametrize("players, seed", [(2, 2), (3, 7), (4, 4)])
def test_had_drew_played_follow_the_zones(game, players, seed):
    """Here every card a seat holds went through its hand (owner only) and what it played sits on
    its table (public): played = the table's names, drew = had = hand and table together."""
    eng, tally, ends = _played(game, players, seed, log=False)
    st = eng.state
    names = lambda key: sorted({st.cards[c]["name"] for c in st.zones[key]})    # noqa: E731
    for seat in range(players):
        table, hand = names(f"table:{seat}"), names(f"hand:{seat}")
        assert ends["cards"]["played"][seat] == table
        assert ends["cards"]["drew"][seat] == sorted(set(table) | set(hand))
        assert ends["cards"]["had"][seat] == ends["cards"]["drew"][seat]


def test_drew_and_played_read_the_zones_visibility():
    src = '''game "Zones":
    players: 2 to 2

zone pile: per player, unordered, hidden
zone hand: per player, unordered, owner only
zone middle: shared, public
zone box: shared, hidden

card type Chip:
    worth: number = 1

cards Chip in box:
    | name    | worth | copies |
    | "Stone" | 2     | 1      |
    | "Reed"  | 1     | 1      |

round "Go":
    move cards in box where name = "Stone" to seat 2's hand
    move cards in seat 2's hand to seat 2's pile
    move cards in seat 2's pile to middle
    move cards in box where name = "Reed" to seat 1's pile
    move cards in seat 1's pile to seat 1's hand
    move cards in seat 1's hand to seat 2's hand
    seat 1 wins
'''
    game = load_text(src, "zones.cards")
    eng, tally, ends = _played(game, 2, 1, log=False)
    cards = ends["cards"]
    # Stone: into seat 2's hand (drew), to its hidden pile, then from that hidden zone to a public one (played)
    # Reed: into seat 1's hidden pile (had), its hand (drew), then seat 2's hand (drew by seat 2, not played)
    assert cards["had"] == [["Reed"], ["Reed", "Stone"]]
    assert cards["drew"] == [["Reed"], ["Reed", "Stone"]]
    assert cards["played"] == [[], ["Stone"]]


def test_had_counts_the_cards_a_seat_holds_when_the_game_starts():
    class Hidden:
        visibility = "hidden"

    class Machine:
        n_players = 2
        zones = {"deck:0": [0, 1], "deck:1": [2], "box": [3]}
        zone_info = {"deck:0": (Hidden, 0, False), "deck:1": (Hidden, 1, False), "box": (Hidden, None, False)}
    tally = Tally()
    tally.begin(Machine())
    assert tally.had == [{0, 1}, {2}]
    assert tally.drew == [set(), set()] and tally.played == [set(), set()]


def test_events_measures_and_groups_at_the_end(game):
    eng, tally, ends = _played(game, 3, 11)
    st = eng.state
    bigs = sum(e["event"] == "event" and e["name"] == "Big" for e in eng.log)
    worth = [sum(st.cards[c]["worth"] >= 2 for c in st.zones[f"table:{p}"]) for p in range(3)]
    assert ends["events"] == {"Big": sum(worth)}
    assert ends["measures"]["Big plays"] == sum(worth)
    assert bigs == sum(worth)           # the log's own record of the event
    assert ends["measures"]["Cards left on the stack"] == len(st.zones["stack"])
    assert ends["measures"]["Cards kept in hand"] == [len(st.zones[f"hand:{p}"]) for p in range(3)]
    assert ends["groups"] == {"Side": ["sun", "moon", "sun"]}
    assert ends["scores"] == [sum(st.cards[c]["worth"] for c in st.zones[f"table:{p}"]) for p in range(3)]


def test_a_measure_that_fails_aborts_the_game_and_names_the_measure(game):
    text = (GAMES / "designer_report.cards").read_text()
    text += '\nmeasure "Worth per card left" as 12 / count(cards in stack)\n'
    broken = load_text(text, str(GAMES / "broken_measure.cards"))
    record = play_one(broken, 4, 3)         # four players empty the stack
    assert record["status"] == "aborted"
    assert "Worth per card left" in record["error"]


def test_the_tally_changes_nothing_in_the_game(game):
    """The same seed with and without a tally: the same log, state and result."""
    for seed in (1, 2, 3):
        plain = run_game(game, 3, seed)
        counted = run_game(game, 3, seed, tally=Tally(counted_events(game)))
        assert plain.log_jsonl() == counted.log_jsonl()
        assert plain.save_json() == counted.save_json()


def test_an_engine_without_a_tally_has_none():
    eng = Engine(load_game(GAME), 2, 1, log=False)
    assert eng.m.tally is None


# ---------------------------------------------------------------- the report


def _record(seed, winners, *, draw=False, rounds=3, real=4, forced=1, cards=None, groups=None, measures=None,
            scores=None):
    rec = {"seed": seed, "status": "finished", "winners": winners, "draw": draw, "rounds": rounds,
           "steps": 10 * rounds, "groupings": {}, "player_names": ["Ann", "Ben"],
           "decisions": {"real": real, "forced": forced}}
    if cards is not None:
        rec["cards"] = cards
    if groups is not None:
        rec["groups"] = groups
    if measures is not None:
        rec["measures"] = measures
    if scores is not None:
        rec["scores"] = scores
        rec["returns"] = [1.0 if s in winners else 0.0 for s in range(2)] if winners else [0.5, 0.5]
    return rec


INFO = {"measures": [{"name": "Wars", "per": "game", "kind": "counts event", "event": "War", "says": "w"},
                     {"name": "Hand", "per": "player", "kind": "value", "event": None, "says": "h"}],
        "groups": [{"name": "Side", "says": "s"}], "has_score": True}


def _records():
    return [
        _record(1, [0], real=4, forced=0, scores=[5, 3], measures={"Wars": 2, "Hand": [1, 3]},
                groups={"Side": ["red", "blue"]},
                cards={"had": [["Axe", "Cup"], ["Cup"]], "drew": [["Axe"], ["Cup"]], "played": [["Axe"], []]}),
        _record(2, [1], real=6, forced=2, scores=[2, 7], measures={"Wars": 0, "Hand": [0, 2]},
                groups={"Side": ["red", "blue"]},
                cards={"had": [["Cup"], ["Axe"]], "drew": [["Cup"], ["Axe"]], "played": [[], ["Axe"]]}),
        _record(3, [], draw=True, real=5, forced=1, scores=[4, 4], measures={"Wars": 4, "Hand": [2, 2]},
                groups={"Side": ["blue", "red"]},
                cards={"had": [["Axe"], ["Cup"]], "drew": [[], []], "played": [[], []]}),
        {"seed": 4, "status": "aborted", "error": "E0801 too long"},
    ]


def test_the_report_from_records():
    report = build_report(_records(), 2, INFO)
    assert isinstance(report, Report) and report["schema"] == SCHEMA == "cardsmith.simulate/1"
    assert report["games"] == 4 and report["finished"] == 3 and report["aborted_seeds"] == [4]
    assert [s["wins"] for s in report["seats"]] == [1, 1]
    assert report["seats"][0]["ci95"] == list(wilson_interval(1, 3))
    assert report["seats"][0]["score"]["mean"] == pytest.approx(11 / 3)
    assert report["seats"][1]["return"]["total"] == 1.5          # lost, won, a draw's half
    plain = build_report([_record(1, [0]), _record(2, [0, 1]), _record(3, [], draw=True)], 2, None)
    assert plain["seats"][0]["score"] is None                     # no score declared
    assert [s["return"]["total"] for s in plain["seats"]] == [2.0, 1.0]    # 1 + 1/2 + 1/2, 0 + 1/2 + 1/2
    assert report["decisions"]["real"]["mean"] == 5.0 and report["decisions"]["forced"]["total"] == 3
    assert report["decisions"]["all"]["max"] == 8
    assert report["draws"]["count"] == 1
    wars = report["measures"]["Wars"]
    assert wars["per_game"]["total"] == 6 and wars["per_game"]["mean"] == 2 and wars["per_game"]["sd"] == 2.0
    hand = report["measures"]["Hand"]
    assert hand["per_game"]["mean"] == pytest.approx(10 / 3)             # 4, 2, 4 per game
    assert hand["per_player"]["count"] == 6 and hand["per_player"]["total"] == 10
    assert [s["mean"] for s in hand["seats"]] == [1.0, pytest.approx(7 / 3)]
    side = report["groups"]["Side"]
    assert side["declared"] is True
    assert side["values"]["red"] == {"seats": 3, "wins": 1, "win_rate": 1 / 3, "ci95": list(wilson_interval(1, 3))}
    assert side["values"]["blue"]["wins"] == 1
    axe = report["cards"]["Axe"]
    assert (axe["had"]["seats"], axe["had"]["wins"]) == (3, 2)          # seat 1 game 1 (won), seat 2 game 2 (won), game 3 draw
    assert (axe["drew"]["seats"], axe["drew"]["wins"]) == (2, 2)
    assert (axe["played"]["seats"], axe["played"]["wins"]) == (2, 2)
    cup = report["cards"]["Cup"]
    assert (cup["had"]["seats"], cup["had"]["wins"]) == (4, 1)
    assert report["card_groups"]["Side"]["red"]["Axe"]["had"]["seats"] == 1       # game 1 seat 1 only... and game 3 seat 2
    # the report is JSON, and says so
    again = json.loads(report.to_json())
    assert again["schema"] == SCHEMA and again["cards"]["Axe"]["had"]["wins"] == 2


def test_card_groups_count_only_the_seats_with_that_value():
    report = build_report(_records(), 2, INFO)
    red = report["card_groups"]["Side"]["red"]
    blue = report["card_groups"]["Side"]["blue"]
    # red: game 1 seat 1 (had Axe, Cup; won), game 2 seat 1 (had Cup; lost), game 3 seat 2 (had Cup; draw)
    assert red["Axe"]["had"] == {"seats": 1, "wins": 1, "win_rate": 1.0, "ci95": list(wilson_interval(1, 1))}
    assert (red["Cup"]["had"]["seats"], red["Cup"]["had"]["wins"]) == (3, 1)
    # blue: game 1 seat 2 (Cup; lost), game 2 seat 2 (Axe; won), game 3 seat 1 (Axe; draw)
    assert (blue["Axe"]["had"]["seats"], blue["Axe"]["had"]["wins"]) == (2, 1)
    assert (blue["Cup"]["had"]["seats"], blue["Cup"]["had"]["wins"]) == (1, 0)


def test_a_game_without_groups_is_grouped_by_its_enum_attributes():
    recs = [_record(1, [0]), _record(2, [1])]
    recs[0]["groupings"] = {0: {"faction": "Elves"}, 1: {"faction": "Orcs"}}
    recs[1]["groupings"] = {0: {"faction": "Orcs"}, 1: {"faction": "Elves"}}
    report = build_report(recs, 2, None)
    group = report["groups"]["faction"]
    assert group["declared"] is False
    assert group["values"]["Elves"]["wins"] == 2 and group["values"]["Elves"]["seats"] == 2
    assert group["values"]["Orcs"]["wins"] == 0


def test_an_empty_run_has_every_section():
    report = build_report([], 2, declared(load_game(GAME)))
    assert report["finished"] == 0 and report["cards"] == {} and report["card_groups"] == {}
    assert list(report["measures"]) == ["Big plays", "Cards left on the stack", "Cards kept in hand"]
    assert report["measures"]["Big plays"]["per_game"]["count"] == 0
    assert report["groups"]["Side"]["values"] == {}
    assert report["decisions"]["real"]["mean"] is None


# ---------------------------------------------------------------- the constructs


def test_declared_measures_and_groups_say_themselves_in_english(game):
    info = declared(game)
    says = [m["says"] for m in info["measures"]] + [g["says"] for g in info["groups"]]
    assert says == [
        "“Big plays”: how many times “Big” is announced in a game.",
        "“Cards left on the stack”: the number of cards in the stack when the game ends.",
        "“Cards kept in hand”: for each player, the number of cards in the player's hand when the game ends.",
        "“Side”: the players grouped by the player's side when the game ends.",
    ]
    assert [m["per"] for m in info["measures"]] == ["game", "game", "player"]
    ctx = E.make_ctx(game.decls)
    assert E.describe_measure(game.decls.measures[0], ctx).startswith("“Big plays”")


BASE = '''game "G":
    players: 2 to 2

enum Side: sun, moon

player has:
    side: Side = sun
    points: number = 0

event Bump

round "R":
    announce Bump
    seat 1 wins
'''


def _errors(extra: str):
    with pytest.raises(CardsmithError) as info:
        load_text(BASE + extra, "g.cards")
    return info.value.diagnostics


@pytest.mark.parametrize("extra, code, words, hint", [
    ('measure "X" counts event Bmp\n', "E0210", "unknown event 'Bmp'", "Bump"),
    ('measure "X" counts event moved\n', "E0210", "'moved' is built in", "declare an event"),
    ('measure "X" as 1\nmeasure "X" as 2\n', "E0102", 'the measure "X" is declared twice', "line"),
    ('group "S" for p as p\'s side\ngroup "S" for p as p\'s points\n', "E0102", 'the group "S" is declared twice',
     "rename"),
    ('group "S" for p as p\n', "E0408", "a group's value is an enum member", "faction"),
    ('measure "X" for p as p\'s side\n', "E0408", "expected a number", "give"),
    ('measure "X" as p\'s points\n', "E0201", "", ""),
])
def test_checker_errors_are_located_with_a_hint(extra, code, words, hint):
    diags = _errors(extra)
    d = next(d for d in diags if d.code == code)
    assert words in d.message
    assert hint in (d.hint or "")
    assert d.span.line > BASE.count("\n")          # on the declaration's line, not elsewhere


def test_the_words_stay_names_elsewhere():
    """`group`, `measure` and `counts` start declarations only: a field may still be called so."""
    src = BASE.replace("    points: number = 0", "    points: number = 0\n    group: number = 1\n"
                       "    counts: number = 0\n    measure: number = 0")
    src += 'measure "Groups" for p as p\'s group + p\'s counts + p\'s measure\n'
    game = load_text(src, "g.cards")
    assert [m.name for m in game.decls.measures] == ["Groups"]


def test_a_replaced_event_did_not_happen_and_is_not_counted():
    src = '''game "Pings":
    players: 2 to 2

event Ping(n: number)

zone box: shared, hidden
zone table: per player, public

card type Charm:
    power: number = 0
    instead of Ping where n = 2:
        say "the second ping is damped"

cards Charm in box:
    | name     | power | copies |
    | "Damper" | 0     | 1      |

measure "Pings" counts event Ping

setup:
    move cards in box to seat 1's table

round "R":
    announce Ping(1)
    announce Ping(2)
    announce Ping(3)
    seat 1 wins
'''
    record = play_one(load_text(src, "pings.cards"), 2, 1)
    assert record["measures"] == {"Pings": 2}
    assert record["events"] == {"Ping": 2}
    unplugged = play_one(load_text(src.replace("move cards in box to seat 1's table", "say \"no charm\""),
                                   "pings.cards"), 2, 1)
    assert unplugged["measures"] == {"Pings": 3}        # the Damper in the box counts for nobody
