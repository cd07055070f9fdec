"""Issue 10, the rows "a table row can't carry an ability; no 'resolve this card's text'" and
"card fields of zone type can't be set (E0410); a define refuses a list of zones as argument".

The test games tests/games/windfalls.cards (abilities under table rows, `text:` and
`resolve the text of`) and tests/games/homing.cards (zone-valued fields and attributes,
defines given lists of zones) carry scenarios, run here; the tests below look at what
scenarios cannot: the AST and the cards built, the checker's errors, the runtime's located
errors, the log, the English of the rulebook, `explain` and `fmt`."""
from __future__ import annotations

from pathlib import Path

import pytest

from cardsmith.dsl import ast as A
from cardsmith.dsl import fmt
from cardsmith.dsl.diagnostics import CardsmithError
from cardsmith.dsl.loader import load_game, load_text
from cardsmith.dsl.publish import english as E
from cardsmith.interpreter import explain
from cardsmith.interpreter.engine import Engine
from cardsmith.interpreter.errors import GameAborted
from cardsmith.interpreter.play import run_game
from cardsmith.interpreter.scenario import run_scenario

GAMES = Path(__file__).resolve().parent / "games"
HEAD = 'game "T":\n    players: 2 to 2\n\nplayer has:\n    gold: number = 0\n\nzone box: shared\n'


def _scenarios():
    for stem in ("windfalls", "homing"):
        path = GAMES / f"{stem}.scenarios.cards"
        for s in load_game(str(path)).decls.scenarios:
            yield pytest.param(path, s.name, id=f"{stem}: {s.name}")


@pytest.mark.parametrize("path, name", list(_scenarios()))
def test_scenarios_of_the_test_games(path, name):
    result = run_scenario(load_game(str(path)), name)
    assert result.ok, "\n".join(result.failures)


@pytest.fixture(scope="module")
def windfalls():
    return load_game(str(GAMES / "windfalls.cards"))


@pytest.fixture(scope="module")
def homing():
    return load_game(str(GAMES / "homing.cards"))


def _errors(text: str) -> list:
    with pytest.raises(CardsmithError) as err:
        load_text(text, "t.cards")
    return err.value.diagnostics


def _codes(text: str) -> list[str]:
    return [d.code for d in _errors(text)]


# ------------------------------------------------------------------ abilities under table rows

def test_a_row_keeps_its_cells_and_carries_its_own_lines(windfalls):
    table = next(t for t in windfalls.decls.tables if t.type_name == "Event")
    windfall, levy, trickle, encore = table.rows
    assert [type(c) for c in windfall.cells] == [A.Text, A.Num, A.Num]
    assert windfall.docs == ("Gain 3 gold.",)
    assert [type(ab) for ab in windfall.abilities] == [A.CardText]
    assert trickle.abilities == () and trickle.docs == () and trickle.keywords == ()
    assert [k.name for k in encore.keywords] == ["Echo"]
    # the row's span runs from its first '|' to the end of the block under it, as a card block's
    assert (windfall.span.line, windfall.span.end_line) == (39, 42)
    assert trickle.span.line == trickle.span.end_line == 49


def test_every_copy_of_a_row_has_the_rows_abilities_and_the_types(windfalls):
    cards = {c.name: c for c in windfalls.cards}
    copies = [c for c in windfalls.cards if c.name == "Windfall"]
    assert len(copies) == 2
    event_type = windfalls.decls.card_types["Event"]
    for c in copies:
        assert c.abilities[:len(event_type.abilities)] == event_type.abilities
        assert any(isinstance(ab, A.CardText) and ab.span.line == 41 for ab, _ in c.bound)
    assert [type(ab) for ab, _ in cards["Trickle"].bound] == [A.CardText]        # the type's text only
    assert [type(ab) for ab, _ in cards["Patron"].bound] == [A.Triggered]
    assert [type(ab) for ab, _ in cards["Miser"].bound] == []


def test_an_ability_under_a_row_is_checked_as_a_card_blocks():
    text = (HEAD + "card type Unit:\n    power: number\n\ncards Unit in box:\n    | name | power |\n"
            '    | "A"  | 1     |\n        when moved where card = this:\n            add powr to your gold\n')
    (d,) = _errors(text)
    assert (d.code, d.span.line, d.message) == ("E0201", 15, "unknown name 'powr'")
    load_text(text.replace("powr", "power"), "t.cards")     # the type's field, by its bare name


def test_a_keyword_under_a_row_is_checked_and_counts_for_has_keyword():
    text = (HEAD + "zone camp: per player\n\nkeyword Swift:\n    modify power of this by 1\n\ncard type Unit:\n    power: number\n\n"
            'cards Unit in box:\n    | name | power |\n    | "A"  | 1     |\n        keyword Swift\n'
            '    | "B"  | 1     |\n\nsetup:\n    say "go"\n\nround "R":\n    seat 1 wins\n\n'
            'scenario "s":\n    expect count(cards in box where it has keyword Swift) = 1\n'
            '    let a be first(cards in box where it\'s name = "A")\n    move a to seat 1\'s camp\n'
            '    expect a.power = 2\n')
    game = load_text(text, "t.cards")
    assert run_scenario(game, "s").ok
    assert _codes(text.replace("keyword Swift\n    | \"B\"", "keyword Swfit\n    | \"B\"")) == ["E0213"]


def test_a_row_with_the_wrong_cells_is_reported_at_its_own_line():
    text = (HEAD + "card type Unit:\n    power: number\n\ncards Unit in box:\n    | name | power |\n"
            '    | "A" |\n        text:\n            say "a"\n')
    (d,) = _errors(text)
    assert (d.code, d.span.line) == ("E0506", 13)


# ------------------------------------------------------------------ the card's text and `resolve`

def test_which_text_a_card_resolves_its_own_then_a_keywords_then_its_types(windfalls):
    from cardsmith.interpreter.program import program_for
    prog = program_for(windfalls)
    by_name = {c.name: c.id for c in windfalls.cards}
    own, typ, kw = (prog.texts[by_name[n]] for n in ("Windfall", "Trickle", "Encore"))
    assert own.ability.span.line == 41 and typ.ability.span.line == 23 and kw.ability.span.line == 31
    assert own.label == "Windfall: text" and typ.label == "Event: text" and kw.label == "keyword Echo: text"
    assert by_name["Patron"] not in prog.texts
    # both copies of a row share one compiled text
    copies = [c.id for c in windfalls.cards if c.name == "Windfall"]
    assert prog.texts[copies[0]] is prog.texts[copies[1]]


def test_resolving_is_logged_with_the_player_it_runs_for(windfalls):
    eng = run_game(windfalls, 2, seed=3)
    said = [e for e in eng.log if e["event"] == "resolve_text"]
    assert said, "a seeded game plays an event"
    assert all(e["text"].startswith(("Player 1 resolves the text of ", "Player 2 resolves the text of "))
               for e in said)
    assert {"Levy", "Windfall", "Encore"} <= {e["card"] for e in said}


def test_random_games_end_and_replay_byte_for_byte(windfalls):
    for seed in range(20):
        a, b = run_game(windfalls, 2, seed=seed), run_game(windfalls, 2, seed=seed)
        assert a.finished and a.log == b.log


def test_two_texts_in_one_place_are_refused():
    text = (HEAD + "card type Event:\n    cost: number = 0\n\ncards Event in box:\n    | name |\n    | \"A\" |\n"
            "        text:\n            say \"a\"\n        text:\n            say \"b\"\n")
    (d,) = _errors(text)
    assert (d.code, d.span.line) == ("E0510", 16) and "line 14" in d.message
    assert _codes(HEAD + "card type Event:\n    text:\n        say \"a\"\n    text:\n        say \"b\"\n") == ["E0510"]


def test_a_type_text_and_a_cards_own_text_are_not_two_texts():
    text = (HEAD + "card type Event:\n    text:\n        add 1 to your gold\n\n"
            "card \"Big\": Event in box\n    text:\n        add 5 to your gold\n\n"
            "cards Event in box:\n    | name    |\n    | \"Small\" |\n\nsetup:\n    say \"go\"\n\n"
            "round \"R\":\n    seat 1 wins\n\n"
            "scenario \"s\":\n    resolve the text of first(cards in box where it's name = \"Big\") for seat 1\n"
            "    resolve the text of first(cards in box where it's name = \"Small\") for seat 2\n"
            "    expect seat 1's gold = 5\n    expect seat 2's gold = 1\n")
    assert run_scenario(load_text(text, "t.cards"), "s").ok


def test_resolve_where_no_card_has_a_text_is_refused():
    text = (HEAD + "card type Unit:\n    power: number = 1\n\ncards Unit in box:\n    | name |\n    | \"A\"  |\n\n"
            "setup:\n    resolve the text of first(cards in box)\n")
    (d,) = _errors(text)
    assert (d.code, d.span.line) == ("E0440", 16) and "no card of this game" in d.message


def test_resolve_this_in_a_type_whose_cards_have_no_text_is_refused():
    text = (HEAD + "card type Event:\n    text:\n        say \"e\"\n\ncard type Unit:\n"
            "    when moved where card = this:\n        resolve the text of this\n")
    (d,) = _errors(text)
    assert d.code == "E0440" and "no Unit card" in d.message


def test_resolve_takes_one_card_and_a_player():
    base = HEAD + "card type Event:\n    text:\n        say \"e\"\n\nsetup:\n"
    (d,) = _errors(base + "    resolve the text of cards in box\n")
    assert d.code == "E0409" and "for each c in" in d.hint
    (d,) = _errors(base + "    resolve the text of first(cards in box) for 3\n")
    assert d.code == "E0408"
    assert _codes(base + "    resolve the text of none\n") == ["E0414"]


def _game_resolving(card: str) -> str:
    return (HEAD + "card type Event:\n    text:\n        add 1 to your gold\n\ncard type Unit:\n    power: number = 1\n\n"
            "cards Unit in box:\n    | name   |\n    | \"Rock\" |\n\ncards Event in box:\n    | name  |\n    | \"Tip\" |\n\n"
            f"setup:\n    resolve the text of {card} for seat 1\n\nround \"R\":\n    seat 1 wins\n")


def test_a_card_without_a_text_stops_the_game_at_the_statement():
    game = load_text(_game_resolving("first(cards in box where it's name = \"Rock\")"), "t.cards")
    with pytest.raises(GameAborted) as err:
        Engine(game, 2, seed=0)
    d = err.value.diagnostics[0]
    assert d.code == "E0802" and d.span.line == 24 and "Rock has no text to resolve" in d.message


def test_no_card_stops_the_game_at_the_statement():
    game = load_text(_game_resolving("first(cards in box where it's name = \"Nobody\")"), "t.cards")
    with pytest.raises(GameAborted) as err:
        Engine(game, 2, seed=0)
    d = err.value.diagnostics[0]
    assert d.code == "E0802" and d.span.line == 24 and "none" in d.message


def test_a_blank_text_does_nothing_and_the_log_says_so():
    text = (HEAD + "card type Event:\n    side: number = 0\n    text is blank unless your gold > 0\n    text:\n"
            "        add 5 to your gold\n\ncards Event in box:\n    | name  |\n    | \"Tip\" |\n\n"
            "setup:\n    resolve the text of first(cards in box) for seat 1\n    add 1 to seat 2's gold\n"
            "    resolve the text of first(cards in box) for seat 2\n\nround \"R\":\n    seat 1 wins\n")
    eng = Engine(load_text(text, "t.cards"), 2, seed=0)
    assert [p["gold"] for p in eng.state.players] == [0, 6]
    blank = [e for e in eng.log if e["event"] == "blank_text"]
    assert [e["text"] for e in blank] == ["Tip: its text is blank for Player 1; nothing happens"]


def test_a_text_that_asks_a_question_can_be_saved_and_restored(windfalls):
    text = (HEAD + "card type Event:\n    text:\n        you may \"Take 2 gold?\":\n            add 2 to your gold\n\n"
            "cards Event in box:\n    | name  |\n    | \"Tip\" |\n\nsetup:\n    resolve the text of first(cards in box) for seat 2\n\n"
            "round \"R\":\n    seat 1 wins\n")
    game = load_text(text, "t.cards")
    eng = Engine(game, 2, seed=0)
    assert eng.pending.player == 1 and eng.pending.prompt == "Take 2 gold?"
    again = Engine.restore(game, eng.save_json())
    for e in (eng, again):
        e.decide(e.pending.options.index("yes"))
        assert e.state.players[1]["gold"] == 2
    assert eng.log[-3:] == again.log[-3:]


# ------------------------------------------------------------------ English, explain, fmt

def test_the_rulebook_says_resolve_and_the_text(windfalls):
    ctx = E.make_ctx(windfalls.decls, param_types=E.param_types(windfalls.decls))
    proc = windfalls.decls.procedures["play_card"]
    said = E.plain(E.flatten(E.describe_block(proc.body, E.params_ctx(ctx, proc.name, proc.params))))
    assert "The player resolves the text of c: they do what it says." in said
    windfall = next(c for c in windfalls.cards if c.name == "Windfall")
    effect = E.card_effect_text(windfalls, windfall)
    assert effect.startswith("Text (what the card does when it is resolved):") and "3" in effect
    trickle = next(c for c in windfalls.cards if c.name == "Trickle")
    assert E.card_effect_text(windfalls, trickle) == ""          # the type's text is the type's, not the card's
    patron = next(c for c in windfalls.cards if c.name == "Patron")
    assert "When" in E.card_effect_text(windfalls, patron)


def test_the_card_reference_prints_a_rows_doc_string_and_its_text(windfalls):
    from cardsmith.dsl.publish.rulebook import build_book
    book = build_book(windfalls)
    def sections(secs):
        for sec in secs:
            yield sec
            yield from sections(sec.sections)
    entries = {e.name: e for sec in sections(book.chapters) for b in sec.blocks if b.kind == "cards" for e in b.items}
    assert entries["Windfall"].text.startswith("Gain 3 gold.")
    assert "Keyword Echo" in entries["Encore"].text


def test_explain_lists_a_rows_text_and_its_instructions(windfalls):
    rules = explain.rules(windfalls)
    (part,) = rules['"Windfall".2']
    assert part.title.endswith(": text") and part.code is not None
    listing = "\n".join(explain.listing(windfalls, part))
    assert "add" in listing
    (levy,) = rules['"Levy".2']
    assert levy.code is not None and levy.code.name == "Levy: text"


def test_fmt_aligns_a_table_across_the_blocks_under_its_rows():
    text = (HEAD + "card type Event:\n    cost: number = 0\n\ncards Event in box:\n    | name | cost |\n"
            "    | \"Windfall\" | 0 |\n        text:\n            add 3 to your gold\n    | \"Tip\" | 1 |\n")
    out = fmt.format_text(text, "t.cards")
    assert "    | name       | cost |\n    | \"Windfall\" | 0    |\n        text:\n" in out
    assert "    | \"Tip\"      | 1    |\n" in out
    assert fmt.format_text(out, "t.cards") == out


# ------------------------------------------------------------------ values that are zones

def test_zone_fields_and_attributes_can_be_set_a_players_zone_cannot():
    base = (HEAD + "zone camp: per player\n\nplayer has:\n    base: zone\n\ncard type W:\n    home: zone = box\n\n"
            "setup:\n    let c be first(cards in box)\n")
    load_text(base + "    set c's home to seat 1's camp\n    set seat 2's base to seat 2's camp\n"
              "    set c.home to box\n", "t.cards")
    (d,) = _errors(base + "    set seat 1's camp to box\n")
    assert d.code == "E0410" and d.message == "a zone cannot be set"
    (d,) = _errors(base + "    set c's home to 3\n")
    assert d.code == "E0408" and "zone" in d.message


def test_your_zone_cannot_be_set_but_your_zone_attribute_can():
    base = (HEAD + "zone camp: per player\n\nplayer has:\n    base: zone\n\ncard type W:\n"
            "    when moved where card = this:\n")
    load_text(base + "        set your base to your camp\n", "t.cards")
    assert _codes(base + "        set your camp to box\n") == ["E0410"]


def test_a_zone_cell_or_default_names_a_shared_zone():
    base = HEAD + "zone camp: per player\n\ncard type W:\n    home: zone\n\ncards W in box:\n    | name | home |\n"
    load_text(base + '    | "A"  | box  |\n    | "B"  |      |\n', "t.cards")
    (d,) = _errors(base + '    | "A"  | camp |\n')
    assert d.code == "E0511" and "one zone per player" in d.message
    (d,) = _errors(base + '    | "A"  | bx   |\n')
    assert d.code == "E0511" and d.hint == "did you mean 'box'?"


def test_a_zone_set_while_playing_is_logged_and_said(homing):
    eng = run_game(homing, 2, seed=2)
    texts = [e["text"] for e in eng.log]
    assert "Player 1's base becomes Player 1's camp" in texts
    assert any(t.endswith("'s home becomes Player 1's road") for t in texts)
    ctx = E.make_ctx(homing.decls, param_types=E.param_types(homing.decls))
    said = E.plain(E.flatten(E.describe_block(homing.decls.setup.body, ctx)))
    assert "Set their base zone to their camp." in said


def test_a_define_given_a_list_of_zones_may_join_it_to_a_list():
    text = (HEAD + "zone camp: per player\n\ncard type W:\n    home: zone\n\ncards W in box:\n    | name | copies |\n"
            "    | \"A\"  | 3      |\n\ndefine with_box(zs) as zs + [box]\ndefine held(zs) as count(cards in zs)\n"
            "define twice(n) as n + n\n\nsetup:\n    move top card of box to seat 1's camp\n\nround \"R\":\n    seat 1 wins\n\n"
            "scenario \"s\":\n    play setup\n    expect held(with_box(every camp)) = 3\n    expect count(with_box([])) = 1\n"
            "    expect twice(2) = 4\n")
    assert run_scenario(load_text(text, "t.cards"), "s").ok
    # a parameter added to a number is still a number: a text is refused where it is given
    diags = _errors(text.replace("expect twice(2) = 4", "expect twice(\"x\") = 4"))
    assert {d.code for d in diags} == {"E0408"} and {d.span.line for d in diags} == {19}
