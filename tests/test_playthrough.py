"""Golden playthrough (OpenSpiel style): a seeded 2-player random game of Space War, as text.

Each decision shows the deciding player, the prompt, the rule asking, the legal options and
the option applied; between decisions come the explained log lines (rule, then text). The
file keeps the first 400 events and the final result. Regenerate it after an intended change:

    UPDATE_GOLDEN=1 python -m pytest tests/test_playthrough.py
"""
from __future__ import annotations

import difflib
import os
from pathlib import Path

from cardsmith.interpreter.engine import Engine
from cardsmith.interpreter.play import default_agents

GOLDEN = Path(__file__).resolve().parent / "golden" / "space_war_2p_seed7.txt"
PLAYERS, SEED, MAX_EVENTS = 2, 7, 400


def playthrough(game, players: int, seed: int, max_events: int = MAX_EVENTS) -> str:
    """The game played by `default_agents(players, seed)`, written out as text."""
    eng = Engine(game, players, seed)
    agents = default_agents(players, seed)
    lines = [f"# {game.title}: {players} players, seed {seed}, default random agents "
             f"(RandomAgent(seed * 1000 + seat))",
             f"# first {max_events} events, then the result; regenerate with UPDATE_GOLDEN=1", ""]
    written = 0            # log events written so far
    decisions = 0

    def events_so_far():
        nonlocal written
        while written < len(eng.log) and written < max_events:
            e = eng.log[written]
            lines.append(f"{e['n']:>4} {e['rule']:<32} {e['text']}")
            written += 1

    while True:
        events_so_far()
        if eng.finished or written >= max_events:
            break
        d = eng.pending
        index = agents[d.player].choose(eng.view(d.player), d)
        decisions += 1
        lines.append(f"---- decision {decisions}: {eng.player_names[d.player]} at {d.rule}: {d.prompt}")
        lines.append("     options: " + " | ".join(f"{i}: {label}" for i, label in enumerate(d.options)))
        lines.append(f"     applied: {index}: {d.options[index]}")
        eng.decide(index)
    # play on to the end, unwritten, for the result line
    while not eng.finished:
        d = eng.pending
        eng.decide(agents[d.player].choose(eng.view(d.player), d))
    if len(eng.log) > written:
        lines.append(f"... {len(eng.log) - written} more events")
    r = eng.result
    winners = ", ".join(eng.player_names[w] for w in r["winners"]) or "nobody"
    lines.append(f"result: winners {winners}; draw {'yes' if r['draw'] else 'no'}; rounds {r['rounds']}; "
                 f"steps {r['steps']}; events {len(eng.log)}; reason {r['reason'] or '-'}")
    return "\n".join(lines) + "\n"


def test_space_war_two_player_playthrough_matches_the_golden_file(space_war):
    text = playthrough(space_war, PLAYERS, SEED)
    if os.environ.get("UPDATE_GOLDEN"):
        GOLDEN.parent.mkdir(exist_ok=True)
        GOLDEN.write_text(text, encoding="utf-8")
    assert GOLDEN.exists(), f"no golden file: run UPDATE_GOLDEN=1 pytest {Path(__file__).name}"
    golden = GOLDEN.read_text(encoding="utf-8")
    if text != golden:
        diff = "".join(difflib.unified_diff(golden.splitlines(True), text.splitlines(True),
                                            str(GOLDEN.name), "this run", n=2))
        raise AssertionError(f"the playthrough differs from {GOLDEN.name} "
                             f"(if intended: UPDATE_GOLDEN=1 pytest tests/test_playthrough.py):\n{diff[:6000]}")


def test_the_playthrough_shows_decisions_events_and_the_result(space_war):
    """The golden text is more than a log dump: decisions with their options, truncation, the end."""
    text = playthrough(space_war, PLAYERS, SEED)
    assert text == playthrough(space_war, PLAYERS, SEED)
    lines = text.splitlines()
    event_lines = [ln for ln in lines if ln[:5].strip().isdigit()]
    assert 0 < len(event_lines) <= MAX_EVENTS
    assert "---- decision 1: Player 1 " in text and "Choose your Faction" in text
    assert "     options: 0: Dwarves | 1: Elves" in text
    assert lines[-1].startswith("result: winners ")
    # another seed is another game
    assert playthrough(space_war, PLAYERS, SEED + 1) != text
