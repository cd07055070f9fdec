"""The rules in English (dsl/publish/english.py): the sentences read like a rulebook, and they
follow the code they describe. That every AST node has its sentence, and every sentence its node,
is checked with every other handler by tests/test_registry.py."""
from __future__ import annotations

import re
import typing
from pathlib import Path

import pytest

from cardsmith.dsl import ast as A
from cardsmith.dsl.checks import declarations
from cardsmith.dsl.diagnostics import DiagnosticSink
from cardsmith.dsl.loader import load_game, load_text
from cardsmith.dsl.parser import parse
from cardsmith.dsl.publish import english as E
from cardsmith.dsl.source import Source
from cardsmith.dsl.transformer import to_ast

ROOT = Path(__file__).resolve().parents[1]
NODE_UNIONS = {"Expr": A.Expr, "Stmt": A.Stmt, "Ability": A.Ability}


def node_classes() -> list[type]:
    return [cls for union in NODE_UNIONS.values() for cls in typing.get_args(union)]


# ---------------------------------------------------------------- a node without its sentence


def test_a_node_without_a_describer_is_an_error_not_a_silent_gap():
    class NotANode:
        pass
    with pytest.raises(KeyError, match="no English describer for NotANode"):
        E.describe(NotANode(), E.make_ctx())


# ---------------------------------------------------------------- sentences, in a game

GAME = '''
game "Test":
    players: 2 to 4
    summary: "A test."

enum Faction: Dwarves, Elves
enum Side: inactive, active

player has:
    faction: Faction = none
    bonus: number = 0, at least 0

game has:
    peace_declared: flag = no

zone box: shared, hidden
zone deck: per player, ordered, hidden
zone discard: per player, ordered, public
zone battlefield: per player, ordered, public
zone hand: per player, unordered, owner only

card type Unit:
    faction: Faction
    strength: number, at least 1

card type Power:
    side: Side = inactive

cards Unit in box:
    | name    | faction | strength |
    | "Scout" | Dwarves | 1        |
    | "Elf"   | Elves   | 2        |

event battle_won(winner: player, card: card) "After winning a battle."

die Six: [pip], [pip, pip]

define cards_left(p) as count(cards in p's deck) + count(cards in p's discard)
define strength(p) as (top card of p's battlefield).strength + p's bonus

procedure reveal_top(p):
    move top card of p's deck to p's battlefield face up

procedure capture(w):
    "The Winner captures every card."
    let winning_card be top card of w's battlefield
    move cards in every battlefield to w's discard face up
    announce battle_won(w, winning_card)

procedure flip_to(power, new_side):
    set power.side to new_side

procedure subject(fighters, face_down, taken):
    STATEMENT

setup:
    for each p in players:
        reveal_top(p)
    for each p in players:
        capture(p)
    flip_to(first(cards in box where it is a Power), active)
    subject(players, 2, [Dwarves])
'''


def sentences(statement: str) -> list[str]:
    """The English lines (flattened, plain) of `statement` inside a procedure of GAME whose
    parameters are fighters (players), face_down (a number) and taken (factions)."""
    body = "\n    ".join(statement.strip().split("\n"))
    game = load_text(GAME.replace("STATEMENT", body))
    ctx = E.make_ctx(game.decls, param_types=E.param_types(game.decls))
    proc = game.decls.procedures["subject"]
    lines = E.describe_block(proc.body, E.params_ctx(ctx, "subject", proc.params))

    def walk(ls, depth=0):
        for ln in ls:
            yield "  " * depth + E.plain(ln.text)
            yield from walk(ln.children, depth + 1)
    return list(walk(lines))


CASES = [
    ("for each p in players:\n    move top card of p's deck to p's battlefield face up",
     ["For each player, in seat order:", "  Move the top card of their deck to their battlefield, face up."]),
    ("move cards in box where it is a Unit and faction = Dwarves to first(players)'s deck face down",
     ["Move the Units in the box whose faction is Dwarves to the deck of the first player in seat order still "
      "in the game, face down."]),
    ("let best be highest(strength(p) for each p in fighters)",
     ["Let best be the highest strength among fighters."]),
    ("let tied be fighters where strength(it) = 3",
     ["Let tied be fighters whose strength is 3."]),
    ("eliminate fighters where cards_left(it) = 0",
     ["Eliminate fighters whose cards left is 0: they are out of the game."]),
    ("let n be lowest([face_down + 1, 10])", ["Let n be the lower of face down plus 1 and 10."]),
    ("first(fighters) chooses f from Faction where it is not in taken, prompt \"Choose your Faction\"",
     ["The first player in fighters chooses one of the Factions not in taken (“Choose your Faction”)."]),
    ("repeat until peace_declared:\n    stop",
     ["Until the game is marked “peace declared”, repeat:", "  Stop repeating."]),
    ("if count(fighters) = 1:\n    capture(first(fighters))\nelse:\n    the game is a draw",
     ["If there is exactly one player in fighters:", "  Capture for the first player in fighters.", "Otherwise:",
      "  The game ends in a draw."]),
    ("repeat:\n    if fighters is empty:\n        stop",
     ["Repeat the following until told to stop:", "  If there are no fighters:", "    Stop repeating."]),
    ("shuffle first(fighters)'s deck", ["Shuffle the deck of the first player in fighters."]),
    ("roll face_down Six dice as r", ["Roll face down Six dice; call the faces rolled r."]),
    ("say \"War!\"", ["Tell the players: “War!”"]),
    ("each player in players secretly chooses c from cards in your hand, prompt \"Pick\":\n"
     "    move c to your discard face down",
     ["Each player secretly chooses one of the cards in their hand (“Pick”). When everyone has chosen, "
      "the choices are revealed together; then, for each player in turn:",
      "  Move the chosen card to their discard, face down."]),
    ("for each p in fighters:\n    turn of p:\n        step \"Draw\":\n            reveal_top(p)",
     ["For each player in fighters:", "  The player takes a turn: while it lasts, the player is the active player.",
      "    Step “Draw”:", "      Move the top card of their deck to their battlefield, face up."]),
    ("repeat face_down times:\n    add 1 to first(fighters)'s bonus",
     ["Do the following face down times:", "  Add 1 to the bonus of the first player in fighters."]),
    ("set peace_declared to yes", ["Now the game is marked “peace declared”."]),
    ("subtract 3 from first(fighters)'s bonus", ["Subtract 3 from the bonus of the first player in fighters."]),
    ("skip step \"Play\"", ["Skip the next step “Play” of this round."]),
    ("first(fighters) wins", ["The first player in fighters wins the game."]),
    ("flip cards in every battlefield face up", ["Turn the cards in every player's battlefield face up."]),
    ("announce battle_won(first(fighters), top card of box)",
     ["Announce “battle won”: its winner is the first player in fighters and its card is the top card of the box."]),
    # a value of each of one player's zones, said once
    ("let n be count(cards in first(fighters)'s deck) + count(cards in first(fighters)'s discard)",
     ["Let n be the number of cards in the first player in fighters' deck and discard together."]),
    ("let zs be [first(fighters)'s deck, first(fighters)'s discard, box]",
     ["Let zs be the first player in fighters' deck and discard, and the box."]),
    # a small procedure reads as the rule it is, its parameters said as the arguments
    ("flip_to(first(cards in box where it is a Power), active)",
     ["Flip to for the first card in the Powers in the box (the power) and active (the new side)."]),
    ("flip_to(first(cards in box where it is a Power), active)\nflip_to(first(cards in box), inactive)",
     ["Flip to for the first card in the Powers in the box (the power) and active (the new side).",
      "Flip to for the first card in the box (the power) and inactive (the new side)."]),
    ("if count(players) = 1:\n    first(players) wins",
     ["If only one player is left in the game:", "  The first player in seat order still in the game wins the game."]),
    ("first(fighters) chooses c from cards in box where it is a Unit\nif c is not none:\n    move c to box",
     ["The first player in fighters chooses one of the Units in the box.", "If a Unit was chosen:",
      "  Move the chosen Unit to the box."]),
    ("for each u in cards in box where u is a Unit:\n    move u to box",
     ["For each Unit u in the box:", "  Move u to the box."]),
    ("if not peace_declared:\n    set peace_declared to no",
     ["If the game is not marked “peace declared”:", "  Now the game is not marked “peace declared”."]),
]


@pytest.mark.parametrize("statement, expected", CASES, ids=[c[0].split("\n")[0][:40] for c in CASES])
def test_statements_read_like_a_rulebook(statement, expected):
    assert sentences(statement) == expected


def test_names_the_rules_give_are_marked_for_emphasis_and_text_from_the_file_is_not():
    game = load_text(GAME.replace("STATEMENT", 'let best be "*x* \x0eforged\x0f"'))
    ctx = E.make_ctx(game.decls)
    proc = game.decls.procedures["subject"]
    [line] = E.describe_block(proc.body, E.params_ctx(ctx, "subject", proc.params))
    assert line.text == f"Let {E.EM_OPEN}best{E.EM_CLOSE} be \u201c*x* forged\u201d."


def test_abilities_are_described_with_their_event_and_condition():
    game = load_game(str(ROOT / "games" / "space_war_in_space.cards"))
    ctx = E.make_ctx(game.decls, param_types=E.param_types(game.decls))
    peace = next(c for c in game.decls.cards if c.name == "Peace")
    text = E.plain(E.flatten([E.describe(peace.abilities[1], E.ability_ctx(ctx, "Power"))]))
    assert text.startswith("When “before battle” happens, if this card's side is active, you are in the "
                           "fighters and peace has not been declared: You may choose to do this (“Trigger Peace: "
                           "call this Contest off?”); if so:")
    assert text.endswith("Now peace has been declared. Set this card's side to inactive.")   # flip_to, read in place
    assert "If the player is still in the game: Move the cards in their battlefield to the bottom of " \
           "their deck, face down." in text


def test_a_define_of_a_player_reads_as_a_definition():
    game = load_game(str(ROOT / "games" / "space_war_in_space.cards"))
    ctx = E.make_ctx(game.decls, param_types=E.param_types(game.decls))
    text = E.describe_define(game.decls.defines["strength"], ctx)
    assert text == "A player's strength is the Strength of the top card of their battlefield plus their bonus."


def test_when_the_code_of_a_rule_changes_its_text_changes():
    before = sentences("for each p in players:\n    move top card of p's deck to p's battlefield face up")
    after = sentences("for each p in players:\n    move top card of p's deck to p's hand face down")
    assert before != after
    assert after[-1] == "  Move the top card of their deck to their hand, face down."


# ---------------------------------------------------------------- every construct of the grammar

DOC = ROOT / "docs" / "language.md"
FENCE = re.compile(r"^```cards ?(\w*)\n(.*?)^```", re.S | re.M)


def wrap(kind: str, text: str) -> str:
    def indented(t: str) -> str:
        return "\n".join(("    " + ln) if ln.strip() else "" for ln in t.split("\n"))
    if kind == "ability":
        return "card type Example:\n" + indented(text) + "\n"
    if kind == "statements":
        return "procedure example():\n" + indented(text) + "\n"
    if kind == "expression":
        exprs = [ln.strip() for ln in text.split("\n") if ln.strip() and not ln.strip().startswith("#")]
        return "".join(f"define example_{n}() as {e}\n" for n, e in enumerate(exprs))
    return text + "\n"


def doc_examples():
    return [(i, kind, text) for i, (kind, text) in enumerate(FENCE.findall(DOC.read_text(encoding="utf-8")))]


def describe_module(text: str) -> tuple[list[str], set[str]]:
    """Every sentence of every rule in a (possibly partial) file, and the node classes met."""
    tree, diags = parse(Source("example.cards", text))
    assert tree is not None, [d.message for d in diags]
    module = to_ast(tree, "example.cards", text)
    d = declarations(module, DiagnosticSink())
    ctx = E.make_ctx(d, param_types=E.param_types(d))
    out: list[str] = []
    seen: set[str] = set()

    def note(node) -> None:
        if hasattr(node, "__dataclass_fields__"):
            seen.add(type(node).__name__)
            for name in node.__dataclass_fields__:
                note(getattr(node, name))
        elif isinstance(node, tuple):
            for x in node:
                note(x)

    def walk(lines):
        for ln in lines:
            out.append(ln.text)
            walk(ln.children)
    for decl in module.decls:
        note(decl)
    for p in d.procedures.values():
        walk(E.describe_block(p.body, E.params_ctx(ctx, p.name, p.params)))
    for de in d.defines.values():
        out.append(E.describe_define(de, ctx))
    for ct in d.card_types.values():
        walk([E.describe(ab, E.ability_ctx(ctx, ct.name)) for ab in ct.abilities])
    for cd in d.cards:
        walk([E.describe(ab, E.ability_ctx(ctx, cd.type_name)) for ab in cd.abilities])
    for kw in d.keywords.values():
        kctx = E.params_ctx(ctx, kw.name, [p.name for p in kw.params])
        walk([E.describe(ab, E.ability_ctx(kctx, None)) for ab in kw.abilities])
    for body in ([d.setup.body] if d.setup else []) + [r.body for r in d.rounds] + \
            [ec.body for ec in d.end_checks] + [s.body for s in d.scenarios]:
        walk(E.describe_block(body, ctx.child()))
    if d.trigger_order:
        out += [E.describe_order_key(k, ctx) for k in d.trigger_order.keys]
    return out, seen


@pytest.mark.parametrize("index, kind, text", doc_examples(), ids=lambda x: str(x) if isinstance(x, int) else None)
def test_every_example_of_the_language_reference_has_english(index, kind, text):
    lines, _ = describe_module(wrap(kind, text))
    for line in lines:
        assert line.strip(), "an empty sentence"
        assert not re.search(r"\b(None|Name\(|Call\(|span=)", line), f"code leaked into the English: {line}"
        said = E.plain(line)
        machine = re.search(r"\bis (?:yes|no)(?=[,.:;)]| and | or |$)|\bnone\b|'s can\b|\(checked before each time\)"
                            r"|\b(?:opponent|player)s's\b|\bwith\b[^.:;()]*\bas \x0e", line)
        assert not machine, f"machine English ({machine.group(0)!r}): {said}"


def test_the_examples_cover_every_statement_and_expression():
    """So the test above really exercises every describer (the reference shows every construct)."""
    seen: set[str] = set()
    for _, kind, text in doc_examples():
        seen |= describe_module(wrap(kind, text))[1]
    missing = sorted(c.__name__ for c in node_classes() if c.__name__ not in seen)
    assert not missing, f"docs/language.md has no example of: {missing}"


# ---------------------------------------------------------------- display names, flags, sentence planning

LABELLED = '''
game "Labels":
    players: 2 to 2

enum Race: KTotekk "K'Totekk", Vorn
zone pile "Survivors pile": per player, ordered, public
zone deck: per player, ordered, hidden
zone box: shared, hidden

player has:
    ready "is ready to fight": flag = no
    can_draw: flag = no

game has:
    peace_declared "peace has been declared": flag = no
    tie_break: flag = no

card type Ship:
    race: Race
    leader "a Race Leader": flag = no
    boost "'+1 Force'": flag = no
    force: number = 0
    marked: flag = no
    when revealed where card = this and leader:
        set peace_declared to yes
    modify force of cards in zone of this where it is a Ship and race = this.race and it is not this by 1 while boost

cards Ship in box:
    | name         | race    | leader | boost |
    | "Striker"    | KTotekk | yes    |       |
    | "Tender"     | Vorn    |        | yes   |
    | "Picket"     | Vorn    |        |       |

define able(p) as p's deck is not empty
define can_play(p) as p's pile is not empty or p's deck is not empty

procedure crown(s, r):
    set s.marked to r

procedure subject(p):
    STATEMENT

setup:
    for each p in players:
        subject(p)
'''


def labelled(statement: str) -> list[str]:
    body = "\n    ".join(statement.strip().split("\n"))
    game = load_text(LABELLED.replace("STATEMENT", body))
    ctx = E.make_ctx(game.decls, param_types=E.param_types(game.decls))
    proc = game.decls.procedures["subject"]
    lines = E.describe_block(proc.body, E.params_ctx(ctx, "subject", proc.params))

    def walk(ls, depth=0):
        for ln in ls:
            yield "  " * depth + E.plain(ln.text)
            yield from walk(ln.children, depth + 1)
    return list(walk(lines))


LABELLED_CASES = [
    ("if p's ready:\n    the game is a draw", ["If the player is ready to fight:", "  The game ends in a draw."]),
    ("if not p's ready:\n    the game is a draw", ["If the player is not ready to fight:", "  The game ends in a draw."]),
    ("if p's can_draw = yes:\n    the game is a draw", ["If the player is marked “can draw”:", "  The game ends in a draw."]),
    ("repeat until peace_declared:\n    stop", ["Until peace has been declared, repeat:", "  Stop repeating."]),
    ("set peace_declared to no", ["Now peace has not been declared."]),
    ("set tie_break to yes", ["Now the game is marked “tie break”."]),
    ("if can_play(p):\n    the game is a draw", ["If the player can play:", "  The game ends in a draw."]),
    ("if not can_play(seat 1) and not can_play(seat 2):\n    the game is a draw",
     ["If neither the player in seat 1 nor the player in seat 2 can play:", "  The game ends in a draw."]),
    ("if not can_play(p) and not able(p):\n    the game is a draw",
     ["If the player cannot play and “able” does not hold for the player:", "  The game ends in a draw."]),
    ("if not can_play(p):\n    the game is a draw", ["If the player cannot play:", "  The game ends in a draw."]),
    ("move cards in p's deck where race = KTotekk to p's pile",
     ["Move the cards in their deck whose race is K'Totekk to their Survivors pile."]),
    ("move top card of opponents's deck to p's pile", None),
    ("crown(first(cards in p's deck), yes)", ["Crown for the first card in their deck (the s) and yes (the r)."]),
    ("for each s in cards in p's deck where s is a Ship:\n    crown(s, no)",
     ["For each Ship s in their deck:", "  Set s's marked to no."]),
    ("if p's deck is not empty or p's pile is not empty:\n    the game is a draw",
     ["If their deck or their Survivors pile is not empty:", "  The game ends in a draw."]),
    ("if p's deck is empty and box is empty:\n    the game is a draw",
     ["If their deck and the box are empty:", "  The game ends in a draw."]),
    ("if first(cards in box).force = first(cards in p's deck).force:\n    the game is a draw",
     ["If the first card in the box and the first card in their deck have the same force:",
      "  The game ends in a draw."]),
    ("set first(cards in p's deck).leader to first(cards in box).leader",
     ["Set the leader of the first card in their deck to the leader of the first card in the box."]),
]


@pytest.mark.parametrize("statement, expected", [c for c in LABELLED_CASES if c[1] is not None],
                         ids=[c[0].split("\n")[0][:40] for c in LABELLED_CASES if c[1] is not None])
def test_display_names_and_flags_read_as_english(statement, expected):
    assert labelled(statement) == expected


def test_display_names_are_in_the_ast_and_the_rules_keep_the_names():
    game = load_text(LABELLED.replace("STATEMENT", 'say "x"'))
    d = game.decls
    assert d.enums["Race"].members == ("KTotekk", "Vorn")
    assert d.enums["Race"].labels == (("KTotekk", "K'Totekk"),)
    assert d.zones["pile"].label == "Survivors pile" and d.zones["deck"].label is None
    assert d.player_fields["ready"].label == "is ready to fight"
    assert E.display_value(d, "KTotekk") == "K'Totekk" and E.display_value(d, "Vorn") == "Vorn"
    assert E.display_value(d, True) == "yes" and E.display_value(d, None) == ""
    assert E.display_name(d, "zone", "pile") == "Survivors pile"
    assert E.display_name(d, "field", "can_draw") == "can draw"


def test_a_flag_says_what_its_display_name_makes_it():
    from cardsmith.dsl.publish.words import flag_predicate
    assert flag_predicate("is ready", "r") == ("is ready", "is not ready")
    assert flag_predicate("can add a card", "c") == ("can add a card", "cannot add a card")
    assert flag_predicate("has been declared", "d") == ("has been declared", "has not been declared")
    assert flag_predicate("has wings", "w") == ("has wings", "does not have wings")
    assert flag_predicate("a Race Leader", "l") == ("is a Race Leader", "is not a Race Leader")
    assert flag_predicate("'+1 Force'", "b") == ("has '+1 Force'", "does not have '+1 Force'")
    assert flag_predicate(None, "kin_in_column") == ("is marked “kin in column”", "is not marked “kin in column”")


def test_a_yes_no_value_defined_by_the_rules_reads_as_a_predicate():
    game = load_text(LABELLED.replace("STATEMENT", 'if can_play(p) and able(p):\n        say "x"'))
    ctx = E.make_ctx(game.decls, param_types=E.param_types(game.decls))
    assert E.describe_define(game.decls.defines["can_play"], ctx) == \
        "A player can play when their Survivors pile or their deck is not empty."
    assert E.describe_define(game.decls.defines["able"], ctx) == "A player meets “able” when their deck is not empty."


def test_abilities_say_this_card_and_a_lasting_bonus_as_what_it_gives():
    game = load_text(LABELLED.replace("STATEMENT", 'say "x"'))
    ctx = E.make_ctx(game.decls, param_types=E.param_types(game.decls))
    when, modify = [E.plain(E.flatten([E.describe(ab, E.ability_ctx(ctx, "Ship"))]))
                    for ab in game.decls.card_types["Ship"].abilities]
    assert when == "When this card is revealed, if it is a Race Leader: Now peace has been declared."
    assert modify == ("While this card has '+1 Force', the other Ships in this card's zone with the same race "
                      "as this card get +1 force.")


def test_a_card_s_own_effect_is_the_type_s_abilities_its_printed_values_select():
    game = load_text(LABELLED.replace("STATEMENT", 'say "x"'))
    by_name = {cd.name: cd for cd in game.cards}
    assert E.card_effect_text(game, by_name["Striker"]) == "When this card is revealed: Now peace has been declared."
    assert E.card_effect_text(game, by_name["Tender"]).startswith("The other Ships in this card's zone with the same race")
    assert E.card_effect_text(game, by_name["Picket"]) == ""        # nothing of its own


def test_clauses_of_one_subject_say_it_once():
    game = load_game(str(ROOT / "games" / "battlefield_space.cards"))
    ctx = E.make_ctx(game.decls, param_types=E.param_types(game.decls))
    said = [E.plain(E.describe(ab, E.ability_ctx(ctx, "Ship")).text) for ab in game.decls.card_types["Ship"].abilities]
    assert said[0] == "When this card is revealed, if it has 'Play another card' and is in your line:"
    assert said[1] == "While this card has '+1 Force' and is in your line, the other Ships in this card's zone get +1 Force."


def test_a_card_s_own_effect_in_a_bundled_game():
    game = load_game(str(ROOT / "games" / "battlefield_space.cards"))
    effect = {cd.name: E.card_effect_text(game, cd) for cd in game.cards}
    assert effect["Ion Storm"] == ("Text (what the card does when it is resolved): Move the other cards in every "
                                   "player's place beside the battlefield to the Graveyard, face up. Eliminate "
                                   "unresolved modifiers.")
    assert "Black Hole" not in effect["Ion Storm"] and "Drawn into a column" not in effect["Ion Storm"]
    assert effect["Shield Matrix"] == ("While this card is in your place beside the battlefield, the Ships in "
                                       "your line get +1 Force.")
    assert effect["Vorn Picket"] == ""
    assert "Refill for you" in effect["Feyla Elai Fighter"]


def test_in_a_game_for_two_the_opponents_are_one():
    game = load_game(str(ROOT / "games" / "battlefield_space.cards"))
    text = E.card_effect_text(game, next(cd for cd in game.cards if cd.name == "Black Hole"))
    assert "You choose one of the Ships in your opponent's line" in text
    assert "Move the chosen Ship to the Graveyard, face up." in text
