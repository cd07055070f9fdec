"""A running game is bounded (issue 8, part D): dice, numbers, lists, texts, the log, the steps.

Each case is a small hostile game that, without its bound, would take gigabytes or hang in one
instruction; with it, the game stops at once with a located error naming the bound, and the
log (when kept) ends with the abort.
"""
from __future__ import annotations

import time

import pytest

from cardsmith.dsl.bounds import (MAX_COLLECTION, MAX_DICE_PER_ROLL, MAX_LOG_BYTES, MAX_RUNTIME_NUMBER,
                                  MAX_RUNTIME_STRING)
from cardsmith.dsl.loader import load_text
from cardsmith.dsl.render import render_all
from cardsmith.interpreter.engine import Engine
from cardsmith.interpreter.errors import GameAborted
from cardsmith.interpreter.play import run_game

HEAD = 'game "Hostile":\n    players: 2 to 2\n\ngame has:\n    n: number = 0\n\n'


def aborted(text: str, log: bool = True, max_steps: int | None = None, seconds: float = 10.0) -> GameAborted:
    """Play `text` with random bots; it must abort within `seconds`. The error, rendered too."""
    game = load_text(text, path="hostile.cards")
    started = time.perf_counter()
    with pytest.raises(GameAborted) as info:
        run_game(game, 2, seed=1, log=log, max_steps=max_steps)
    assert time.perf_counter() - started < seconds
    err = info.value
    shown = render_all(err.diagnostics, err.sources)
    assert "hostile.cards:" in shown and "^" in shown          # located, with the line and a caret
    return err


def where(err: GameAborted) -> tuple[str, int]:
    d = err.diagnostics[0]
    return d.code, d.span.line


def test_a_roll_of_a_hundred_million_dice_is_refused_before_it_rolls():
    err = aborted(HEAD + "die D6: [one], [two]\n\nsetup:\n    roll 100000000 D6 dice as r\n")
    assert where(err) == ("E0805", 10)
    assert "MAX_DICE_PER_ROLL" in err.diagnostics[0].message and f"{MAX_DICE_PER_ROLL:,}" in err.diagnostics[0].message


def test_as_many_dice_as_the_bound_allows_still_roll():
    game = load_text(HEAD + f"die D6: [one], [two]\n\nsetup:\n    roll {MAX_DICE_PER_ROLL} D6 dice as r\n"
                     "    set n to count(r)\n", path="ok.cards")
    assert run_game(game, 2, seed=1).state.game["n"] == MAX_DICE_PER_ROLL


def test_squaring_in_a_loop_stops_at_the_number_bound_not_at_millions_of_digits():
    err = aborted(HEAD + "setup:\n    let x be 2\n    repeat 40 times:\n        let x be x * x\n", seconds=2)
    assert where(err) == ("E0806", 10)
    assert "MAX_RUNTIME_NUMBER" in err.diagnostics[0].message


@pytest.mark.parametrize("body, line", [
    ("    set n to 1000000000000000\n    add n * 1000 to n\n", 9),       # n * 1000 is at the bound, the add past it
    ("    let big be [1000000000000000 * 1000, 1000000000000000 * 1000]\n    set n to sum(big)\n", 9),
    ("    set n to 1000000000000000\n    set n to n * 1000\n    set n to n + n\n", 10),
    ("    set n to 1000000000000000\n    set n to n * 1000\n    set n to 0 - n - n\n", 10),
])
def test_every_way_of_computing_a_number_is_bounded(body, line):
    err = aborted(HEAD + "setup:\n" + body)
    assert where(err) == ("E0806", line)


def test_a_number_at_the_bound_is_fine():
    game = load_text(HEAD + "setup:\n    set n to 1000000000000000\n    set n to n * 1000\n", path="ok.cards")
    assert run_game(game, 2, seed=1).state.game["n"] == MAX_RUNTIME_NUMBER


CARDS = ('card type Chip:\n    v: number = 0\n\nzone box: shared, hidden\n\n'
         'cards Chip in box:\n    | name | copies |\n    | "Chip" | 1000 |\n\n')


def test_a_list_of_lists_copying_a_deck_per_card_is_bounded():
    # 1,000 copies of a 1,000-card zone is a million items: over MAX_COLLECTION
    err = aborted(HEAD + CARDS + "setup:\n    let heap be [cards in box for each c in cards in box]\n"
                                 "    set n to count(heap)\n")
    assert where(err) == ("E0807", 17)
    assert "MAX_COLLECTION" in err.diagnostics[0].message


def test_a_written_list_of_copies_is_bounded_too():
    copies = ", ".join(["cards in box"] * (MAX_COLLECTION // 1000 + 1))
    err = aborted(HEAD + CARDS + f"setup:\n    let heap be [{copies}]\n    set n to count(heap)\n")
    assert where(err) == ("E0807", 17)


def test_a_list_under_the_bound_is_fine():
    game = load_text(HEAD + CARDS + "setup:\n    let heap be [cards in box for each c in cards in box where c = "
                     "first(cards in box)]\n    set n to count(heap)\n", path="ok.cards")
    assert run_game(game, 2, seed=1).state.game["n"] == 1


def test_an_event_naming_too_many_cards_is_a_text_over_the_bound():
    # 1,000 card names of 200 characters in one log line: 200,000 characters
    name = "X" * 200
    text = (HEAD + f'card type Chip:\n    v: number = 0\n\nzone box: shared, public\n\n'
            f'cards Chip in box:\n    | name | copies |\n    | "{name}" | 1000 |\n\n'
            'event heap(cards: list of card)\n\nsetup:\n    announce heap(cards in box)\n')
    err = aborted(text)
    assert where(err) == ("E0808", 19)
    assert f"{MAX_RUNTIME_STRING:,}" in err.diagnostics[0].message
    game = load_text(text, path="hostile.cards")
    assert run_game(game, 2, seed=1, log=False).finished          # no log, no text: the game itself is fine


def test_a_game_that_fills_its_log_stops_at_the_log_bound_and_its_log_ends_with_the_abort():
    # one `say` of 10,000 characters per step, forever: 50 MB of log after ~5,000 steps
    long = "z" * 10_000
    text = HEAD + f'setup:\n    repeat:\n        say "{long}"\n'
    game = load_text(text, path="hostile.cards")
    with pytest.raises(GameAborted) as info:
        Engine(game, 2, 1)
    err = info.value
    assert where(err) == ("E0809", 9)
    assert "MAX_LOG_BYTES" in err.diagnostics[0].message
    log = err.event_log
    assert log.events[-1]["event"] == "aborted" and log.events[-1]["code"] == "E0809"
    assert MAX_LOG_BYTES * 0.9 < len(log.to_jsonl().encode()) <= MAX_LOG_BYTES * 1.01


def test_the_step_bound_and_its_flag():
    err = aborted(HEAD + "setup:\n    repeat:\n        add 1 to n\n", max_steps=1000)
    assert where(err) in {("E0801", 8), ("E0801", 9)}       # the loop's jump back, or its body
    assert "1,000 steps" in err.diagnostics[0].message and "--max-steps" in err.diagnostics[0].hint


def test_the_step_bound_met_in_an_instruction_without_a_source_still_names_a_rule():
    # after an item on the stack resolves, the engine's own code (no line of the file) announces
    # `resolved`: a bound that lands there names the rule below it instead of crashing
    game = load_text(HEAD + 'player has:\n    x: number = 0\n\nzone hand: per player, owner only\n\n'
                     'card type Spell:\n    action "Go" from hand:\n        add 1 to n\n\n'
                     'zone box: shared, hidden\n\ncards Spell in box:\n    | name |\n    | "Go" |\n\n'
                     'setup:\n    move cards in box to seat 1\'s hand\n\nround "Turn":\n'
                     '    seat 1 may take actions\n', path="hostile.cards")
    from cardsmith.interpreter.agents import ScriptedAgent
    spans, messages = set(), []
    for limit in range(1, 60):
        try:
            run_game(game, 2, seed=1, agents=[ScriptedAgent([1] * 50), ScriptedAgent([])], max_steps=limit)
        except GameAborted as err:
            d = err.diagnostics[0]
            assert d.code == "E0801" and d.span is not None and d.span.line >= 1
            render_all(err.diagnostics, err.sources)
            spans.add(d.span.line)
            messages.append(d.message)
        except Exception as err:        # the script running dry is fine; a crash is not
            assert type(err).__name__ == "ScriptError", repr(err)
    assert len(spans) > 3
    assert any("after an item resolves" in message for message in messages)


def _choice_game(name: str, copies: int) -> str:
    return (HEAD + 'zone box: shared, public\n\ncard type C:\n    v: number = 0\n\n'
            f'cards C in box:\n    | name | copies |\n    | "{name}" | {copies} |\n\n'
            'round "R":\n    seat 1 chooses h from [cards in box, cards in box where v = 1], prompt "Pick"\n'
            '    seat 1 wins\n')


def test_a_decided_choice_too_long_to_log_is_a_located_abort_not_a_crash():
    # the options are a list of 1,990 cards and an empty list; an option that is a list is
    # labelled by its cards' names (since the groups of issue 18), 48 characters and ", " each:
    # 99,502 characters of labels, within MAX_RUNTIME_STRING, so the choice is posed. The decided
    # choice is logged with each name quoted, 2 characters more each: 103,480, past the bound,
    # in Engine.decide
    name, copies = "C" * 48, 1990
    labels = copies * (len(name) + len(", ")) - len(", ") + len("[]") + len("[]")
    logged = copies * (len(name) + len("''") + len(", ")) - len(", ") + len("[]")
    assert labels <= MAX_RUNTIME_STRING < logged
    game = load_text(_choice_game(name, copies), path="hostile.cards")
    eng = Engine(game, 2, 1)
    assert eng.pending.prompt == "Pick"
    assert sum(map(len, eng.pending.options)) == labels           # the labels as counted above
    with pytest.raises(GameAborted) as info:
        eng.decide(0)
    assert where(info.value) == ("E0808", 17)
    assert eng.log[-1]["event"] == "aborted"


def test_a_choice_whose_labels_are_too_long_is_a_located_abort_as_it_is_posed():
    # two lists of 400 names of 500 characters: the labels alone pass MAX_RUNTIME_STRING
    game = load_text(_choice_game("C" * 500, 400).replace("where v = 1", "where v = 0"), path="hostile.cards")
    with pytest.raises(GameAborted) as info:
        Engine(game, 2, 1)
    assert where(info.value) == ("E0808", 17)
    assert info.value.event_log.events[-1]["event"] == "aborted"


# ---------------------------------------------------------------- work inside one instruction

CHIPS = ('zone box: shared, hidden\ncard type C:\n    v: number = 0\n'
         'cards C in box:\n    | name | copies |\n    | "Chip" | 10000 |\n\n')


def test_work_inside_one_instruction_counts_against_the_step_bound():
    # each `let` is one instruction but walks 10,000 cards: 1,000 of them are 10,000,000 items of
    # work, so a bound of 1,000,000 steps stops the game after about a hundred, not at the end
    err = aborted(HEAD + CHIPS + 'round "R":\n    repeat 1000 times:\n'
                  '        let xs be (v of c for each c in cards in box)\n    seat 1 wins\n',
                  log=False, max_steps=1_000_000, seconds=20.0)
    assert where(err) == ("E0801", 16)
    assert "items of work" in err.diagnostics[0].message


def test_work_is_part_of_the_saved_state():
    game = load_text(HEAD + CHIPS + "round \"R\":\n    let xs be (c for each c in cards in box where c's v = 0)\n"
                     '    seat 1 chooses c from cards in box\n    seat 1 wins\n', path="hostile.cards")
    eng = Engine(game, 2, seed=1, log=False)
    assert eng.pending is not None and eng.state.work == 20_000      # the list, then the options
    again = Engine.restore(game, eng.save_json(), log=False)
    assert again.state.work == 20_000
