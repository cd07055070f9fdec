"""The log's common events recorded without the general text's loop (issue 9: log on costs at
most 2x log off).

A flip (`EventLog.flipped`), a trigger (`named`), a player's pick (`chose`) and an attribute set
(`assigned`) are recorded by their own methods, and a move that only the log, the tally, a look
or `moved` / `revealed` watch goes the machine's short way with the log on too. Each must record
what the general way records: the event `emit` makes from the general text (the card's name as
a `Seen` part), with the same parts for who may not read a name, the same size towards the
log's bound. Checked both ways here, against the general way written out as it was, on games
with secret picks, looks, card backs, triggers and sets; and the short ways are taken.
"""
from __future__ import annotations

import collections
from pathlib import Path

import pytest

from cardsmith.dsl.loader import load_game
from cardsmith.interpreter import machine as machine_mod
from cardsmith.interpreter.log import EventLog, Seen
from cardsmith.interpreter.play import run_game
from cardsmith.interpreter.visibility import rule_of, seers

ROOT = Path(__file__).resolve().parents[1]
GAMES = [ROOT / "games" / "battlefield_space.cards", ROOT / "games" / "space_war_in_space.cards",
         ROOT / "tests" / "games" / "private_look.cards", ROOT / "tests" / "games" / "seen_cards.cards",
         ROOT / "tests" / "games" / "tiered_tiles.cards", ROOT / "tests" / "games" / "event_soup.cards",
         ROOT / "tests" / "games" / "signal_fires.cards", ROOT / "tests" / "games" / "fleet_split.cards",
         ROOT / "games" / "eve_war_for_new_eden.cards"]


# ---- the general way, as the machine, the triggers and the decisions wrote it before
def _flipped(self, m, c, key, was_up, up, span, before=None):
    if before is None:          # (a card looked at: who could see it before, given)
        decl, seat, _public = m.zone_info[key]
        before = seers(rule_of(decl), seat, was_up)
    self.emit(m, "flip", span, {"card": m.card_label(c), "face": "up" if up else "down"},
              [self.card(m, c, before), f" is flipped face {'up' if up else 'down'}"])


def _named(self, m, kind, span, data, c, tail):
    self.emit(m, kind, span, data, [self.card(m, c), tail])


def _chose(self, m, player, prompt, value, span, how, secret, kind):
    shown = self.typed(m, value, kind)
    picked = self.typed_parts(m, value, kind, span)
    if secret:
        text = "".join(p.text if isinstance(p, Seen) else p for p in picked)
        picked = [Seen(f" secretly chooses {text}", frozenset((player,)), " makes a secret choice")]
    else:
        picked = [" chooses ", *picked]
    self.emit(m, "choice", span, {"player": player, "prompt": prompt, "choice": shown, "how": how,
                                  "secret": secret},
              [self.player_name(player), *picked, f" ({prompt})"], weight=None)


def _assigned(self, m, kind, owner, name, value, span):
    whose = [] if kind == "game" else \
        [self.player_name(owner) if kind == "player" else self.card(m, owner), "'s "]
    what = name if kind == "game" else \
        f"{self.player_name(owner) if kind == 'player' else m.card_label(owner)}'s {name}"
    shown = self.attribute_type(m, kind, owner, name)
    self.emit(m, "set", span,
              {"what": what, "value": value if shown is None else self.typed(m, value, shown)},
              whose + [f"{name} becomes ", *self.typed_parts(m, value, shown, span)])


GENERAL = {"flipped": _flipped, "named": _named, "chose": _chose, "assigned": _assigned}


def _played(game, players: int, seed: int):
    eng = run_game(game, players, seed, log=True)
    log = eng.event_log
    return (log.to_jsonl(), [log.seen_by(p) for p in range(players)], log.bytes, eng.m.st.event_n,
            {i: tuple(parts) for i, parts in log._parts.items()})


@pytest.mark.parametrize("path", [p for p in GAMES if p.exists()], ids=lambda p: p.stem)
def test_the_short_records_are_those_of_the_general_way(path, monkeypatch):
    game = load_game(str(path))
    runs = [(players, seed) for players in sorted({game.min_players, game.max_players}) for seed in range(3)]
    short = [_played(game, players, seed) for players, seed in runs]
    for name, general in GENERAL.items():
        monkeypatch.setattr(EventLog, name, general)
    game = load_game(str(path))     # a program of its own: no words shared with the runs above
    assert [_played(game, players, seed) for players, seed in runs] == short


def _emitted(path: Path, players: int, seeds) -> collections.Counter:
    kinds: collections.Counter = collections.Counter()
    emit = EventLog.emit

    def counting(self, m, kind, *args, **kwargs):
        kinds[kind] += 1
        return emit(self, m, kind, *args, **kwargs)

    EventLog.emit = counting
    try:
        game = load_game(str(path))
        for seed in seeds:
            run_game(game, players, seed, log=True)
    finally:
        EventLog.emit = emit
    return kinds


def test_battlefield_logs_its_flips_sets_triggers_and_picks_the_short_way(monkeypatch):
    """Battlefield (no card backs, no looks) flips, sets forces, triggers and picks cards every
    round: none of those goes through the general `emit`; nor do its moves through `_moved`."""
    moved = []
    general_moved = machine_mod.Machine._moved
    monkeypatch.setattr(machine_mod.Machine, "_moved",
                        lambda self, *a, **k: (moved.append(1), general_moved(self, *a, **k))[1])
    kinds = _emitted(ROOT / "games" / "battlefield_space.cards", 2, range(3))
    assert not {"flip", "set", "trigger", "choice"} & set(kinds), kinds
    assert kinds["say"] > 0             # (the count sees `emit`'s calls)
    assert not moved


def test_a_game_with_card_backs_names_its_flipped_cards_the_general_way():
    """A card whose back shows fields reads as its back to who may not see it: `flipped` leaves
    such an event to `emit`, which makes that part."""
    kinds = _emitted(ROOT / "tests" / "games" / "tiered_tiles.cards", 2, range(2))
    assert kinds["flip"] > 0


def test_a_declared_event_with_the_log_on_is_logged_and_fired_without_announce_all(monkeypatch):
    """Space War's `announce before_battle (...)` and `battle_won (...)`: once announced, a
    generated `announce` calls its logged `one` (`Triggers.quiet_ones`: the line, then the
    triggers) instead of `announce_all`; the log is the general way's (test above, and
    tests/test_log_equality.py)."""
    from cardsmith.interpreter import triggers
    calls: collections.Counter = collections.Counter()
    general = triggers.Triggers.announce_all

    def counting(self, event, param_sets, span):
        calls[event] += 1
        return general(self, event, param_sets, span)
    monkeypatch.setattr(triggers.Triggers, "announce_all", counting)
    game = load_game(str(ROOT / "games" / "space_war_in_space.cards"))
    eng = run_game(game, 2, 3, log=True)
    logged = [e for e in eng.event_log.events if e["event"] == "event"]
    assert {e["name"] for e in logged} >= {"before_battle", "battle_won"}
    assert len(logged) > 20
    assert calls["before_battle"] <= 1 and calls["battle_won"] <= 1, calls


def test_a_generated_move_tells_the_log_itself_where_no_tally_watches(monkeypatch):
    """The generated moves call the log's `moved` / `move` at once where only the log watches;
    with a tally, `noted1` / `noted_all` tell both (tests/test_moves_quiet.py: the same ends)."""
    import sys
    noted = []      # the generated code's calls (Machine.move calls them too, for its own moves)
    for name in ("noted1", "noted_all"):
        general = getattr(machine_mod.Machine, name)
        monkeypatch.setattr(machine_mod.Machine, name, lambda self, *a, _g=general, **k: (
            noted.append(sys._getframe(1).f_code.co_filename.startswith("<cardsmith")), _g(self, *a, **k))[1])
    game = load_game(str(ROOT / "games" / "space_war_in_space.cards"))
    run_game(game, 2, 3, log=True)
    assert not any(noted)
    from cardsmith.interpreter.report import Tally
    run_game(game, 2, 3, log=True, tally=Tally(cards=True))
    assert any(noted)


@pytest.mark.parametrize("path", [p for p in GAMES if p.exists()], ids=lambda p: p.stem)
def test_a_declared_event_logged_by_its_values_is_logged_as_announce_all_logs_it(path, monkeypatch):
    """`triggers._logged_one` finds an event's words by the values themselves (`EventLog.said`);
    without it every `announce` goes through `announce_all` and `EventLog.announced`."""
    from cardsmith.interpreter import triggers
    game = load_game(str(path))
    runs = [(players, seed) for players in sorted({game.min_players, game.max_players}) for seed in range(3)]
    short = [_played(game, players, seed) for players, seed in runs]
    monkeypatch.setattr(triggers, "_logged_one", lambda m, event, one: None)
    game = load_game(str(path))
    assert [_played(game, players, seed) for players, seed in runs] == short


def test_space_war_finds_its_events_words_by_their_values(monkeypatch):
    """Once made, a declared event's words are found without the parameters' dict: `announced`
    is called only for words not made yet (a few a game), `said` for every line."""
    calls: collections.Counter = collections.Counter()
    for name in ("announced", "said"):
        general = getattr(EventLog, name)
        monkeypatch.setattr(EventLog, name, lambda self, *a, _g=general, _n=name, **k: (
            calls.update([_n]), _g(self, *a, **k))[1])
    game = load_game(str(ROOT / "games" / "space_war_in_space.cards"))
    first = run_game(game, 2, 3, log=True).event_log
    words = first._words            # the program's, shared by its games (`EventLog._share`)
    made = len(words)
    calls.clear()
    eng = run_game(game, 2, 4, log=True)
    assert eng.event_log._words is words
    lines = sum(e["event"] == "event" for e in eng.event_log.events)
    assert calls["said"] == lines > 20     # (`announced` records by `said` too)
    # each for words it made, or the first of each event on this machine (by `announce_all`)
    assert calls["announced"] <= len(words) - made + len(game.decls.events) < lines, calls
