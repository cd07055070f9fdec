"""The typed AST of a .cards file.

Every node is a frozen, slotted dataclass with its source `span` first. Class names
match the grammar's rule names (`card_type_decl` <-> `CardTypeDecl`). Nothing after
dsl/transformer.py imports lark: the tree is converted once, here into these nodes.
Invariants a designer can break (duplicate names, unknown zones, wrong arities) are
reported by the check passes as diagnostics, never raised by constructors.
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import Union

from .source import Span

# ============================================================== expressions


@dataclass(frozen=True, slots=True)
class Num:
    """`3`"""
    span: Span
    value: int


@dataclass(frozen=True, slots=True)
class Text:
    """`"Choose your Faction"`"""
    span: Span
    value: str


@dataclass(frozen=True, slots=True)
class Bool:
    """`yes` / `no`"""
    span: Span
    value: bool


@dataclass(frozen=True, slots=True)
class Nothing:
    """`none`"""
    span: Span


@dataclass(frozen=True, slots=True)
class Name:
    """`fighters`, `red`, `strength` — resolved by the checker."""
    span: Span
    name: str


@dataclass(frozen=True, slots=True)
class Call:
    """`count(tied)`, `strength(p)`"""
    span: Span
    name: str
    args: tuple["Expr", ...]


@dataclass(frozen=True, slots=True)
class FieldAccess:
    """`card.strength`"""
    span: Span
    obj: "Expr"
    name: str


@dataclass(frozen=True, slots=True)
class Possessive:
    """`p's deck`, `p's bonus` — a per-player zone or an attribute."""
    span: Span
    owner: "Expr"
    name: str


@dataclass(frozen=True, slots=True)
class Your:
    """`your deck` — the possessive of `you`, the controller of the ability."""
    span: Span
    name: str


@dataclass(frozen=True, slots=True)
class FieldOf:
    """`faction of players` — a field of one thing, or of each thing in a collection."""
    span: Span
    name: str
    obj: "Expr"


@dataclass(frozen=True, slots=True)
class CardsIn:
    """`cards in p's discard`"""
    span: Span
    zone: "Expr"


@dataclass(frozen=True, slots=True)
class EveryZone:
    """`every battlefield` — that per-player zone of every player, in seat order."""
    span: Span
    name: str


@dataclass(frozen=True, slots=True)
class TopCard:
    """`top card of p's deck` / `bottom card of ...`"""
    span: Span
    place: str
    zone: "Expr"


@dataclass(frozen=True, slots=True)
class TopCards:
    """`top 3 cards of p's deck`"""
    span: Span
    place: str
    count: "Expr"
    zone: "Expr"


@dataclass(frozen=True, slots=True)
class ActivePlayer:
    """`the active player`"""
    span: Span


@dataclass(frozen=True, slots=True)
class This:
    """`this` — the card whose ability is running."""
    span: Span


@dataclass(frozen=True, slots=True)
class You:
    """`you` — the player who controls the running ability (or the deciding player)."""
    span: Span


@dataclass(frozen=True, slots=True)
class SeatPlayer:
    """`seat 2` — the player in seat 2 (scenarios)."""
    span: Span
    seat: int


@dataclass(frozen=True, slots=True)
class WinnersExpr:
    """`the winners` — who won (empty until the game is over, or after a draw)."""
    span: Span


@dataclass(frozen=True, slots=True)
class StackExpr:
    """`the stack` — the cards whose effects wait on the stack, the top (last in) first."""
    span: Span


@dataclass(frozen=True, slots=True)
class PlayersExpr:
    """`players` — players still in the game, in seat order."""
    span: Span


@dataclass(frozen=True, slots=True)
class AllPlayers:
    """`all players` — eliminated ones included."""
    span: Span


@dataclass(frozen=True, slots=True)
class AllEntities:
    """`all ships` — every entity of a kind still in play, in the order they were created
    (docs/language.md, "entity")."""
    span: Span
    name: str               # as written: the kind's plural (`ships`)


@dataclass(frozen=True, slots=True)
class IsInPlay:
    """`s is in play` / `s is not in play` — whether an entity has not been destroyed."""
    span: Span
    item: "Expr"
    negated: bool


@dataclass(frozen=True, slots=True)
class EntityHolding:
    """`the ship holding c` — the entity of that kind whose zone (`zone crew: per ship`) holds
    the card c; none when no such entity's zone holds it."""
    span: Span
    kind: str               # as written: the kind's singular (`ship`)
    card: "Expr"


@dataclass(frozen=True, slots=True)
class Opponents:
    """`opponents` — players still in the game other than `you`."""
    span: Span


@dataclass(frozen=True, slots=True)
class ListExpr:
    """`[a, b]`"""
    span: Span
    items: tuple["Expr", ...]


@dataclass(frozen=True, slots=True)
class WhereExpr:
    """`fighters where strength(it) = best` — `it` is each element."""
    span: Span
    coll: "Expr"
    cond: "Expr"


@dataclass(frozen=True, slots=True)
class ExprMap:
    """`strength(p) for each p in fighters [where cond]`"""
    span: Span
    expr: "Expr"
    name: str
    coll: "Expr"
    cond: "Expr | None"


@dataclass(frozen=True, slots=True)
class OrChain:
    """`a or b or c`"""
    span: Span
    items: tuple["Expr", ...]


@dataclass(frozen=True, slots=True)
class AndChain:
    """`a and b`"""
    span: Span
    items: tuple["Expr", ...]


@dataclass(frozen=True, slots=True)
class NotOp:
    """`not a`"""
    span: Span
    operand: "Expr"


@dataclass(frozen=True, slots=True)
class Compare:
    """`a < b`, `a = b`, `a is b`, `a is not b`"""
    span: Span
    op: str
    left: "Expr"
    right: "Expr"


@dataclass(frozen=True, slots=True)
class IsEmpty:
    """`p's deck is empty` / `is not empty`"""
    span: Span
    operand: "Expr"
    negated: bool


@dataclass(frozen=True, slots=True)
class IsIn:
    """`x is in C` / `x is not in C`"""
    span: Span
    item: "Expr"
    coll: "Expr"
    negated: bool


@dataclass(frozen=True, slots=True)
class IsA:
    """`it is a Unit`"""
    span: Span
    operand: "Expr"
    type_name: str


@dataclass(frozen=True, slots=True)
class Arith:
    """`a + b`, `a - b`, `a * b`, `a / b` (whole-number division, rounding down)"""
    span: Span
    op: str
    left: "Expr"
    right: "Expr"


@dataclass(frozen=True, slots=True)
class Neg:
    """`-a`"""
    span: Span
    operand: "Expr"


@dataclass(frozen=True, slots=True)
class IsFace:
    """`c is face up` / `c is face down` (a card turned by `cost: exhaust` is face down)"""
    span: Span
    operand: "Expr"
    up: bool


@dataclass(frozen=True, slots=True)
class HasSeen:
    """`p has seen c` / `c is known to p`: p knows the card's face (docs/language.md, "Who has
    seen a card")"""
    span: Span
    player: "Expr"
    card: "Expr"


@dataclass(frozen=True, slots=True)
class HasKeyword:
    """`c has keyword Weapon` / `c has no keyword Weapon`"""
    span: Span
    operand: "Expr"
    keyword: str
    negated: bool


@dataclass(frozen=True, slots=True)
class CondExpr:
    """`if a > b then a else b`"""
    span: Span
    cond: "Expr"
    then: "Expr"
    other: "Expr"


@dataclass(frozen=True, slots=True)
class ItemOf:
    """`item 2 of chosen` — counted from 1; none when there is no such item"""
    span: Span
    index: "Expr"
    coll: "Expr"


@dataclass(frozen=True, slots=True)
class RandomPick:
    """`random card from your hand` — one element picked by the game's seeded generator"""
    span: Span
    noun: str
    coll: "Expr"


@dataclass(frozen=True, slots=True)
class RandomNumber:
    """`random number from 1 to 6`"""
    span: Span
    low: "Expr"
    high: "Expr"


@dataclass(frozen=True, slots=True)
class SortKey:
    """`it's score highest first` in `sorted by` (not an expression of its own)"""
    span: Span
    expr: "Expr"
    highest_first: bool


@dataclass(frozen=True, slots=True)
class SortedExpr:
    """`players sorted by it's score highest first then it's gold lowest first` (a stable sort)"""
    span: Span
    coll: "Expr"
    keys: tuple[SortKey, ...]


@dataclass(frozen=True, slots=True)
class CurrentStep:
    """`the current step` / `the current phase` — its name, none outside one"""
    span: Span
    kind: str


@dataclass(frozen=True, slots=True)
class SeatOf:
    """`seat of p` — p's seat number, from 1"""
    span: Span
    player: "Expr"


@dataclass(frozen=True, slots=True)
class SeatExpr:
    """`seat (k + 1)` — the player in a computed seat"""
    span: Span
    seat: "Expr"


@dataclass(frozen=True, slots=True)
class SeatsFrom:
    """`the player 2 seats to the left of p` — around the table, every seat counted"""
    span: Span
    count: "Expr"
    side: str
    player: "Expr"


@dataclass(frozen=True, slots=True)
class Modulo:
    """`a mod b` — the remainder of whole-number division (0 up to b - 1 for a positive b)"""
    span: Span
    left: "Expr"
    right: "Expr"


@dataclass(frozen=True, slots=True)
class NumberRange:
    """`numbers from 0 to k` — the whole numbers from the first to the second, both included"""
    span: Span
    low: "Expr"
    high: "Expr"


@dataclass(frozen=True, slots=True)
class PositionIn:
    """`the position of c in your row` — where an element stands in a list or a zone, from 1; none if absent"""
    span: Span
    item: "Expr"
    coll: "Expr"


@dataclass(frozen=True, slots=True)
class CardFrom:
    """`the card 3 from the top of your deck` — counted from 1 at that end; none past the other"""
    span: Span
    index: "Expr"
    place: str
    zone: "Expr"


@dataclass(frozen=True, slots=True)
class Otherwise:
    """`highest(bids) otherwise 0` — the left value, or the right one where the left is none"""
    span: Span
    value: "Expr"
    default: "Expr"


# ---- combinations (issue 18): searches over groups of a collection's elements, bounded by
# MAX_COMBINATIONS (dsl/bounds.py), in a fixed order
@dataclass(frozen=True, slots=True)
class GroupsOf:
    """`the groups of 3 cards from cards in your hand` — every way to take that many elements,
    each group in the collection's order, the groups in lexicographic order of positions"""
    span: Span
    size: "Expr"
    noun: str | None        # "cards", "players", ... as written, or None
    coll: "Expr"


@dataclass(frozen=True, slots=True)
class SubsetsOf:
    """`the subsets of cards in your hand` — every group of one or more elements: the smaller
    first, then in lexicographic order of positions"""
    span: Span
    coll: "Expr"


@dataclass(frozen=True, slots=True)
class BestArrangement:
    """`the best arrangement of cards in your hand into groups where is_meld(it) by sum(rank of it)`
    — groups with no element in common, each passing the test, whose scores add up to the most"""
    span: Span
    coll: "Expr"
    cond: "Expr"
    score: "Expr"


# ---- boards (dsl/checks/boards.py, interpreter/compile_boards.py): a place is a shared zone


@dataclass(frozen=True, slots=True)
class PlacesAdjacent:
    """`the places adjacent to s` — the places one link away, in the board's order"""
    span: Span
    place: "Expr"


@dataclass(frozen=True, slots=True)
class PlacesWithin:
    """`the places within 2 of s` — the other places at most that many links away, nearest first"""
    span: Span
    steps: "Expr"
    place: "Expr"


@dataclass(frozen=True, slots=True)
class PlacesOf:
    """`the places of map` — every place of a board, in the order declared"""
    span: Span
    board: str


@dataclass(frozen=True, slots=True)
class DistanceBetween:
    """`the distance from a to b` — the fewest links between two places; none if no path joins them"""
    span: Span
    start: "Expr"
    end: "Expr"


@dataclass(frozen=True, slots=True)
class ShortestPath:
    """`the shortest path from a to b` — the places from a to b (both included) along the fewest
    links; of several, the one taking the earliest declared place at each step; empty if none"""
    span: Span
    start: "Expr"
    end: "Expr"


@dataclass(frozen=True, slots=True)
class PlaceMark:
    """`the influence of p on s` — a player's mark on a place (`player on a place has:`)"""
    span: Span
    name: str
    player: "Expr"
    place: "Expr"


Expr = Union[Num, Text, Bool, Nothing, Name, Call, FieldAccess, Possessive, Your, FieldOf, AllEntities, IsInPlay, EntityHolding,
             CardsIn, EveryZone, TopCard, TopCards, ActivePlayer, This, You, SeatPlayer, WinnersExpr, StackExpr, PlayersExpr,
             AllPlayers, Opponents, ListExpr, WhereExpr, ExprMap, OrChain, AndChain, NotOp,
             Compare, IsEmpty, IsIn, IsA, Arith, Neg,
             IsFace, HasSeen, HasKeyword, CondExpr, ItemOf, RandomPick, RandomNumber, SortedExpr, CurrentStep,
             SeatOf, SeatExpr, SeatsFrom, Modulo, NumberRange, PositionIn, CardFrom, Otherwise,
             GroupsOf, SubsetsOf, BestArrangement,
             PlacesAdjacent, PlacesWithin, PlacesOf, DistanceBetween, ShortestPath, PlaceMark]

# ============================================================== statements


@dataclass(frozen=True, slots=True)
class DocItem:
    """A quoted text alone on a line: rulebook prose for the enclosing rule."""
    span: Span
    text: str


@dataclass(frozen=True, slots=True)
class MoveStmt:
    """`move top card of p's deck to bottom of p's battlefield face up`"""
    span: Span
    what: Expr
    to: Expr
    place: str | None       # "top" | "bottom" | None (top of an ordered zone)
    face: str | None        # "up" | "down" | None (keep / zone default)


@dataclass(frozen=True, slots=True)
class ShuffleStmt:
    """`shuffle p's deck`"""
    span: Span
    zone: Expr


@dataclass(frozen=True, slots=True)
class FlipStmt:
    """`flip this face down`"""
    span: Span
    what: Expr
    face: str


@dataclass(frozen=True, slots=True)
class SetStmt:
    """`set p's bonus to 0`"""
    span: Span
    target: Expr
    value: Expr


@dataclass(frozen=True, slots=True)
class AddStmt:
    """`add 1 to your bonus`"""
    span: Span
    amount: Expr
    target: Expr


@dataclass(frozen=True, slots=True)
class SubtractStmt:
    """`subtract 3 from p's score`"""
    span: Span
    amount: Expr
    target: Expr


@dataclass(frozen=True, slots=True)
class LetStmt:
    """`let best be highest(strength(p) for each p in fighters)`"""
    span: Span
    name: str
    value: Expr


@dataclass(frozen=True, slots=True)
class ChooseStmt:
    """`p chooses f from Faction where it is not in taken, prompt "Choose your Faction"`"""
    span: Span
    player: Expr
    name: str
    options: Expr
    prompt: str | None


@dataclass(frozen=True, slots=True)
class AnnounceStmt:
    """`announce battle_won(w, winning_card)`"""
    span: Span
    event: str
    args: tuple[Expr, ...]


@dataclass(frozen=True, slots=True)
class EliminateStmt:
    """`eliminate p`"""
    span: Span
    player: Expr


@dataclass(frozen=True, slots=True)
class WinStmt:
    """`first(players) wins`; `players where it's team = red win` (a shared victory)"""
    span: Span
    player: Expr


@dataclass(frozen=True, slots=True)
class LookStmt:
    """`p looks at top 3 cards of your deck`: p alone sees those cards, in the log and in p's
    view, until they move or their zone is shuffled."""
    span: Span
    player: Expr
    cards: Expr


@dataclass(frozen=True, slots=True)
class ScoreWinStmt:
    """`the highest score wins`: the game ends; the players still in it with the highest
    declared score win (several tied share the victory)."""
    span: Span


@dataclass(frozen=True, slots=True)
class DrawGameStmt:
    """`the game is a draw`"""
    span: Span


@dataclass(frozen=True, slots=True)
class StopStmt:
    """`stop` — leave the innermost repeat / for each."""
    span: Span


@dataclass(frozen=True, slots=True)
class CallStmt:
    """`capture(first(tied))`"""
    span: Span
    name: str
    args: tuple[Expr, ...]


@dataclass(frozen=True, slots=True)
class RollStmt:
    """`roll 3 White dice as results`"""
    span: Span
    count: Expr
    die: str
    name: str


@dataclass(frozen=True, slots=True)
class RollPoolStmt:
    """`roll whites White dice and blacks Black dice as pool attack, at most 10` — a pool of
    dice, each keeping its identity (its die, face, re-rolled yet); `groups` are (count, die)."""
    span: Span
    groups: tuple[tuple[Expr, str], ...]
    name: str
    cap: Expr | None = None


@dataclass(frozen=True, slots=True)
class RollIntoStmt:
    """`roll 2 Black dice into attack` — dice added to a pool (beyond its cap, if it had one)."""
    span: Span
    count: Expr
    die: str
    pool: str


@dataclass(frozen=True, slots=True)
class RerollStmt:
    """`reroll d in attack` — a die (or a list of dice) of the pool rolled again, once each."""
    span: Span
    dice: Expr
    pool: str


@dataclass(frozen=True, slots=True)
class TurnDieStmt:
    """`turn d in attack to [Critical]` — a die of the pool turned to one of its faces."""
    span: Span
    dice: Expr
    pool: str
    face: tuple[str, ...]


@dataclass(frozen=True, slots=True)
class RemoveDiceStmt:
    """`remove d from attack` — a die (or a list of dice) taken out of the pool."""
    span: Span
    dice: Expr
    pool: str


@dataclass(frozen=True, slots=True)
class HandOutStmt:
    """`give out p's income minerals from mineral_supply to each player p starting with first_player`
    — a game number (the supply) given out one at a time around the table until it runs out."""
    span: Span
    amount: Expr
    attr: str
    supply: str
    start: Expr
    each: str | None = None


@dataclass(frozen=True, slots=True)
class HandOutCardsStmt:
    """`give out mined(p) cards from supply to each player p's hold starting with first_player` —
    the top cards of a zone given one at a time around the table until it runs out."""
    span: Span
    amount: Expr
    source: Expr
    zone: str
    start: Expr
    each: str | None = None
    face: str | None = None         # "up" | "down": as `move ... face up`; None leaves it as it is


@dataclass(frozen=True, slots=True)
class CounterStmt:
    """`counter top item of the stack` — it never happens."""
    span: Span
    target: Expr


@dataclass(frozen=True, slots=True)
class NegateStmt:
    """`negate it` — counts as resolved, changes nothing."""
    span: Span
    target: Expr


@dataclass(frozen=True, slots=True)
class SkipStmt:
    """`skip step "Play"`"""
    span: Span
    step: str


@dataclass(frozen=True, slots=True)
class ResolveStmt:
    """`resolve the text of c` / `resolve c's text` — runs the card's `text:` ability, c as `this`;
    `resolve the text of c for p` — with p as `you`"""
    span: Span
    card: "Expr"
    player: "Expr | None" = None


@dataclass(frozen=True, slots=True)
class CreateStmt:
    """`create a ship for p as s` — a new entity of a kind, owned by p, its attributes at their
    defaults; `as s` names it for the rest of the block (docs/language.md, "entity")."""
    span: Span
    kind: str
    player: Expr
    name: str | None
    kind_span: Span | None = None


@dataclass(frozen=True, slots=True)
class DestroyStmt:
    """`destroy s` — the entity leaves play (its zones must be empty)."""
    span: Span
    target: Expr


@dataclass(frozen=True, slots=True)
class ExpectStmt:
    """`expect count(cards in first(players)'s discard) = 4` (scenarios)"""
    span: Span
    cond: Expr


@dataclass(frozen=True, slots=True)
class GiveStmt:
    """`give p the choice yes` (scenarios: script the next choice of p)"""
    span: Span
    player: Expr
    choice: Expr


@dataclass(frozen=True, slots=True)
class SayStmt:
    """`say "cannot add any card"`, `say "Totals:", total(a), total(b)` — a line in the explained
    log: the text, then each value in words."""
    span: Span
    text: str
    values: tuple["Expr", ...] = ()


@dataclass(frozen=True, slots=True)
class PlayStmt:
    """`play setup`, `play 3 rounds`, `play until count(players) = 1`, `play until step "Battle"`,
    `play to the end` (scenarios)"""
    span: Span
    kind: str                 # "setup" | "rounds" | "until" | "until_step" | "end"
    count: int = 0
    cond: "Expr | None" = None
    step: str = ""            # the step `play until step "..."` stops at


@dataclass(frozen=True, slots=True)
class ExpectEventStmt:
    """`expect event moved where to_zone = discard happened`, `... did not happen`,
    `expect event step_started where step = "Draw" happened before event round_started` (scenarios):
    what the game's events so far hold. `cond` and `before_cond` read the event's parameters."""
    span: Span
    event: str
    cond: "Expr | None"
    how: str                  # "happened" | "not" | "before"
    before_event: str = ""
    before_cond: "Expr | None" = None


@dataclass(frozen=True, slots=True)
class StackDeckStmt:
    """`stack seat 1's deck with "Axe Pilot", "Moss Hulk" on top` (scenarios): the cards named,
    found in that zone, go on its top (the first named on top) or bottom (the first at the bottom)."""
    span: Span
    zone: "Expr"
    names: tuple["Expr", ...]
    place: str                # "top" | "bottom"


@dataclass(frozen=True, slots=True)
class IfStmt:
    """`if c: ... else if d: ... else: ...`"""
    span: Span
    branches: tuple[tuple[Expr, tuple["Stmt", ...]], ...]
    else_body: tuple["Stmt", ...] | None


@dataclass(frozen=True, slots=True)
class ForStmt:
    """`for each p in players where cards_left(p) = 0: ...`"""
    span: Span
    name: str
    coll: Expr
    cond: Expr | None
    body: tuple["Stmt", ...]


@dataclass(frozen=True, slots=True)
class RepeatStmt:
    """`repeat: ...` — until `stop` or the game ends."""
    span: Span
    body: tuple["Stmt", ...]


@dataclass(frozen=True, slots=True)
class WhileStmt:
    """`repeat while c: ...` / `repeat until c: ...` (checked before each pass)"""
    span: Span
    until: bool
    cond: Expr
    body: tuple["Stmt", ...]


@dataclass(frozen=True, slots=True)
class TimesStmt:
    """`repeat n times: ...`"""
    span: Span
    count: Expr
    body: tuple["Stmt", ...]


@dataclass(frozen=True, slots=True)
class StepStmt:
    """`step "War": ...` / `phase "Turns": ...` — named parts of the flow (rulebook chapters)."""
    span: Span
    kind: str
    name: str
    body: tuple["Stmt", ...]


@dataclass(frozen=True, slots=True)
class TurnStmt:
    """`turn of p: ...` — p is the active player inside."""
    span: Span
    player: Expr
    body: tuple["Stmt", ...]


@dataclass(frozen=True, slots=True)
class MayStmt:
    """`you may "Trigger Peace?": ...` — an optional effect, a yes/no choice."""
    span: Span
    player: Expr
    prompt: str
    body: tuple["Stmt", ...]


@dataclass(frozen=True, slots=True)
class TakeActionsStmt:
    """`p may take actions` — p uses actions of their cards, one after another, until they stop."""
    span: Span
    player: Expr


@dataclass(frozen=True, slots=True)
class SecretStmt:
    """`each player in players secretly chooses c from cards in their hand: ...`"""
    span: Span
    players: Expr
    name: str
    options: Expr
    prompt: str | None
    body: tuple["Stmt", ...]


@dataclass(frozen=True, slots=True)
class ChooseManyStmt:
    """`p chooses up to 2 of cards in your hand as kept` (also `any number of`, `exactly 2 of`)
    and `p orders top 3 cards of your deck as order` (mode "order"): one pick at a time; the
    name holds the list of the picks, in the order picked."""
    span: Span
    player: Expr
    mode: str                   # "any" | "up to" | "exactly" | "order"
    count: "Expr | None"
    options: Expr
    name: str
    prompt: str | None


@dataclass(frozen=True, slots=True)
class MenuOption:
    """One option of `chooses one`: `"Draw a card" if ...:` (a text) or `"Play" c from C:` (each
    element of C, bound to c in the block); not a statement of its own."""
    span: Span
    label: str | None
    name: str | None
    options: "Expr | None"
    cond: "Expr | None"
    body: tuple["Stmt", ...]


@dataclass(frozen=True, slots=True)
class ChooseOneStmt:
    """`p chooses one, prompt "Your move":` then options of different kinds, each with its block:
    "play a card, draw, or pass" as one decision."""
    span: Span
    player: Expr
    prompt: str | None
    choices: tuple[MenuOption, ...]


Stmt = Union[DocItem, MoveStmt, ShuffleStmt, FlipStmt, SetStmt, AddStmt, SubtractStmt, LetStmt,
             ChooseStmt, AnnounceStmt, EliminateStmt, WinStmt, DrawGameStmt, StopStmt, CallStmt,
             RollStmt, CounterStmt, NegateStmt, SkipStmt, ExpectStmt, GiveStmt, SayStmt, PlayStmt, ExpectEventStmt, StackDeckStmt, IfStmt,
             ForStmt, RepeatStmt, WhileStmt, TimesStmt, StepStmt, TurnStmt, MayStmt, TakeActionsStmt,
             SecretStmt, ChooseOneStmt, ChooseManyStmt, ScoreWinStmt, LookStmt, ResolveStmt,
             RollPoolStmt, RollIntoStmt, RerollStmt, TurnDieStmt, RemoveDiceStmt, HandOutStmt, HandOutCardsStmt,
             CreateStmt, DestroyStmt]
Block = tuple[Stmt, ...]

# ============================================================== abilities


@dataclass(frozen=True, slots=True)
class Triggered:
    """`when battle_won where card = this: ...`"""
    span: Span
    event: str
    cond: Expr | None
    body: Block
    at_once: bool = False   # `, at once`: resolves at once even where the stack holds its type's triggers


@dataclass(frozen=True, slots=True)
class Activation:
    """One restriction or cost of an activated ability (`from hand`, `at any time`, `cost: exhaust`)."""
    span: Span
    kind: str               # "from" | "any_time" | "own_turn" | "if" | "cost_exhaust" | "cost_tap" | "cost_pay"
    name: str | None = None
    expr: Expr | None = None
    names: tuple[str, ...] = ()     # "from": every zone named (`from hand or station`); name is the first


@dataclass(frozen=True, slots=True)
class Activated:
    """`action "Play it" from hand, at any time, if cost = 0: ...`"""
    span: Span
    name: str
    activations: tuple[Activation, ...]
    body: Block


@dataclass(frozen=True, slots=True)
class StaticMod:
    """`modify strength of cards in column by 1 while ...`: a card field of cards; a player
    attribute of a player or players (`modify draws of you by 1`); a game attribute, with no
    `of` (`modify hand_limit by 1`: target is None). The checker records the target's type,
    which says which of the three it is (interpreter/program.py `modifier_kind`)."""
    span: Span
    field: str
    target: Expr | None
    amount: Expr
    cond: Expr | None


@dataclass(frozen=True, slots=True)
class Replacement:
    """`instead of destroyed where ...: ...`"""
    span: Span
    event: str
    cond: Expr | None
    body: Block


@dataclass(frozen=True, slots=True)
class CardText:
    """`text: add 2 to your gold` — what the card does when a rule resolves it (`resolve the
    text of c`): an event card's effect. Never triggered; one per card."""
    span: Span
    body: Block


Ability = Union[Triggered, Activated, StaticMod, Replacement, CardText]

# ============================================================== declarations


@dataclass(frozen=True, slots=True)
class TypeRef:
    """`number`, `flag`, `text`, `card`, `player`, an enum or card type name, `list of X`"""
    span: Span
    name: str
    is_list: bool = False


@dataclass(frozen=True, slots=True)
class FieldDecl:
    """`bonus: number = 0, at least 0`"""
    span: Span
    name: str
    type: TypeRef
    default: Expr | None
    at_least: int | None
    at_most: int | None
    docs: tuple[str, ...]
    label: str | None = None            # the display name for the rulebook: `race_leader "Race Leader": flag`
    reset: str | None = None            # `, reset each turn` / `round`: back to its starting value as each begins


@dataclass(frozen=True, slots=True)
class GameDecl:
    """`game "Title": players: 2 to 6 ...`"""
    span: Span
    title: str
    min_players: int
    max_players: int
    summary: str
    source: str
    docs: tuple[str, ...]
    players_span: Span | None = None     # the `players:` line, where E0103 points
    remembers: bool = False              # `remember seen cards`: the engine keeps who has seen each card


@dataclass(frozen=True, slots=True)
class EnumDecl:
    """`enum Colour: red, blue "Deep Blue"`"""
    span: Span
    name: str
    members: tuple[str, ...]
    labels: tuple[tuple[str, str], ...] = ()   # (member, display name) where the file gives one; the log keeps the member


@dataclass(frozen=True, slots=True)
class KeywordUse:
    """`keyword Farsight(2)` on a card or card type."""
    span: Span
    name: str
    args: tuple[Expr, ...]


@dataclass(frozen=True, slots=True)
class CardTypeDecl:
    """`card type Unit: faction: Faction ...`"""
    span: Span
    name: str
    fields: tuple[FieldDecl, ...]
    docs: tuple[str, ...]
    blank_unless: Expr | None
    abilities: tuple[Ability, ...]
    keywords: tuple[KeywordUse, ...]
    back: tuple[str, ...] = ()          # `back shows: tier`: fields printed on the back (docs/language.md, "Card backs")
    back_span: Span | None = None
    parts: tuple["PartsDecl", ...] = ()  # `parts belts: 2` (docs/language.md, "Parts of a card")


@dataclass(frozen=True, slots=True)
class PartsDecl:
    """`parts mines "Mine": 2` then fields on indented lines: each card of the type has
    that many belts (or its table row's `belts` cell), each with its own values of the fields."""
    span: Span
    name: str
    label: str | None
    count: int
    fields: tuple[FieldDecl, ...]


@dataclass(frozen=True, slots=True)
class AttrsDecl:
    """`player has: ...` / `game has: ...`"""
    span: Span
    owner: str
    fields: tuple[FieldDecl, ...]
    docs: tuple[str, ...]


@dataclass(frozen=True, slots=True)
class ZoneDecl:
    """`zone deck: per player, ordered, hidden "Your deck."`"""
    span: Span
    name: str
    per_player: bool
    ordered: bool
    visibility: str          # "hidden" | "owner" | "others" (all but its owner) | "public"
    capacity: int | None
    doc: str | None
    label: str | None = None            # the display name for the rulebook: `zone pile "Draw pile": ...`
    # `face down known to its owner`: a card lying face down here is seen by the zone's owner
    # too (a public zone: the others see its back); read by interpreter/visibility.py
    owner_knows: bool = False
    # `at most 12, discard down into mineral_discard`: a move past the capacity is allowed, and the
    # zone's owner then chooses cards to put into that zone until it holds `capacity` again
    discard_into: str | None = None
    board: str | None = None            # a place of this board (`board map:`), not written as a zone
    # `per ship`: one zone for each entity of that kind (an `entity` declaration); its owner is the
    # entity's owner. per_player is False for it, and it is not a shared zone either
    per_entity: str | None = None
    per_span: Span | None = None        # where `per <kind>` is written, for its errors


@dataclass(frozen=True, slots=True)
class EntityDecl:
    """`entity boat "Launch": per player, at most 3, plural boats` with its text and `has:` its
    attributes (field declarations, like `player has:`)."""
    span: Span
    name: str
    label: str | None
    per_player: bool
    most: int | None                    # `at most N` per player (required: the checker says so)
    plural: str | None                  # `plural allies`; else the name + "s"
    fields: tuple[FieldDecl, ...]
    docs: tuple[str, ...]

    @property
    def plural_name(self) -> str:
        return self.plural or self.name + "s"


@dataclass(frozen=True, slots=True)
class BoardDecl:
    """`board map "The map":` with `places: A, B "Bee", C`, `links: A - B, B - C` or a `grid:` /
    `hex:` of rows (`| a1 | b1 |`, an empty cell a hole), `place has:` fields and
    `player on a place has:` marks. Every place is a shared, public, unordered zone."""
    span: Span
    name: str
    label: str | None
    places: tuple[tuple[str, str | None, Span], ...]    # (name, display name, span), declared order
    links: tuple[tuple[str, str, Span], ...]
    shape: str | None                                    # "grid" | "hex" | None (links listed)
    rows: tuple[tuple[tuple[str | None, Span], ...], ...]  # the shape's rows of cells
    fields: tuple[FieldDecl, ...]
    marks: tuple[FieldDecl, ...]
    docs: tuple[str, ...]
    value_columns: tuple[str, ...] = ()                 # `values:` header: place, then field names
    value_rows: tuple["TableRow", ...] = ()


@dataclass(frozen=True, slots=True)
class TableRow:
    """`| "Scout" | red | 3 | yes | 1 |`, and under it, indented, the row's own doc strings,
    abilities and keywords (`text: add 2 to your gold`), as a card block has them."""
    span: Span
    cells: tuple[Expr | None, ...]
    docs: tuple[str, ...] = ()
    abilities: tuple["Ability", ...] = ()
    keywords: tuple["KeywordUse", ...] = ()


@dataclass(frozen=True, slots=True)
class CardTable:
    """`cards Unit in box:` with a header row and one row per card (or per `copies`)."""
    span: Span
    type_name: str
    zone: str
    header: tuple[str, ...]
    rows: tuple[TableRow, ...]


@dataclass(frozen=True, slots=True)
class FieldValue:
    """`colour = red` inside a `card` block."""
    span: Span
    name: str
    value: Expr


@dataclass(frozen=True, slots=True)
class CardDecl:
    """`card "Peace": Power in box` with field values and abilities."""
    span: Span
    name: str
    type_name: str
    zone: str
    values: tuple[FieldValue, ...]
    docs: tuple[str, ...]
    abilities: tuple[Ability, ...]
    keywords: tuple[KeywordUse, ...]


@dataclass(frozen=True, slots=True)
class DieDecl:
    """`die White: [], [aim], [aim], [damage], [critical], [aim, aim]`"""
    span: Span
    name: str
    faces: tuple[tuple[str, ...], ...]


@dataclass(frozen=True, slots=True)
class Param:
    """`winner: player`"""
    span: Span
    name: str
    type: TypeRef


@dataclass(frozen=True, slots=True)
class EventDecl:
    """`event battle_won(winner: player, card: card) "After winning a battle"`"""
    span: Span
    name: str
    params: tuple[Param, ...]
    doc: str | None


@dataclass(frozen=True, slots=True)
class DefineDecl:
    """`define strength(p) as (top card of p's battlefield).strength + p's bonus`"""
    span: Span
    name: str
    params: tuple[str, ...]
    expr: Expr


@dataclass(frozen=True, slots=True)
class ProcedureDecl:
    """`procedure refill(p): ...`"""
    span: Span
    name: str
    params: tuple[str, ...]
    body: Block


@dataclass(frozen=True, slots=True)
class KeywordDecl:
    """`keyword Farsight(x: number): when turn_started ...` — defined once, used by many cards."""
    span: Span
    name: str
    params: tuple[Param, ...]
    docs: tuple[str, ...]
    abilities: tuple[Ability, ...]
    fields: tuple["FieldDecl", ...] = ()    # not allowed: reported by the checker (E0107)


@dataclass(frozen=True, slots=True)
class SetupDecl:
    """`setup: ...`"""
    span: Span
    body: Block


@dataclass(frozen=True, slots=True)
class RoundDecl:
    """`round "Contest": ...` — repeated until the game ends."""
    span: Span
    name: str
    body: Block


@dataclass(frozen=True, slots=True)
class EndCheckDecl:
    """`as soon as count(players) = 1: first(players) wins` — checked after every change;
    `as soon as ..., named "Last one standing":` can be overridden in a variant by that name."""
    span: Span
    cond: Expr
    body: Block
    name: str | None = None


@dataclass(frozen=True, slots=True)
class OrderKey:
    """`number highest first` / `seat order`"""
    span: Span
    expr: Expr | None
    highest_first: bool


@dataclass(frozen=True, slots=True)
class TriggerOrderDecl:
    """`order simultaneous triggers by number highest first then seat order`"""
    span: Span
    keys: tuple[OrderKey, ...]


@dataclass(frozen=True, slots=True)
class ScoreDecl:
    """`score for p as p's points`: each player's score, in the engine's result; `the highest
    score wins` ends the game by it."""
    span: Span
    player: str
    expr: Expr


@dataclass(frozen=True, slots=True)
class MeasureDecl:
    """`measure "Final hand size" for p as count(cards in p's hand)` (a number for each player when
    the game ends), `measure "Rounds won by seat 1" as ...` (one number for the game) or
    `measure "Challenges per game" counts event Challenge` (how many times the game announced it):
    what `cardsmith simulate` reports for every game (docs/simulate.md); it changes no rule."""
    span: Span
    name: str
    player: str | None          # `for p`: one value per player
    expr: Expr | None           # None for `counts event`
    event: str | None = None    # `counts event E`


@dataclass(frozen=True, slots=True)
class GroupDecl:
    """`group "Faction" for p as p's faction`: `cardsmith simulate` reports win rates by the value
    each player has when the game ends (an enum member, a text, a number or a flag); not a rule."""
    span: Span
    name: str
    player: str
    expr: Expr


@dataclass(frozen=True, slots=True)
class ValueDecl:
    """`value for p as p's score - 3 * count(cards in p's hand)`: how well p stands, read by
    the agents (docs/agents.md); it changes no rule of the game."""
    span: Span
    player: str
    expr: Expr


@dataclass(frozen=True, slots=True)
class WindowDecl:
    """`response window "Answers": opens after action_used ...` (or `opens at any moment`)"""
    span: Span
    name: str
    after: tuple[str, ...]
    order: Expr | None
    docs: tuple[str, ...]
    any_moment: bool = False        # `opens at any moment`: after every event, whenever someone can answer


@dataclass(frozen=True, slots=True)
class StackDecl:
    """`stack "The Chain": "..."`"""
    span: Span
    name: str
    docs: tuple[str, ...]
    # `holds triggered abilities [of T, ...]`: None (not said), () (all), or the card types named
    holds: tuple[str, ...] | None = None
    holds_span: Span | None = None


@dataclass(frozen=True, slots=True)
class DeckRule:
    """One line of a `decks` declaration, by `kind`:

        exactly 10 Module / at least 40 cards / at most 20 Action    "count" (bound, n, type_name;
                                                                     type_name None: every card)
        names are unique except Action, Token                        "unique" (excepted)
        at most 2 copies of each Action / ... of each card           "copies" (n, type_name or None)
        the power of Hazard cards adds up to at most 10        "sum" (field, type_name, n)
        Module into modules                                          "into" (type_name, zone)
    """
    span: Span
    kind: str
    n: int = 0
    bound: str | None = None            # "exactly" | "at least" | "at most"
    type_name: str | None = None
    type_span: Span | None = None
    field: str | None = None
    zone: str | None = None
    excepted: tuple[tuple[str, Span], ...] = ()


@dataclass(frozen=True, slots=True)
class DeckRulesDecl:
    """`decks from collection into deck:` and its lines (DeckRule), the deck rules: the pool is the
    cards declared in the shared zone `collection`; a seat's deck is dealt into its zone `deck`."""
    span: Span
    pool: str
    pool_span: Span
    into: str | None
    into_span: Span | None
    rules: tuple[DeckRule, ...]
    docs: tuple[str, ...]


@dataclass(frozen=True, slots=True)
class ProseDecl:
    """`rule "Title": "prose"`"""
    span: Span
    title: str
    docs: tuple[str, ...]


@dataclass(frozen=True, slots=True)
class NoteDecl:
    """`interpretation "..."`"""
    span: Span
    text: str


@dataclass(frozen=True, slots=True)
class TermDecl:
    """`term "Harvest": "the winner of a round takes every card played in it"`: a word of the game's
    own, for the rulebook's glossary."""
    span: Span
    word: str
    text: str


@dataclass(frozen=True, slots=True)
class CreditDecl:
    """`credit "Game design": "A. Designer", "B. Designer"`: who made the game, for the rulebook."""
    span: Span
    role: str
    names: tuple[str, ...]


@dataclass(frozen=True, slots=True)
class ImportDecl:
    span: Span
    path: str


@dataclass(frozen=True, slots=True)
class ExtendsDecl:
    span: Span
    path: str


@dataclass(frozen=True, slots=True)
class OverrideDecl:
    span: Span
    decl: "Decl"


@dataclass(frozen=True, slots=True)
class ScenarioDecl:
    """`scenario "A tie goes to War" with 2 players and seed 7: ...` — a rules test written in the
    language (`seed`: its own seed, else the one `cardsmith test` is given)."""
    span: Span
    name: str
    players: int | None
    body: Block
    seed: int | None = None


Decl = Union[GameDecl, EnumDecl, CardTypeDecl, AttrsDecl, ZoneDecl, EntityDecl, BoardDecl, CardTable, CardDecl, DieDecl,
             EventDecl, DefineDecl, ProcedureDecl, KeywordDecl, SetupDecl, RoundDecl, EndCheckDecl,
             TriggerOrderDecl, ValueDecl, ScoreDecl, MeasureDecl, GroupDecl, WindowDecl, StackDecl, DeckRulesDecl, ProseDecl, NoteDecl, TermDecl, CreditDecl, ImportDecl, ExtendsDecl,
             OverrideDecl, ScenarioDecl]


@dataclass(frozen=True, slots=True)
class Module:
    """A whole parsed file."""
    span: Span
    decls: tuple[Decl, ...]
