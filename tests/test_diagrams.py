"""The phase and zone diagrams (dsl/publish/diagrams.py): the DOT of the test game matches its
golden files, and `cardsmith diagram` draws (or says why it cannot). That every statement has a
walker, and every walker its statement, is checked by tests/test_registry.py."""
from __future__ import annotations

import difflib
import os
import re
import shutil
from pathlib import Path

import pytest

from cardsmith.dsl.loader import load_game, load_text
from cardsmith.dsl.publish import diagrams as D
from cardsmith.dsl.publish.layout import zone_label
from cardsmith.interpreter.cli import main

ROOT = Path(__file__).resolve().parents[1]
SIGNAL_FIRES = ROOT / "tests" / "games" / "signal_fires.cards"
SPACE_WAR = ROOT / "games" / "space_war_in_space.cards"
GOLDEN = ROOT / "tests" / "golden"
needs_dot = pytest.mark.skipif(shutil.which("dot") is None,
                               reason="Graphviz's 'dot' is not installed (Debian package 'graphviz')")


@pytest.mark.parametrize("kind", D.KINDS)
def test_signal_fires_dot_matches_the_golden_file(kind):
    text = D.dot_source(load_game(str(SIGNAL_FIRES)).decls, kind)
    golden = GOLDEN / f"signal_fires-{kind}.dot"
    if os.environ.get("UPDATE_GOLDEN"):
        golden.write_text(text, encoding="utf-8")
    assert golden.exists(), f"no golden file: run UPDATE_GOLDEN=1 pytest {Path(__file__).name}"
    expected = golden.read_text(encoding="utf-8")
    if text != expected:
        diff = "".join(difflib.unified_diff(expected.splitlines(True), text.splitlines(True),
                                            str(golden), "generated"))
        pytest.fail(f"the {kind} diagram changed (UPDATE_GOLDEN=1 to accept):\n{diff}")


def test_the_dot_is_deterministic(space_war):
    assert D.dot_source(space_war.decls, "phases") == D.dot_source(space_war.decls, "phases")
    assert D.dot_source(space_war.decls, "zones") == D.dot_source(space_war.decls, "zones")


def edges(dot: str) -> list[tuple[str, str, str]]:
    """(from label, to label, edge label) of every edge, by node labels."""
    labels = dict(re.findall(r'^\s*(n\d+|z_\w+) \[label=("[^"]*"|\S+)', dot, re.M))
    out = []
    for a, b, rest in re.findall(r"^\s*(\w+) -> (\w+)(.*)$", dot, re.M):
        m = re.search(r'label=("[^"]*"|[^ \]]+)', rest)
        out.append((labels.get(a, a).strip('"'), labels.get(b, b).strip('"'),
                    m.group(1).strip('"') if m else ""))
    return out


def test_space_war_phases_show_the_war_loop_and_the_battle_or_war_branch(space_war):
    dot = D.dot_source(space_war.decls, "phases")
    clusters = re.findall(r'subgraph cluster_\d+ \{\n\s*.*label="([^"]*)"', dot)
    assert "Round “Contest” — played again and again until the game ends" in clusters
    assert "Step “Battle or War”" in clusters and "Step “War”" in clusters
    es = edges(dot)
    # Battle: a single best player captures; War: otherwise
    assert any(lab.replace("\\n", " ") == "there is exactly one player in tied" and "Capture" in b for _, b, lab in es)
    assert any(a == "if" and lab == "otherwise" and "Eliminate" in b for a, b, lab in es)
    # the loop: back edge and the way out with its condition
    assert any(b.startswith("repeat until peace") and lab == "again" for _, b, lab in es)
    assert any(a.startswith("repeat until peace") and lab.startswith("when peace")
               for a, _, lab in es)
    # the round repeats, and the end checks lead to the end of the game
    assert any(lab == "next round" and b == "Step “Reveal”" for _, b, lab in es)
    assert sum(1 for _, b, _ in es if b == "game over") == 2


def test_response_windows_are_marked_where_they_open():
    game = load_text('''
game "Windows":
    players: 2 to 2
    summary: "x"
zone deck: per player
event played(card: card)
response window "Answers":
    "Anyone may answer a played card."
    opens after played, step_ended
    players answer in players
round "Round":
    step "Play":
        announce played(top card of first(players)'s deck)
    step "Rest":
        say "rest"
''')
    dot = D.dot_source(game.decls, "phases")
    hexagons = re.findall(r'\[label="response window “Answers”" [^\]]*shape=hexagon', dot)
    assert len(hexagons) == 3          # after the announce, and after each of the two steps


ANY_MOMENT = '''
game "Quick Steps":
    players: 2 to 2
    summary: "x"
zone deck: per player
zone hand: per player
game has:
    nights: number = 0
event played(card: card)
card type Trick:
    action "Wink" from hand, at any time:
        say "wink"
response window "Quick":
    "At any moment, the players may answer."
    opens at any moment
as soon as nights > 3:
    the game is a draw
round "Round":
    phase "Morning":
        step "Draw":
            move top card of first(players)'s deck to first(players)'s hand
        step "Play":
            announce played(top card of first(players)'s deck)
        step "Rest":
            say "rest"
    step "Night":
        add 1 to nights
'''


def test_a_window_open_at_any_moment_is_drawn_once_beside_the_flow():
    """`opens at any moment`: one hexagon saying when it opens, in its own dashed box, joined to
    nothing (an invisible edge only places it under the end checks), not one before each of the
    five steps and phases nor after the announce."""
    game = load_text(ANY_MOMENT)
    dot = D.dot_source(game.decls, "phases")
    hexagons = re.findall(r'^\s*(n\d+) \[label="response window “Quick”\\nopens as each step\\nbegins and after every\\nevent[^"]*"'
                          r'[^\]]*shape=hexagon', dot, re.M)
    assert len(hexagons) == 1 and dot.count("shape=hexagon") == 1
    assert re.search(r'label="At any moment: the response windows"[^\n]*style=dashed', dot)
    (h,) = hexagons
    ways = re.findall(rf"^\s*(\w+) -> (\w+)(.*)$", dot, re.M)
    touching = [rest for a, b, rest in ways if h in (a, b)]
    assert touching and all("style=invis" in rest for rest in touching)
    # the steps follow one another directly
    es = edges(dot)
    assert ("Step “Draw”", "Step “Play”", "") in es and ("Step “Play”", "Step “Rest”", "") in es
    # each part of a split diagram draws it once too
    for key, source, _ in D.phase_parts(game.decls):
        assert source.count("shape=hexagon") == 1, key


def test_space_war_zones_show_every_move_with_its_rule(space_war):
    es = {(a.split("\\n")[0], b.split("\\n")[0]): lab for a, b, lab in edges(D.dot_source(space_war.decls, "zones"))}
    z = {name: zone_label(space_war.decls, name) for name in space_war.decls.zones}     # display names
    assert es[("box", "deck")] == "setup"
    assert es[("box", z["powers"])] == "setup"
    assert es[(z["discard"], "deck")] == "Refill\\n“Regeneration”: when leader\\nvictory"
    assert "Capture" in es[("battlefield", z["discard"])]
    assert "step “War”" in es[("battlefield", z["aside"])]
    assert "Add face down" in es[("deck", "battlefield")] and "Reveal top" in es[("deck", "battlefield")]


def test_text_from_the_file_cannot_break_the_dot():
    game = load_text('''
game "Quote \\" and \\\\ backslash":
    players: 2 to 2
    summary: "x"
zone box: shared
zone pile: shared
round "Round \\"1\\"":
    step "A \\\\N step":
        move cards in box to pile
''')
    for kind in D.KINDS:
        dot = D.dot_source(game.decls, kind)
        if shutil.which("dot"):
            svg = D.to_svg(dot)
            assert svg and "<svg" in svg


# ---------------------------------------------------------------- the command


@needs_dot
@pytest.mark.parametrize("kind", D.KINDS)
def test_cardsmith_diagram_draws_an_svg(tmp_path, capsys, kind):
    out = tmp_path / "d" / f"{kind}.svg"
    assert main(["diagram", str(SPACE_WAR), "-o", str(out), "--kind", kind]) == 0
    svg = out.read_text(encoding="utf-8")
    assert svg.lstrip().startswith("<?xml") and "</svg>" in svg
    assert ("Battle or War" in svg) if kind == "phases" else ("battlefield" in svg)
    assert f"wrote {out}" in capsys.readouterr().out


def test_cardsmith_diagram_writes_dot_source_when_asked(tmp_path):
    out = tmp_path / "phases.dot"
    assert main(["diagram", str(SIGNAL_FIRES), "-o", str(out)]) == 0
    assert out.read_text(encoding="utf-8") == D.dot_source(load_game(str(SIGNAL_FIRES)).decls, "phases")


def test_without_graphviz_the_command_says_so_and_still_writes_the_dot(tmp_path, monkeypatch, capsys):
    monkeypatch.setenv("PATH", str(tmp_path / "empty"))       # no `dot` anywhere
    out = tmp_path / "phases.svg"
    assert main(["diagram", str(SIGNAL_FIRES), "-o", str(out)]) == 1
    err = capsys.readouterr().err
    assert "Graphviz is not installed" in err and "graphviz" in err
    assert not out.exists()
    assert (tmp_path / "phases.dot").read_text(encoding="utf-8").startswith("digraph phases {")


# ---------------------------------------------------------------- split for print, numbered flows


def test_a_split_phase_diagram_has_an_overview_and_one_part_per_step_with_a_flow(space_war):
    parts = D.phase_parts(space_war.decls)
    keys = [k for k, _, _ in parts]
    assert keys[0] == "overview"
    overview = parts[0][1]
    # every step is one box in the overview: no step cluster, no loop inside it
    clusters = re.findall(r'subgraph cluster_\d+ \{\n\s*.*label="([^"]*)"', overview)
    assert clusters and not any(c.startswith("Step") for c in clusters), clusters
    assert 'label="Step “Reveal”"' in overview and 'label="Step “Battle or War”"' in overview
    assert "repeat until" not in overview
    # "Battle or War" is the second step of the first round and has a loop inside: a part of its own;
    # "Reveal" runs straight through (for each player, no step inside) and "Conquest" is one line
    assert "r1-s2" in keys
    war = dict((k, src) for k, src, _ in parts)["r1-s2"]
    assert war.startswith("digraph phases {") and "repeat until" in war and "end of the step" in war
    assert 'label="Step “War”"' in war


def test_every_part_ends_where_its_step_ends(space_war):
    for key, src, _ in D.phase_parts(space_war.decls)[1:]:
        es = edges(src)
        assert any(b.startswith("end of the") for _, b, _ in es), key
        assert any(a == "start" for a, _, _ in es), key


def test_the_numbered_zone_diagram_lists_what_each_number_stands_for(space_war):
    zd = D.ZoneDiagram(space_war.decls, numbered=True)
    dot = zd.build().source
    flows = zd.flows()
    assert [i for i, *_ in flows] == list(range(1, len(flows) + 1))
    labelled = edges(dot)
    assert sorted(int(lab) for _, _, lab in labelled) == [i for i, *_ in flows]
    assert (flows[0][1], flows[0][2]) == ("box", "deck") and flows[0][3] == ["setup"]
    assert any(src == "battlefield" and dst == "discard" for _, src, dst, _ in flows)


def test_a_procedure_given_zones_moves_cards_between_those_zones():
    """`place(p, column)` called for each column of a defined list: its move is an arrow from
    the deck to each column, not one from nowhere."""
    game = load_game(str(ROOT / "games" / "battlefield_space.cards"))
    zd = D.ZoneDiagram(game.decls, numbered=True)
    zd.build()
    flows = {(src, dst): rules for _, src, dst, rules in zd.flows()}
    for column in ("left_column", "centre_column", "right_column"):
        assert "Place face down" in flows[("deck", column)]
        assert ("hand", column) in flows and (column, "graveyard") in flows
    assert not any(src == D.ELSEWHERE and "Settle" in rules for (src, _), rules in flows.items())


def test_a_procedure_called_from_a_procedure_is_one_box():
    """The round's procedure is drawn inline (a dashed box with its flow); a procedure it calls
    is one box, its call's sentence (MAX_INLINE_DEPTH): nested procedures would make the
    diagram too wide to print."""
    game = load_text('''
game "Nest":
    players: 2 to 2
player has:
    n: number = 0
procedure inner(p):
    repeat while p's n < 3:
        add 1 to p's n
procedure outer(p):
    repeat while p's n < 5:
        inner(p)
round "R":
    for each p in players:
        outer(p)
    first(players) wins
''', "nest.cards")
    dot = D.dot_source(game.decls, "phases")
    clusters = re.findall(r'subgraph cluster_\d+ \{\n\s*.*label="([^"]*)"', dot)
    assert "Outer (procedure)" in clusters
    assert "Inner (procedure)" not in clusters
    assert "repeat while their n is less than 3" not in dot.replace("\\n", " ")


def test_a_board_of_many_places_is_one_node_in_the_zone_diagram():
    """A board of more than MAX_ZONE_DIAGRAM_PLACES places is one node of the zone diagram
    (its own drawing shows the places); a move to one of its places ends at that node."""
    from cardsmith.dsl.publish.board import MAX_ZONE_DIAGRAM_PLACES
    n = 13
    assert MAX_ZONE_DIAGRAM_PLACES < n
    names = [f"p{i}" for i in range(1, n + 1)]
    game = load_text(f'''
game "Big Map":
    players: 2 to 2
board big "The big map":
    places: {", ".join(names)}
zone box: shared, hidden
card type Token:
    size: number = 1
cards Token in box:
    | name    | copies |
    | "Token" | 2      |
round "R":
    move top card of box to p{n} face up
    first(players) wins
''', "big.cards")
    dot = D.dot_source(game.decls, "zones")
    assert f"{n} places" in dot
    assert "z_p2 " not in dot and f"z_p{n} " not in dot and "z_p1 " in dot
    assert any(a == "z_box" and b == "z_p1" for a, b in re.findall(r"(z_\w+) -> (z_\w+)", dot))
