"""The key of a declared event's words made once (`EventLog.announced`, issue 9: log on costs at
most 2x log off).

The key is one flat tuple, the event, the parameters' names, then their values (a list as a
tuple), made without a loop for the usual events: every value a number or a text, or one
parameter holding a list (`before_battle(fighters: list of player)`); `_key` makes it for the
others. It must tell apart exactly the values the former key, (event, (name, value), ...),
told apart (a flag is not a number, a text not a number), and a game's log must read as when
each event's words are made anew.
"""
from __future__ import annotations

from pathlib import Path

from cardsmith.dsl.loader import load_game
from cardsmith.interpreter.engine import Engine
from cardsmith.interpreter.log import _SCALARS, EventLog, _key

ROOT = Path(__file__).resolve().parents[1]
SPACE_WAR = ROOT / "games" / "space_war_in_space.cards"


def _former_key(event, params):
    """The key `announced` made before: (event, (name, value), ...), a list as a tuple; None
    when a value is not a number, a text or a list of them."""
    key = [event]
    for name, v in params.items():
        if v.__class__ in (int, str):
            key.append((name, v))
        elif v.__class__ is list and _SCALARS.issuperset(map(type, v)):
            key.append((name, tuple(v)))
        else:
            return None
    return tuple(key)


def _machine():
    game = load_game(str(SPACE_WAR))
    eng = Engine(game, players=2, seed=1, log=True)
    return eng, eng.m, next(iter(game.decls.procedures.values())).span


PARAMS = [
    ("e", {}), ("e", {"a": 1}), ("e", {"a": True}), ("e", {"a": "1"}), ("e", {"a": [1]}),
    ("e", {"a": [True]}), ("e", {"a": ["1"]}), ("e", {"a": []}), ("e", {"a": [[1]]}), ("e", {"a": [1, None]}),
    ("e", {"b": 1}), ("e", {"a": "b"}), ("e", {"b": "a"}), ("e", {"a": 1, "b": 2}), ("e", {"b": 2, "a": 1}),
    ("e", {"a": "b", "b": "a"}), ("e", {"a": [1, 2], "b": 2}), ("e", {"a": [2, 1], "b": 2}),
    ("e", {"a": [1, 2], "b": "x"}), ("e", {"a": (1, 2), "b": "x"}), ("e", {"a": [1], "b": [1]}),
    ("e", {"a": 1, "b": [1]}), ("e", {"a": 1, "b": True}), ("e", {"a": 1, "b": [True]}), ("f", {"a": 1}),
    ("e", {"e": "a"}), ("a", {"e": "e"}), ("e", {"a": "e", "e": "a"}), ("e", {"a": [], "b": []}),
]


def _fast_key(event, params):
    """The key as `announced` makes it (its lines, for a test that they agree with `_key`)."""
    values = params.values()
    if _SCALARS.issuperset(map(type, values)):
        return (event, *params, *values)
    if len(params) == 1:
        [v] = values
        return (event, *params, tuple(v)) if v.__class__ is list and _SCALARS.issuperset(map(type, v)) else None
    return _key(event, params)


def test_the_flat_key_tells_apart_what_the_former_key_told_apart():
    for event, params in PARAMS:
        assert (_key(event, params) is None) == (_former_key(event, params) is None), params
        assert (_fast_key(event, params) is None) == (_former_key(event, params) is None), params
        if _key(event, params) is not None:
            assert _fast_key(event, params) == _key(event, params), params
    for e1, p1 in PARAMS:
        for e2, p2 in PARAMS:
            old1, old2 = _former_key(e1, p1), _former_key(e2, p2)
            if old1 is None or old2 is None:
                continue
            assert (old1 == old2) == (_key(e1, p1) == _key(e2, p2)), (p1, p2)


def test_a_list_parameter_is_keyed_without_the_loop_and_writes_what_words_made_anew_write(monkeypatch):
    """`before_battle(fighters: list of player)`: its words are kept under the flat key; the
    log (and each player's) is that of a log whose words are made anew for every event."""
    eng, m, span = _machine()
    calls = [("before_battle", {"fighters": [0, 1]}), ("before_battle", {"fighters": [1, 0]}),
             ("before_battle", {"fighters": []}), ("before_battle", {"fighters": [0, 1]}),
             ("before_battle", {"fighters": [1]}), ("battle_won", {"winner": 1, "card": 3}),
             ("battle_won", {"winner": 1, "card": 3}), ("leader_victory", {"player": 0, "card": 5})]
    start = m.st.event_n
    kept = EventLog(True, eng.player_names)
    m.log = kept
    for event, params in calls:
        kept.announced(m, event, params, span)
    for event, params in calls:
        assert _key(event, params) in kept._words
        assert _key(event, params) == (event, *params, *(tuple(v) if isinstance(v, list) else v
                                                         for v in params.values()))
    monkeypatch.setattr("cardsmith.interpreter.log._MAX_WORDS", 0)
    anew = EventLog(True, eng.player_names)
    anew._shared = True             # (nothing from the program's other games)
    m.log = anew
    m.st.event_n = start            # (numbered as the first)
    for event, params in calls:
        anew.announced(m, event, params, span)
    assert not anew._words
    assert kept.to_jsonl() == anew.to_jsonl()
    assert kept.bytes == anew.bytes
    for p in range(2):
        assert kept.seen_by(p) == anew.seen_by(p)
    assert '"fighters": ["Player 2", "Player 1"]' in kept.to_jsonl()


def test_values_that_are_not_numbers_or_texts_take_the_general_path():
    """A flag in a list is not a number (True is not 1): no key, the words made each time."""
    eng, m, span = _machine()
    log = EventLog(True, eng.player_names)
    m.log = log
    log.announced(m, "before_battle", {"fighters": [True]}, span)
    log.announced(m, "before_battle", {"fighters": [1]}, span)
    assert _key("before_battle", {"fighters": [True]}) is None
    assert [k for k in log._words if k[0] == "before_battle"] == [("before_battle", "fighters", (1,))]
    assert [type(x) for k in log._words if k[0] == "before_battle" for x in k[2]] == [int]
    assert [e["fighters"] for e in log.events] == [["Player 2"], ["Player 2"]]
