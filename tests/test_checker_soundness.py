"""A program the checker accepts never fails for a reason the checker could see (issues 7 and 8).

Each test is a small game that used to pass `check` and then stop with E0804 ("the checker
should have caught it") or do the wrong thing while playing. Now the checker reports it, located
and with a hint, or the game runs as written. Values that only turn out to be `none` while
playing (the top card of an empty zone) stop the game with a located E0802, never E0804.
"""
import pytest

from cardsmith.dsl.diagnostics import CardsmithError
from cardsmith.dsl.loader import load_text
from cardsmith.interpreter.engine import Engine
from cardsmith.interpreter.errors import GameAborted
from cardsmith.interpreter.scenario import run_scenarios

HEAD = '''game "Soundness":
    players: 2 to 3

player has:
    life: number = 20
    pal: player = none
    seen: list of card

game has:
    n: number = 0
    spot: zone = none

zone box: shared, hidden
zone pile: shared, ordered, public
zone hand: per player, ordered, public

card type Unit:
    power: number

cards Unit in box:
    | name | power |
    | "A"  | 1     |
    | "B"  | 2     |
'''
HEAD_LINES = HEAD.count("\n")


def game(rules: str):
    return load_text(HEAD + rules, "soundness.cards")


def errors(rules: str):
    with pytest.raises(CardsmithError) as info:
        game(rules)
    return info.value.diagnostics


def the_error(rules: str, code: str, line: int):
    """The one diagnostic of `code`, at `line` of `rules` (1 = its first line)."""
    found = [d for d in errors(rules) if d.code == code]
    assert found, [f"{d.code} {d.message}" for d in errors(rules)]
    d = found[0]
    assert d.span.line - HEAD_LINES == line, (d.span.line - HEAD_LINES, d.message)
    assert d.span.column >= 1 and d.hint
    return d


def scenarios_pass(rules: str):
    results = run_scenarios(game(rules))
    assert results
    for r in results:
        assert r.ok, (r.name, r.failures)


def aborted(rules: str, players: int = 2):
    with pytest.raises(GameAborted) as info:
        Engine(game(rules), players, 0)
    return info.value.diagnostics[0]


# ---------------------------------------------------------------- 1. scenario-only statements

@pytest.mark.parametrize("where, rules, line", [
    ("setup", "setup:\n    play setup\n\nround \"R\":\n    seat 1 wins\n", 2),
    ("round", "setup:\n    say \"x\"\n\nround \"R\":\n    play 1 round\n    seat 1 wins\n", 5),
    ("round", "setup:\n    say \"x\"\n\nround \"R\":\n    if n = 0:\n        play to the end\n    seat 1 wins\n", 6),
])
def test_play_outside_a_scenario_is_a_checker_error(where, rules, line):
    d = the_error(rules, "E0413", line)
    assert "only meaningful in a scenario" in d.message and "scenario" in d.hint


def test_a_procedure_that_plays_is_reported_where_a_rule_calls_it():
    rules = ('procedure start():\n    play setup\n\nsetup:\n    say "x"\n\nround "R":\n'
             '    start()\n    seat 1 wins\n')
    d = the_error(rules, "E0413", 8)
    assert "procedure 'start'" in d.message and "line" in d.message and "scenario" in d.hint


def test_a_procedure_that_plays_may_be_called_from_scenarios():
    scenarios_pass('procedure start():\n    play setup\n\nsetup:\n    move top card of box to pile\n\n'
                   'round "R":\n    seat 1 wins\n\nscenario "helper" with 2 players:\n    start()\n'
                   '    expect count(cards in pile) = 1\n')


def test_playing_rounds_of_a_game_without_a_round():
    d = the_error('setup:\n    say "x"\n\nscenario "s" with 2 players:\n    play 1 round\n', "E0413", 5)
    assert "no round" in d.message


# ---------------------------------------------------------------- 2. where `none` is not accepted

NONE_CASES = [
    ("negated", "    let x be -none\n"),
    ("added", "    let x be 3 + none\n"),
    ("compared", "    if none > 2:\n        say \"x\"\n"),
    ("winner", "    none wins\n"),
    ("eliminated", "    eliminate none\n"),
    ("chooser", "    none chooses c from cards in box\n"),
    ("turn", "    turn of none:\n        say \"x\"\n"),
    ("players", "    each player in none secretly chooses c from cards in box:\n        say \"x\"\n"),
    ("listed", "    for each p in [seat 1, none]:\n        say \"x\"\n"),
    ("counted", "    add none to n\n"),
]


@pytest.mark.parametrize("what, stmt", NONE_CASES, ids=[c[0] for c in NONE_CASES])
def test_none_where_a_value_is_needed_is_a_checker_error(what, stmt):
    d = the_error(f"setup:\n    say \"x\"\n\nround \"R\":\n{stmt}    seat 1 wins\n", "E0414", 5)
    assert "none" in d.message


def test_a_response_window_answerers_are_checked():
    rules = ('response window "W":\n    opens after action_used\n    players answer in [seat 1, none]\n\n'
             'setup:\n    say "x"\n\nround "R":\n    seat 1 wins\n')
    d = the_error(rules, "E0414", 3)
    assert "list" in d.message
    d = the_error(rules.replace("[seat 1, none]", "opponents"), "E0214", 3)
    d = the_error(rules.replace("[seat 1, none]", "3"), "E0408", 3)


def test_none_may_still_be_stored_passed_and_compared():
    scenarios_pass('procedure keep(p, x):\n    set p\'s pal to x\n\nsetup:\n    keep(seat 1, none)\n'
                   '    let c be none\n    if c = none and seat 1\'s pal is none:\n        set n to 1\n\n'
                   'round "R":\n    seat 1 wins\n\nscenario "s" with 2 players:\n    play setup\n    expect n = 1\n')


# A value that only turns out to be none while playing: a located E0802, never E0804 (which says
# "the checker should have caught it"). `pile` is empty and `spot`, `pal` are never set.
RUNTIME_NONE = [
    ("negated", "    let x be -(top card of pile).power\n", "arithmetic met 'none'"),
    ("negated highest", "    set n to -highest(power of cards in pile)\n", "arithmetic met 'none'"),
    ("zone of none shuffled", "    shuffle (top card of pile).zone\n", "no zone here"),
    ("zone attribute shuffled", "    shuffle spot\n", "no zone here"),
    ("zone of nobody looked into", "    set n to count(cards in seat 1's pal's hand)\n", "no zone here"),
    ("moved to nobody's zone", "    move top card of box to seat 1's pal's hand\n", "no zone here"),
    ("top card of no zone", "    move top card of spot to pile\n", "no zone here"),
    ("nobody's attribute changed", "    add 1 to seat 1's pal's life\n", "no player here"),
    ("no card's field changed", "    add 1 to (top card of pile).power\n", "no card here"),
    ("list attribute never set", "    for each c in seat 1's seen:\n        say \"c\"\n", "no collection here"),
    ("list attribute counted", "    set n to count(seat 1's seen)\n", "no collection here"),
    ("filtered", "    set n to count(seat 1's seen where it is a Unit)\n", "no collection here"),
    ("looked in", "    if top card of box is in seat 1's seen:\n        say \"x\"\n", "no collection here"),
]


@pytest.mark.parametrize("what, stmt, words", RUNTIME_NONE, ids=[c[0] for c in RUNTIME_NONE])
def test_none_met_while_playing_stops_the_game_at_the_rule(what, stmt, words):
    d = aborted(f'setup:\n    say "x"\n\nround "R":\n{stmt}    seat 1 wins\n')
    assert d.code == "E0802" and words in d.message, (d.code, d.message)
    assert d.span.line - HEAD_LINES == 5


OTHER_HOLES = [
    ("top card of many zones", "    move top card of every hand to pile\n", "E0403"),
    ("top cards of many zones", "    move top 2 cards of every hand to pile\n", "E0403"),
    ("many zones empty", "    if every hand is empty:\n        say \"x\"\n", "E0407"),
    ("counter a number", "    counter 3\n", "E0409"),
    ("negate a player", "    negate seat 2\n", "E0409"),
]


@pytest.mark.parametrize("what, stmt, code", OTHER_HOLES, ids=[c[0] for c in OTHER_HOLES])
def test_other_statements_that_used_to_fail_while_playing(what, stmt, code):
    """`top card of every hand` (a list of zones has no top), `every hand is empty` (always
    no), `counter 3` (card 3's stack item, or an IndexError): now checker errors."""
    the_error(f'setup:\n    say "x"\n\nround "R":\n{stmt}    seat 1 wins\n', code, 5)


def test_none_read_through_is_none_and_nobody_is_asked():
    """Reading a player's attribute through none is none, as a card's field is; `none may take
    actions` asks nobody; a response window skips answerers who are none."""
    scenarios_pass('''
response window "W":
    opens after action_used
    players answer in [seat 1's pal, seat 2]

card type Spell:
    rank: number
    action "Cast" from hand:
        set n to 5

cards Spell in box:
    | name | rank |
    | "S"  | 1    |

setup:
    move first(cards in box where name = "S") to seat 1's hand

round "R":
    if seat 1's pal's life is none:
        add 1 to n
    seat 1's pal may take actions
    seat 1 may take actions
    seat 1 wins

scenario "s" with 2 players:
    play setup
    give seat 1 the choice "S: Cast"
    give seat 1 the choice none
    play 1 round
    expect n = 5
''')


# ---------------------------------------------------------------- 3. scenarios

def test_two_scenarios_with_one_name():
    rules = ('setup:\n    say "x"\n\nround "R":\n    seat 1 wins\n\nscenario "same" with 2 players:\n'
             '    expect n = 0\n\nscenario "same" with 2 players:\n    expect n = 1\n')
    d = the_error(rules, "E0102", 10)
    assert "twice" in d.message and f"line {HEAD_LINES + 7}" in d.hint


@pytest.mark.parametrize("players", [0, 1, 4])
def test_a_scenario_for_a_number_of_players_the_game_is_not_for(players):
    rules = f'setup:\n    say "x"\n\nround "R":\n    seat 1 wins\n\nscenario "s" with {players} players:\n    expect n = 0\n'
    d = the_error(rules, "E0701", 7)
    assert f"not {players}" in d.message and "with 2 players" in d.hint


# ---------------------------------------------------------------- 4. replacement types, whatever the compile order

SHIELD = '''
event hit(p: player)

card type Shield:
    rank: number
    instead of damage where target's life > 5:
        say "blocked"
    when hit where p = you:
        damage(p, 1)

cards Shield in box:
    | name | rank |
    | "S"  | 1    |

procedure damage(target, amount):
    subtract amount from target's life

setup:
    move first(cards in box where name = "S") to seat 1's hand

round "R":
    announce hit(seat 1)
    seat 1 wins

scenario "the shield blocks damage to a healthy player" with 2 players:
    play setup
    play 1 round
    expect seat 1's life = 20
'''


def test_a_replacement_reads_its_procedures_parameters_when_only_a_trigger_calls_it():
    """The procedure is first compiled from a trigger: its replacement used to see `target`
    untyped (read as a card field: none) and stop on "a comparison met 'none'"."""
    scenarios_pass(SHIELD)


def test_replacement_parameter_types_do_not_depend_on_the_caller_compiled_first():
    from_trigger = game(SHIELD)
    from_round = game(SHIELD.replace("    announce hit(seat 1)\n", "    damage(seat 2, 0)\n    announce hit(seat 1)\n"))
    assert from_trigger.decls.param_types["damage"] == from_round.decls.param_types["damage"] == ("player", "number")
    scenarios_pass(SHIELD.replace("    announce hit(seat 1)\n", "    damage(seat 2, 0)\n    announce hit(seat 1)\n"))


def test_a_replacement_of_a_procedure_called_with_players_and_cards_is_reported():
    rules = SHIELD.replace("    announce hit(seat 1)\n", "    damage(first(cards in box), 1)\n    announce hit(seat 1)\n")
    d = the_error(rules, "E0408", 6)
    assert "instead of damage" in d.message and "a player" in d.message and "a card" in d.message


# ---------------------------------------------------------------- 5. block scopes

LEAKS = [
    ("if", "    if n = 0:\n        let x be 1\n    set n to x\n", 3, 1),
    ("else", "    if n = 1:\n        let x be 1\n    else:\n        let x be 2\n    set n to x\n", 5, 1),
    ("for each", "    for each p in players:\n        let x be 1\n    set n to x\n", 3, 1),
    ("loop name", "    for each p in players:\n        say \"x\"\n    set seat 1's pal to p\n", 3, 1),
    ("repeat", "    repeat 2 times:\n        let x be 1\n    set n to x\n", 3, 1),
    ("while", "    repeat while n > 5:\n        let x be 1\n    set n to x\n", 3, 1),
    ("step", "    step \"S\":\n        let x be 1\n    set n to x\n", 3, 1),
    ("may", "    seat 1 may \"Take one?\":\n        let x be 1\n    set n to x\n", 3, 1),
    ("secret", "    each player in players secretly chooses c from cards in box:\n        say \"x\"\n"
               "    move c to pile\n", 3, 1),
]


@pytest.mark.parametrize("block, stmts, line, given", LEAKS, ids=[c[0] for c in LEAKS])
def test_a_name_given_in_a_block_is_not_known_after_it(block, stmts, line, given):
    d = the_error(f'setup:\n    say "x"\n\nround "R":\n{stmts}    seat 1 wins\n', "E0201", 4 + line)
    assert f"block at line {HEAD_LINES + 4 + given}" in d.hint


def test_a_let_inside_a_block_changes_the_variable_from_before_it():
    """`let best be none` then `let best be c` in a loop: one variable, known after the loop."""
    scenarios_pass('setup:\n    move cards in box to pile\n    let best be none\n'
                   '    for each c in cards in pile:\n        if c.power = 2:\n'
                   '            let best be c\n    set n to best.power\n\nround "R":\n    seat 1 wins\n\n'
                   'scenario "s" with 2 players:\n    play setup\n    expect n = 2\n')


def test_a_let_inside_a_block_cannot_change_a_variable_to_another_kind():
    d = the_error('setup:\n    let x be 1\n    if n = 0:\n        let x be seat 1\n\nround "R":\n    seat 1 wins\n',
                  "E0408", 4)
    assert "'x' is a number" in d.message


def test_a_loop_name_already_in_use():
    d = the_error('procedure heal(p):\n    for each p in players:\n        add 1 to p\'s life\n\n'
                  'setup:\n    heal(seat 1)\n\nround "R":\n    seat 1 wins\n', "E0215", 2)
    assert "'p'" in d.message


# ---------------------------------------------------------------- 6. `you` after a secret choice in an ability

def test_you_is_restored_after_each_player_secretly_chooses():
    scenarios_pass('''
enum Pick: rock, paper

event go(p: player)

card type Thing:
    rank: number
    when go where p = you:
        each player in players secretly chooses c from Pick:
            say "chosen"
        add 1 to your life

cards Thing in box:
    | name | rank |
    | "T"  | 1    |

setup:
    move first(cards in box where name = "T") to seat 1's hand

round "R":
    announce go(seat 1)
    seat 1 wins

scenario "the ability's owner gains the life, not the last to choose" with 2 players:
    play setup
    give seat 1 the choice rock
    give seat 2 the choice paper
    play 1 round
    expect seat 1's life = 21
    expect seat 2's life = 20
''')


# ---------------------------------------------------------------- 7. `you` where no player is `you`

def test_a_procedure_using_opponents_called_from_a_round():
    rules = ('procedure hurt():\n    for each o in opponents:\n        subtract 1 from o\'s life\n\n'
             'setup:\n    say "x"\n\nround "R":\n    hurt()\n    seat 1 wins\n')
    d = the_error(rules, "E0214", 9)
    assert "procedure 'hurt'" in d.message and "'opponents'" in d.message and f"line {HEAD_LINES + 2}" in d.message


def test_you_through_procedures_and_defines():
    rules = ('define mine() as your life\n\nprocedure inner():\n    set n to mine()\n\nprocedure outer():\n'
             '    inner()\n\nsetup:\n    say "x"\n\nround "R":\n    outer()\n    seat 1 wins\n')
    d = the_error(rules, "E0214", 13)
    assert "procedure 'outer'" in d.message and "'your life'" in d.message


def test_you_in_a_round():
    d = the_error('setup:\n    say "x"\n\nround "R":\n    add 1 to your life\n    seat 1 wins\n', "E0214", 5)
    assert "your life" in d.message


def test_you_where_the_engine_gives_it():
    """In an ability, in a secret choice's body, and in a procedure called from either."""
    scenarios_pass('''
event go(p: player)

procedure gain():
    add 1 to your life

card type Thing:
    rank: number
    when go where p = you:
        gain()

cards Thing in box:
    | name | rank |
    | "T"  | 1    |

setup:
    move first(cards in box where name = "T") to seat 1's hand
    each player in players secretly chooses c from cards in your hand:
        gain()

round "R":
    announce go(seat 1)
    seat 1 wins

scenario "s" with 2 players:
    play setup
    play 1 round
    expect seat 1's life = 22
    expect seat 2's life = 21
''')


def test_an_error_in_a_procedure_is_reported_once():
    """A procedure body is checked once untyped and once per call signature (and again while the
    replacements' types settle): each of its errors is still reported once."""
    found = errors('procedure put(x):\n    move x to 3\n\nsetup:\n    put(top card of pile)\n\n'
                   'round "R":\n    seat 1 wins\n')
    assert [(d.code, d.span.line - HEAD_LINES) for d in found] == [("E0403", 2)]
