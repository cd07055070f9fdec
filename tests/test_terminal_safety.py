"""What reaches the terminal from a stranger's game (issue 8, part D).

* S3: escape sequences in a title, card names, `say` texts and prompts never reach the
  terminal raw, on any path (play, the human player's view and prompts, the result, simulate's
  summary, `cardsmith test`, `check`): one sanitiser, dsl/terminal.py.
* S4: the log printed to a person is that player's log (the engine's visibility rule), never
  the referee's: no name of a card their own view shows as hidden.
* The person's answers: ASCII digits only, bounded in length; the end of the input ends the
  game cleanly.
* `--log` never overwrites an input file, and keeps what was logged when a game aborts early.
* A scenario with a player count the game does not allow fails alone; the run goes on.
"""
from __future__ import annotations

import io
import json
import sys

import pytest

from cardsmith.dsl.diagnostics import Diagnostic
from cardsmith.dsl.loader import load_text
from cardsmith.dsl.render import render_diagnostic
from cardsmith.dsl.source import Span
from cardsmith.dsl.terminal import REPLACEMENT, for_terminal
from cardsmith.interpreter.agents import HumanAgent, InputEnded, format_view
from cardsmith.interpreter.cli import main
from cardsmith.interpreter.engine import Decision, Engine
from cardsmith.interpreter.play import run_game

CLEAR, TITLE, RTL = "\x1b[2J", "\x1b]0;pwned\x07", "\u202e"
EVIL = CLEAR + TITLE + RTL


def evil_game(evil: str = EVIL) -> str:
    return f'''game "Evil{evil}Game":
    players: 2 to 2

player has:
    side: Side = none

enum Side: light, dark

zone box: shared, hidden
zone hand: per player, owner only
zone pile: shared, public

card type Chip:
    v: number = 0

cards Chip in box:
    | name | copies |
    | "Chip{evil}A" | 2 |
    | "Chip{evil}B" | 2 |

setup:
    say "hello{evil}there"
    set seat 1's side to light
    move top card of box to seat 1's hand
    move top card of box to seat 1's hand
    move top card of box to pile face up

round "R":
    seat 1 chooses c from cards in seat 1's hand, prompt "Pick{evil}one"
    move c to pile face up
    seat 1 wins

scenario "Passes{evil}named" with 2 players:
    play setup
    expect count(cards in pile) = 1

scenario "Fails{evil}named" with 2 players:
    play setup
    expect count(cards in pile) = 2
'''


def assert_clean(text: str) -> None:
    """No control or bidi character at all: not ESC, not BEL, not the override."""
    bad = sorted({hex(ord(c)) for c in text if c != "\n" and not c.isprintable()})
    assert not bad, f"raw characters reached the terminal: {bad}"
    assert "\x1b" not in text and "\x07" not in text and RTL not in text


# ---------------------------------------------------------------- S3: the one sanitiser


@pytest.mark.parametrize("raw, shown", [
    ("Axe Pilot", "Axe Pilot"),
    ("caf\u00e9 \u2014 \u6f22\u5b57", "caf\u00e9 \u2014 \u6f22\u5b57"),     # printable text is kept
    ("a\x1b[2Jb", f"a{REPLACEMENT}[2Jb"),
    ("a\x1b]0;t\x07b", f"a{REPLACEMENT}]0;t{REPLACEMENT}b"),
    ("\u202eevil", f"{REPLACEMENT}evil"),
    ("two\nlines\r", f"two{REPLACEMENT}lines{REPLACEMENT}"),                 # no forged log line
    ("c1\x9bcsi\u2028sep\u200bzw", f"c1{REPLACEMENT}csi{REPLACEMENT}sep{REPLACEMENT}zw"),
    ("no\u00a0break", "no break"),
])
def test_the_sanitiser(raw, shown):
    assert for_terminal(raw) == shown
    assert len(for_terminal(raw)) == len(raw)          # one column each: carets stay aligned


def test_play_prints_no_escape_sequence(tmp_path, capsys):
    path = tmp_path / "evil.cards"
    path.write_text(evil_game(), encoding="utf-8")
    assert main(["play", str(path), "--seed", "1"]) == 0
    out = capsys.readouterr().out
    assert_clean(out)
    assert f"Evil{for_terminal(EVIL)}Game: 2 players" in out
    assert f"hello{for_terminal(EVIL)}there" in out and "wins after" in out


def test_the_human_player_sees_no_escape_sequence(tmp_path, monkeypatch, capsys):
    path = tmp_path / "evil.cards"
    path.write_text(evil_game(), encoding="utf-8")
    monkeypatch.setattr(sys, "stdin", io.StringIO("1\n"))
    assert main(["play", str(path), "--seed", "1", "--agent", "human"]) == 0
    out = capsys.readouterr().out
    assert_clean(out)
    assert f"Pick{for_terminal(EVIL)}one" in out and "Your zones:" in out


def test_the_rich_view_of_a_terminal_is_sanitised_too():
    class Terminal(io.StringIO):
        def isatty(self):
            return True
    game = load_text(evil_game(), path="evil.cards")
    eng = Engine(game, 2, 1)
    out = Terminal()
    agent = HumanAgent(input=io.StringIO("2\n"), output=out)
    d = eng.pending
    assert agent.choose(eng.view(d.player), d) == 1
    text = out.getvalue()
    # rich paints with its own escapes; none of the game's own may get through
    assert "\x1b[2J" not in text and "\x1b]0;" not in text and "\x07" not in text and RTL not in text


def test_the_result_line_is_sanitised(tmp_path):
    game = load_text(evil_game(), path="evil.cards")
    eng = run_game(game, 2, 1)
    eng.player_names[0] = "Ann" + EVIL              # names given by a caller are text too
    from cardsmith.interpreter.cli import describe_result
    assert_clean(describe_result(eng))


def test_simulate_summary_is_sanitised(tmp_path, capsys):
    path = tmp_path / "evil.cards"
    path.write_text(evil_game(), encoding="utf-8")
    assert main(["simulate", str(path), "-n", "3", "--jobs", "1", "--no-progress"]) == 0
    out = capsys.readouterr().out
    assert_clean(out)
    assert f"Evil{for_terminal(EVIL)}Game" in out


def test_cardsmith_test_output_is_sanitised(tmp_path, capsys):
    path = tmp_path / "evil.cards"
    path.write_text(evil_game(), encoding="utf-8")
    assert main(["test", str(path), "-v"]) == 1
    out = capsys.readouterr().out
    assert_clean(out)
    assert f"PASS  {path}: Passes{for_terminal(EVIL)}named" in out
    assert f"FAIL  {path}: Fails{for_terminal(EVIL)}named" in out


def test_check_sanitises_messages_and_hints_not_only_the_source_line(tmp_path, capsys):
    path = tmp_path / "evil.cards"
    path.write_text(evil_game().replace("    v: number = 0\n", "    v: number = 0\n    v: number = 1\n")
                    .replace('| "Chip' + EVIL + 'B" | 2 |', '| "Chip' + EVIL + 'A" | 2 |'), encoding="utf-8")
    assert main(["check", str(path)]) == 1
    out = capsys.readouterr().out
    assert_clean(out)
    d = Diagnostic("E0201", f"unknown zone '{EVIL}'", Span(f"x{EVIL}.cards", 1, 1, 1, 2), f"did you mean '{EVIL}'?",
                   (f"note {EVIL}",))
    assert_clean(render_diagnostic(d, {}))


# ---------------------------------------------------------------- S4: the player's own log

PEEK = '''game "Peek":
    players: 2 to 2

zone box: shared, hidden
zone hand: per player, owner only
zone table: per player, public
zone pile: shared, public

card type Chip:
    v: number = 0

cards Chip in box:
    | name  |
    | "Ant" |
    | "Bee" |
    | "Cat" |
    | "Dog" |
    | "Eel" |

setup:
    move first(cards in box where name = "Ant") to seat 2's hand
    move first(cards in box where name = "Bee") to seat 2's hand
    move first(cards in box where name = "Cat") to seat 1's hand
    move first(cards in box where name = "Dog") to seat 2's table
    move first(cards in seat 2's hand where name = "Ant") to box
    move first(cards in seat 2's hand) to seat 2's table
    flip cards in seat 2's table face up
    move first(cards in box where name = "Eel") to seat 2's table face down

round "Look":
    seat 1 chooses c from cards in seat 1's hand, prompt "Pick"
    seat 1 wins
'''


def test_the_log_a_player_reads_names_only_cards_their_view_shows():
    game = load_text(PEEK, path="peek.cards")
    eng = Engine(game, 2, 0)
    referee = [e["text"] for e in eng.log]
    seat1 = [e["text"] for e in eng.log_seen_by(0)]
    seat2 = [e["text"] for e in eng.log_seen_by(1)]
    assert referee[:6] == ["Ant from box to Player 2's hand", "Bee from box to Player 2's hand",
                           "Cat from box to Player 1's hand", "Dog from box to Player 2's table",
                           "Ant from Player 2's hand to box", "Bee from Player 2's hand to Player 2's table"]
    assert seat1 == [
        "a card from box to Player 2's hand",             # into another player's owner-only hand
        "a card from box to Player 2's hand",
        "Cat from box to Player 1's hand",                # into my own hand
        "a card from box to Player 2's table",            # face down (from a hidden box) into a public zone
        "a card from Player 2's hand to box",             # out of another player's hand, into a hidden zone
        "a card from Player 2's hand to Player 2's table",  # out of their hand, still face down
        "Dog is flipped face up",                         # seen once it is face up
        "Bee is flipped face up",
        "a card from box to Player 2's table face down",
        "round 1: Look",
        "Player 1 chooses Cat (Pick)",
        "Player 1 wins the game",
    ]
    assert seat2[:6] == ["Ant from box to Player 2's hand", "Bee from box to Player 2's hand",
                         "a card from box to Player 1's hand", "a card from box to Player 2's table",
                         "Ant from Player 2's hand to box", "Bee from Player 2's hand to Player 2's table"]
    # a redacted event keeps no data that would name the card
    hidden = eng.log_seen_by(0)[0]
    assert "Ant" not in json.dumps(hidden) and set(hidden) <= {"n", "round", "event", "rule", "step", "text", "player"}
    # and every name seat 1 reads is of a card its view showed just before or just after
    for line in seat1:
        assert not any(name in line for name in ("Ant", "Eel"))


def test_a_human_reads_the_stack_and_the_choice_of_a_card_from_a_hidden_hand_as_a_card(repo_root):
    from cardsmith.dsl.loader import load_game
    game = load_game(str(repo_root / "tests" / "games" / "counterspell_duel.cards"))
    eng = Engine(game, 2, 0)
    eng.decide(eng.pending.options.index("Bolt: Cast it"))
    mine = [e["text"] for e in eng.log_seen_by(0)]
    theirs = [e["text"] for e in eng.log_seen_by(1)]
    assert "Player 1 chooses Bolt: Cast it (Take an action?)" in mine
    assert "Player 1 chooses an action (Take an action?)" in theirs
    assert "Player 1 uses a card from Player 1's hand (on the stack, 1 deep)" in theirs
    assert not any("Bolt" in line for line in theirs)
    assert any("Bolt: Cast it (on the stack, 1 deep)" in line for line in mine)


def test_play_as_a_human_prints_that_players_log(tmp_path, monkeypatch, capsys):
    path = tmp_path / "peek.cards"
    path.write_text(PEEK.replace("seat 1 chooses c from cards in seat 1's hand",
                                 "seat 1 chooses c from [1, 2]"), encoding="utf-8")
    log = tmp_path / "peek.jsonl"
    monkeypatch.setattr(sys, "stdin", io.StringIO("1\n"))
    assert main(["play", str(path), "--seed", "1", "--agent", "human", "--log", str(log)]) == 0
    out = capsys.readouterr().out
    assert "a card from box to Player 2's hand" in out and "Cat from box to Player 1's hand" in out
    assert "Ant" not in out and "Eel" not in out
    assert "Ant from box to Player 2's hand" in log.read_text()       # the file is the referee's


# ---------------------------------------------------------------- the person's answers

def _decision(n: int = 3) -> Decision:
    return Decision(0, "Pick one", [f"option {i}" for i in range(1, n + 1)], "g.cards:1:1")


@pytest.mark.parametrize("answer", ["\u00b2", "\u0663", "\uff11", "1" * 5000, "9" * 20, "-1", "0", " "])
def test_odd_answers_are_asked_again_not_a_crash(answer):
    out = io.StringIO()
    agent = HumanAgent(input=io.StringIO(answer + "\n2\n"), output=out)
    assert agent.choose({}, _decision()) == 1
    assert "Please answer" in out.getvalue() or "too long" in out.getvalue()


def test_a_line_longer_than_the_bound_is_read_and_dropped_in_pieces():
    from cardsmith.dsl.bounds import MAX_ANSWER_CHARS

    class Counting(io.StringIO):
        most = 0

        def readline(self, size=-1):
            line = super().readline(size)
            Counting.most = max(Counting.most, len(line))
            return line
    agent = HumanAgent(input=Counting("3" * (50 * MAX_ANSWER_CHARS) + "\n3\n"), output=io.StringIO())
    assert agent.choose({}, _decision()) == 2
    assert Counting.most <= MAX_ANSWER_CHARS + 1


@pytest.mark.parametrize("stdin", [io.StringIO(""), None, "closed"])
def test_the_end_of_the_input_ends_the_game_cleanly(stdin):
    if stdin == "closed":
        stdin = io.StringIO("1\n")
        stdin.close()
    agent = HumanAgent(input=io.StringIO(), output=io.StringIO())
    agent.input = stdin
    with pytest.raises(InputEnded, match="no more input"):
        agent.choose({}, _decision())


def test_play_with_a_closed_stdin_ends_without_a_traceback(monkeypatch, capsys, repo_root):
    monkeypatch.setattr(sys, "stdin", None)
    code = main(["play", str(repo_root / "games" / "space_war_in_space.cards"), "--players", "2", "--seed", "1",
                 "--agent", "human"])
    err = capsys.readouterr().err
    assert code == 1 and "no more input" in err and "Traceback" not in err and "internal error" not in err


# ---------------------------------------------------------------- --log

def test_the_log_never_overwrites_the_game_file(tmp_path, capsys):
    path = tmp_path / "peek.cards"
    path.write_text(PEEK, encoding="utf-8")
    before = path.read_bytes()
    (tmp_path / "link.cards").symlink_to(path)
    for target in (path, tmp_path / "." / "peek.cards", tmp_path / "link.cards"):
        assert main(["play", str(path), "--seed", "1", "--log", str(target)]) == 1
        assert "would overwrite" in capsys.readouterr().err
        assert path.read_bytes() == before


def test_the_log_never_overwrites_an_included_file(tmp_path, capsys):
    (tmp_path / "rules.cards").write_text(PEEK, encoding="utf-8")
    (tmp_path / "variant.cards").write_text('extends "rules.cards"\n', encoding="utf-8")
    before = (tmp_path / "rules.cards").read_bytes()
    assert main(["play", str(tmp_path / "variant.cards"), "--seed", "1", "--log", str(tmp_path / "rules.cards")]) == 1
    assert "would overwrite" in capsys.readouterr().err
    assert (tmp_path / "rules.cards").read_bytes() == before


def test_a_game_aborted_before_its_first_decision_still_writes_its_log(tmp_path, capsys):
    path = tmp_path / "loop.cards"
    path.write_text('game "Loop":\n    players: 2 to 2\n\ngame has:\n    n: number = 0\n\n'
                    'setup:\n    say "starting"\n    repeat:\n        add 1 to n\n', encoding="utf-8")
    log = tmp_path / "loop.jsonl"
    assert main(["play", str(path), "--seed", "1", "--log", str(log), "--max-steps", "50"]) == 2
    captured = capsys.readouterr()
    events = [json.loads(line) for line in log.read_text().splitlines()]
    assert events[0]["text"] == "starting"
    assert events[-1]["event"] == "aborted" and events[-1]["code"] == "E0801"
    assert "    1  starting" in captured.out and "the game is aborted" in captured.out
    assert "error[E0801]" in captured.err and "50 steps" in captured.err


# ---------------------------------------------------------------- cardsmith test

def test_a_scenario_for_a_player_count_the_game_refuses_does_not_stop_the_run(tmp_path, capsys):
    bad = tmp_path / "bad.cards"
    bad.write_text(PEEK + '\nscenario "Too many" with 5 players:\n    play setup\n\n'
                   'scenario "Fine" with 2 players:\n    play setup\n    expect count(cards in box) = 1\n',
                   encoding="utf-8")
    good = tmp_path / "good.cards"
    good.write_text(PEEK + '\nscenario "Also fine" with 2 players:\n    play setup\n', encoding="utf-8")
    assert main(["test", str(bad), str(good)]) == 1
    captured = capsys.readouterr()
    assert "bad.cards:34:" in captured.err and "E0701" in captured.err     # located (the checker's)
    assert f"PASS  {good}: Also fine" in captured.out                       # the run went on
    assert captured.out.rstrip().endswith("1 passed, 0 failed, 1 file with errors")   # to its summary, counting the file it could not run


def test_test_has_max_steps(tmp_path, capsys):
    path = tmp_path / "loop.cards"
    path.write_text('game "Loop":\n    players: 2 to 2\n\ngame has:\n    n: number = 0\n\n'
                    'procedure spin():\n    repeat:\n        add 1 to n\n\n'
                    'scenario "Spins" with 2 players:\n    spin()\n', encoding="utf-8")
    assert main(["test", str(path), "--max-steps", "100"]) == 1
    out = capsys.readouterr().out
    assert "FAIL" in out and "within 100 steps" in out


def test_view_text_shows_the_stack_as_its_player_may_see_it(repo_root):
    from cardsmith.dsl.loader import load_game
    game = load_game(str(repo_root / "tests" / "games" / "counterspell_duel.cards"))
    eng = Engine(game, 2, 0)
    eng.decide(eng.pending.options.index("Bolt: Cast it"))
    assert "  Player 1: Bolt: Cast it" in format_view(eng.view(0))
    assert "  Player 1: a card from Player 1's hand" in format_view(eng.view(1))
