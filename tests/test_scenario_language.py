"""The scenario language of issue 11 item 1 (docs/language.md, "Scenarios"), proved able to fail.

tests/games/rehearsal.cards holds the passing scenarios (tests/test_games_dir.py runs them);
here each construct is also shown failing, at the right line, with a message that says why:
an `expect` with its values, `say` with values, `with seed N`, `expect event ... happened /
did not happen / happened before ...`, a face-up test, `stack ... with ... on top`, unused
scripted answers, a question with one option, `play until step`, and a scenario file that
extends a game in a parent folder.
"""
from __future__ import annotations

import json
from pathlib import Path

import pytest

from cardsmith.dsl.diagnostics import CardsmithError
from cardsmith.dsl.loader import load_game, load_text
from cardsmith.interpreter.cli import main
from cardsmith.interpreter.scenario import run_scenario

GAME = Path(__file__).parent / "games" / "rehearsal.cards"
BASE = GAME.read_text(encoding="utf-8").split("\nscenario ")[0]


def _game(scenarios: str, path: str = "rehearsal_case.cards"):
    return load_text(BASE + "\n" + scenarios, path=path)


def _line(text: str, scenarios: str, marker: str) -> str:
    """`file:LINE:COL` of the line of `scenarios` holding `marker`, in BASE + scenarios."""
    before = len((BASE + "\n").splitlines())
    lines = scenarios.splitlines()
    hits = [i for i, t in enumerate(lines, 1) if marker in t]
    assert len(hits) == 1, marker
    col = len(lines[hits[0] - 1]) - len(lines[hits[0] - 1].lstrip()) + 1
    return f"{text}:{before + hits[0]}:{col}"


def _run(scenarios: str, name: str, seed: int = 0):
    return run_scenario(_game(scenarios), name, seed)


# ---------------------------------------------------------------- expect explains itself

EXPECTS = '''
scenario "e" with 2 players:
    play setup
    stack seat 1's deck with "Three" on top
    expect name of top card of seat 1's deck = "Two"            # A
    expect seat 1's deck is empty                              # B
    expect "Three" is in name of cards in seat 2's deck         # C
    expect top card of seat 1's deck is face up                 # D
    expect count(cards in seat 1's hand) = 1 and seat 1's score > 2     # E
    expect seat 1's score >= count(cards in seat 2's deck)      # F
'''


def test_a_false_expect_says_its_condition_values_and_the_log_before_it():
    result = _run(EXPECTS, "e")
    assert not result.ok
    f = {line.split(": expectation failed", 1)[0]: line for line in result.failures}
    where = {m: _line("rehearsal_case.cards", EXPECTS, f"# {m}") for m in "ABCDEF"}
    assert f[where["A"]].split("\n")[:3] == [
        f"{where['A']}: expectation failed: expect name of top card of seat 1's deck = \"Two\"",
        "    name of top card of seat 1's deck is \"Three\"", "    expected \"Two\""]
    # the last lines of the log, without the scenario's own checks: the stacking is the last
    assert f[where["A"]].split("\n")[3] == "    the last lines of the log before it:"
    assert f[where["A"]].split("\n")[-1].endswith("Player 1's deck is stacked: Three on top")
    assert "seat 1's deck is Player 1's deck (holding [" in f[where["B"]]
    assert "\"Three\"" in f[where["B"]].split("\n")[1]
    lines_c = f[where["C"]].split("\n")
    assert lines_c[1] == '    "Three" is "Three"' and lines_c[2].startswith("    name of cards in seat 2's deck is [")
    assert f[where["D"]].split("\n")[1] == '    top card of seat 1\'s deck: "Three" is face down'
    assert f[where["E"]].split("\n")[1:3] == ["    this part is false: seat 1's score > 2",
                                              "    seat 1's score is 0"]
    assert f[where["F"]].split("\n")[1:3] == ["    seat 1's score is 0", "    count(cards in seat 2's deck) is 3"]
    assert len(result.failures) == 6
    assert [e["ok"] for e in result.log if e["event"] == "expect"] == [False] * 6


def test_explaining_a_failure_draws_nothing_from_the_generator():
    """The values shown are worked out once more after the condition failed: a random pick in
    it must not change what the rest of the scenario does."""
    text = '''
scenario "r" with 2 players:
    play setup
    expect random card from cards in seat 1's deck is none
    shuffle seat 1's deck
    say "top", top card of seat 1's deck
'''
    failing = _run(text, "r")
    passing = _run(text.replace("is none", "is not none"), "r")
    said = [e["text"] for e in failing.log if e["event"] == "say"]
    assert said and said == [e["text"] for e in passing.log if e["event"] == "say"]


# ---------------------------------------------------------------- say, seed

def test_say_takes_values_in_words():
    text = '''
scenario "s" with 2 players:
    play setup
    stack seat 1's deck with "Two", "Three" on top
    say "top two:", name of top 2 cards of seat 1's deck, "count", count(cards in seat 1's deck), seat 2
'''
    result = _run(text, "s")
    assert result.ok, result.failures
    said = [e["text"] for e in result.log if e["event"] == "say"]
    assert said == ["top two: Two and Three count 7 Player 2"]      # a list in words, as the log writes lists


def test_say_does_not_show_a_hidden_card_to_the_other_players():
    game = _game('''
scenario "h" with 2 players:
    play setup
    say "in hand:", first(cards in seat 1's hand)
''')
    from cardsmith.interpreter.engine import Engine
    from cardsmith.interpreter.program import program_for
    eng = Engine(game, 2, 0, _start=program_for(game).scenarios["h"], _scenario=True)
    said = [e for e in eng.log if e["event"] == "say"]
    card = eng.m.card_label(eng.state.zones["hand:0"][0])
    assert said[0]["text"] == f"in hand: {card}"
    theirs = [e["text"] for e in eng.m.log.seen_by(1) if e["event"] == "say"]
    assert theirs == ["in hand: a card"]


SEEDED = '''
scenario "own seed" with 2 players and seed 5:
    play setup
    say "hand", first(cards in seat 1's hand), first(cards in seat 2's hand)

scenario "any seed" with 2 players:
    play setup
    say "hand", first(cards in seat 1's hand), first(cards in seat 2's hand)

scenario "seed alone" with seed 5:
    play setup
    say "hand", first(cards in seat 1's hand), first(cards in seat 2's hand)
'''


def test_a_scenario_with_its_own_seed_ignores_the_seed_it_is_run_with():
    game = _game(SEEDED)
    assert [s.seed for s in game.decls.scenarios] == [5, None, 5]
    assert [s.players for s in game.decls.scenarios] == [2, 2, None]

    def said(name, seed):
        return [e["text"] for e in run_scenario(game, name, seed).log if e["event"] == "say"]
    own = {json.dumps(said("own seed", seed)) for seed in range(6)}
    assert len(own) == 1
    assert said("seed alone", 0) == said("own seed", 3) == said("any seed", 5)
    assert len({json.dumps(said("any seed", seed)) for seed in range(6)}) > 1


# ---------------------------------------------------------------- events

EVENTS = '''
scenario "ev" with 2 players:
    play setup
    stack seat 1's deck with "Three" on top
    stack seat 2's deck with "One" on top
    give seat 1 the choice "Three"
    give seat 2 the choice "One"
    play 1 round
    expect event scored where p = seat 2 happened                                  # A
    expect event flipped did not happen                                            # B
    expect event scored happened before event flipped                              # C
    expect event round_started happened before event scored where points = 9       # D
    expect event scored where points = 3 happened                                  # E
'''


def test_event_expectations_fail_saying_what_the_events_were():
    result = _run(EVENTS, "ev")
    f = {line.split(": expectation failed", 1)[0]: line.split("\n") for line in result.failures}
    where = {m: _line("rehearsal_case.cards", EVENTS, f"# {m}") for m in "ABCDE"}
    assert where["E"] not in f           # the one that holds
    assert len(result.failures) == 4
    assert f[where["A"]][0].endswith("expect event scored where p = seat 2 happened")
    assert f[where["A"]][1] == "    no such event so far (1 scored event in all)"
    assert f[where["A"]][2].startswith('      scored(p: Player 1, points: 3) after log line #')
    assert f[where["B"]][1].startswith('    it happened: flipped(card: "Three") after log line #')
    assert f[where["C"]][1].startswith('    event flipped happened first: flipped(card: "Three")')
    assert f[where["C"]][2].startswith('    event scored only after it: scored(p: Player 1, points: 3)')
    assert f[where["D"]][1] == "    event scored where points = 9 never happened"


def test_expect_event_is_checked():
    for body, code in (("    expect event scorde happened\n", "E0210"),
                       ("    expect event scored where pts = 3 happened\n", "E0201"),
                       ("    expect event scored where p = 3 happened\n", "E0406"),
                       ("    stack seat 1's deck with 3 on top\n", "E0408"),
                       ("    stack seat 1 with \"One\" on top\n", "E0403")):
        with pytest.raises(CardsmithError) as err:
            _game(f'scenario "x" with 2 players:\n    play setup\n{body}')
        assert code in [d.code for d in err.value.diagnostics], (body, [(d.code, d.message) for d in err.value.diagnostics])


def test_scenario_statements_only_in_scenarios():
    for body in ("expect event scored happened", "stack seat 1's deck with \"One\" on top"):
        with pytest.raises(CardsmithError) as err:
            load_text(BASE.replace('    step "Draw":\n', f'    step "Draw":\n        {body}\n'), path="x.cards")
        assert [d.code for d in err.value.diagnostics] == ["E0413"], body


# ---------------------------------------------------------------- stacking a deck

def test_stacking_a_card_that_is_not_there_fails_at_its_line():
    text = '''
scenario "missing" with 2 players:
    play setup
    stack seat 2's deck with "Three" on top      # HERE
    expect seat 1's score = 0

scenario "unknown" with 2 players:
    play setup
    stack seat 1's deck with "Threee" on top
'''
    result = _run(text, "missing")
    assert not result.ok
    assert len(result.failures) == 1
    head, hint = result.failures[0].split("\n")
    assert head == f"{_line('rehearsal_case.cards', text, '# HERE')}: no card named \"Three\" is in Player 2's deck to stack"
    assert hint == "    cards of that name are in Player 1's deck: move one to Player 2's deck first, or stack the zone it is in"
    # nothing was moved, and the abort says which error it is
    assert result.log[-1]["event"] == "aborted" and result.log[-1]["code"] == "E0830"
    # an expectation that failed before the scenario stopped is reported too
    before = text.replace('    stack seat 2\'s deck with "Three" on top      # HERE\n',
                          '    expect seat 1\'s score = 1      # BEFORE\n'
                          '    stack seat 2\'s deck with "Three" on top\n')
    stopped = _run(before, "missing")
    assert stopped.failures[0] == (f"{_line('rehearsal_case.cards', before, '# BEFORE')}: "
                                   "expectation failed (before the scenario stopped)")
    assert "no card named \"Three\"" in stopped.failures[1] and len(stopped.failures) == 2
    unknown = _run(text, "unknown")
    assert unknown.failures[0].split("\n")[1] == '    no card of this game is named "Threee"; did you mean \'Three\'?'


def test_stacking_asks_for_each_copy():
    text = '''
scenario "twice" with 2 players:
    play setup
    stack seat 1's deck with "Three", "Three", "Three", "Three", "Three" on top
'''
    result = _run(text, "twice")
    assert "no card named \"Three\" is in Player 1's deck" in result.failures[0]


# ---------------------------------------------------------------- scripted answers

ANSWERS = '''
scenario "unused" with 2 players:
    play setup
    give seat 1 the choice "Three"        # GIVEN
    give seat 2 the choice "One"
    expect seat 1's score = 0

scenario "one option" with 2 players:
    play setup
    move cards in seat 1's hand to seat 1's deck face down
    move cards in seat 2's hand to seat 2's deck face down
    stack seat 1's deck with "Two", "One" on top
    give seat 1 the choice "One"
    play 1 round
    expect name of cards in seat 1's discard = ["Two"]
    move top card of seat 1's deck to seat 1's hand face down
    play 1 round
    expect name of cards in seat 1's discard = ["Two", "One"]
'''


def test_an_answer_never_used_fails_the_scenario_at_its_give():
    result = _run(ANSWERS, "unused")
    assert not result.ok
    assert result.failures == [
        f"{_line('rehearsal_case.cards', ANSWERS, '# GIVEN')}: the scenario gives Player 1 the choice \"Three\", "
        "but no question used it (a question with one possible answer is not asked)",
        f"{_line('rehearsal_case.cards', ANSWERS, 'give seat 2 the choice')}: the scenario gives Player 2 "
        "the choice \"One\", but no question used it (a question with one possible answer is not asked)"]


def test_a_question_with_one_option_keeps_the_scripted_answer_for_the_next():
    """Round 1: seat 1 holds one card (the Two it drew): not asked, so the One it was given is
    used in round 2, where it holds two cards."""
    result = _run(ANSWERS, "one option")
    assert result.ok, result.failures
    choices = [(e["player"], e["how"]) for e in result.log if e["event"] == "choice"]
    assert choices == [(0, "forced"), (1, "forced"), (0, "scripted"), (1, "forced")]


# ---------------------------------------------------------------- play until step

def test_play_until_a_step_that_never_begins_fails():
    text = '''
scenario "never" with 2 players:
    play setup
    move cards in seat 1's deck to seat 1's discard face up
    play until step "Score"
'''
    result = _run(text, "never")
    assert not result.ok
    assert result.failures[0].startswith(
        f"{_line('rehearsal_case.cards', text, 'play until step')}: play until step \"Score\" failed\n"
        "    the game ended before Score began")
    # a step the game does not have is found by the checker
    with pytest.raises(CardsmithError) as err:
        _game(text.replace('"Score"', '"Scoring"'))
    assert [(d.code, d.hint) for d in err.value.diagnostics] == [("E0218", "did you mean 'Score'?")]


def test_a_round_stopped_at_a_step_goes_on_from_there():
    text = '''
scenario "stop" with 2 players:
    play setup
    move cards in seat 1's hand to seat 1's deck face down
    move cards in seat 2's hand to seat 2's deck face down
    play until step "Reveal"
    flip cards in seat 2's shown face up
    play 1 round
'''
    result = _run(text, "stop")
    assert result.ok, result.failures
    kinds = [(e["event"], e["text"]) for e in result.log if e["event"] in ("step", "paused", "round")]
    assert kinds == [("round", "round 1: Show"), ("step", "step Draw begins"), ("step", "step Choose begins"),
                     ("paused", "the scenario stops before Reveal begins"), ("step", "step Reveal begins"),
                     ("step", "step Score begins")]


# ---------------------------------------------------------------- extends from a subfolder

def test_a_scenario_file_in_a_subfolder_extends_its_game_with_the_project_folder(tmp_path, capsys):
    project = tmp_path / "project"
    (project / "scenarios").mkdir(parents=True)
    (project / "rehearsal.cards").write_text(BASE, encoding="utf-8")
    beside = project / "scenarios" / "more.scenarios.cards"
    beside.write_text('extends "../rehearsal.cards"\n\nscenario "deal" with 2 players:\n    play setup\n'
                      '    expect count(cards in seat 2\'s deck) = 3\n', encoding="utf-8")
    with pytest.raises(CardsmithError) as err:
        load_game(str(beside))
    assert [d.code for d in err.value.diagnostics] == ["E0905"]
    assert "--root" in err.value.diagnostics[0].hint
    game = load_game(str(beside), root=str(project))
    assert run_scenario(game, "deal").ok
    # the folder named must hold the file; a subfolder of it is not enough to reach above it
    with pytest.raises(CardsmithError):
        load_game(str(beside), root=str(project / "scenarios"))
    # and never outside the folder named
    (tmp_path / "outside.cards").write_text(BASE, encoding="utf-8")
    beside.write_text('extends "../../outside.cards"\n', encoding="utf-8")
    with pytest.raises(CardsmithError) as err:
        load_game(str(beside), root=str(project))
    assert [d.code for d in err.value.diagnostics] == ["E0905"]
    beside.write_text('extends "../rehearsal.cards"\n\nscenario "deal" with 2 players:\n    play setup\n',
                      encoding="utf-8")
    assert main(["test", str(beside), "--root", str(project)]) == 0
    assert "1 passed, 0 failed" in capsys.readouterr().out
    assert main(["check", str(beside), "--root", str(project)]) == 0
    assert main(["check", str(beside)]) != 0
    assert "E0905" in capsys.readouterr().out


def test_the_cli_prints_each_reason_on_its_own_line(tmp_path, capsys):
    path = tmp_path / "case.cards"
    path.write_text(BASE + "\n" + EXPECTS, encoding="utf-8")
    assert main(["test", str(path)]) != 0
    out = capsys.readouterr().out.splitlines()
    at = next(i for i, line in enumerate(out) if "expect name of top card of seat 1's deck" in line)
    assert out[at + 1] == '          name of top card of seat 1\'s deck is "Three"'
    assert out[at + 2] == '          expected "Two"'
