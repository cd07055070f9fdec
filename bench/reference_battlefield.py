"""Hand-written reference implementation of "Battlefield: Space".

It follows games/battlefield_space.cards rule for rule (card data copied as plain literals, no
cardsmith import) and plays it with the same random policy as the interpreter's random bots, so
that bench/bench_battlefield.py can compare the interpreter's speed against what a plain Python
program does.

Conventions (each one is how the interpreter runs the .cards file):
  * cards are ints 0..143 in the order of the file's card tables (a copy after the previous one):
    Ships 0..125 (red 0..62, blue 63..125), Battle Modifiers 126..143 (red 126..134, blue
    135..143); a card's owner is its alliance's seat (seat 0 red, seat 1 blue), and its Force
    modifiers and triggers are that player's ("you");
  * zones are lists; the *top* of an ordered zone is the END of the list (``deck.pop()`` plays
    the top card, ``deck.insert(0, c)`` puts one at the bottom); ``loc[c]`` is the list that holds c;
  * the game's shuffles use ``random.Random(seed)``; every player decides with their own
    ``random.Random(seed * 1000 + seat)`` (seeded like the interpreter's default RandomAgents):
    a uniform ``randrange`` among the legal options when there are two or more; one option is
    taken without asking, none gives nothing (as the engine does);
  * "revealed" happens to a card turned face up in a column (flipped, or played face up from
    the deck); the triggers of one moment (one flip of several cards) are ordered by the game's
    ``order simultaneous triggers by number highest first then seat order`` (a Ship has no
    number: 0), then seat, then card number; each runs to the end, with everything it sets
    off, before the next, and re-checks its condition when its turn comes;
  * ``for each`` walks the list as it was when the loop began; Force is computed from the
    current state whenever a column is totalled (modifiers follow cards as they move).

Run as a script to play 100 games (or GAMES) with invariant checks after every battle.
"""
from __future__ import annotations

import random
import sys
import time

MAX_BATTLES = 100_000

# Races
FEYLA, KTOTEKK, VORN, CC, DETERIAN, AELON = range(6)
RED, BLUE = 0, 1

# (name, alliance, race, force, play_another, column_bonus, kin_in_column, kin_in_battle, race_leader, copies)
SHIP_TABLE = (
    ("Feyla Elai Fighter", RED, FEYLA, 3, 1, 0, 0, 0, 0, 8),
    ("Feyla Elai Interceptor", RED, FEYLA, 2, 1, 0, 0, 0, 0, 4),
    ("Feyla Elai Starhawk", RED, FEYLA, 4, 1, 0, 0, 0, 0, 2),
    ("Feyla Elai Lancer", RED, FEYLA, 4, 0, 0, 0, 0, 0, 6),
    ("K'Totekk Striker", RED, KTOTEKK, 2, 0, 0, 0, 1, 0, 10),
    ("K'Totekk Drone", RED, KTOTEKK, 1, 0, 0, 0, 1, 0, 6),
    ("K'Totekk Hive Ship", RED, KTOTEKK, 3, 0, 0, 0, 1, 0, 2),
    ("K'Totekk Brood Mother", RED, KTOTEKK, 5, 0, 0, 0, 0, 0, 2),
    ("Vorn Picket", RED, VORN, 1, 0, 0, 0, 0, 0, 4),
    ("Vorn Escort", RED, VORN, 2, 0, 0, 0, 0, 0, 5),
    ("Vorn Gunship", RED, VORN, 4, 0, 0, 0, 0, 0, 6),
    ("Vorn Battle Carrier", RED, VORN, 3, 0, 1, 0, 0, 0, 4),
    ("Vorn Dreadnought", RED, VORN, 6, 0, 0, 0, 0, 0, 4),
    ("Confederation Courier", BLUE, CC, 3, 1, 0, 0, 0, 0, 7),
    ("Confederation Frigate", BLUE, CC, 3, 0, 0, 0, 0, 0, 7),
    ("Confederation Cruiser", BLUE, CC, 4, 0, 0, 0, 0, 0, 6),
    ("Confederation Flagship", BLUE, CC, 5, 0, 0, 0, 0, 1, 2),
    ("Deterian Raider", BLUE, DETERIAN, 2, 0, 0, 1, 0, 0, 10),
    ("Deterian Warship", BLUE, DETERIAN, 3, 0, 0, 1, 0, 0, 6),
    ("Deterian Ravager", BLUE, DETERIAN, 5, 0, 0, 1, 0, 0, 2),
    ("Deterian Marauder", BLUE, DETERIAN, 4, 0, 0, 0, 0, 0, 2),
    ("Aelon Skimmer", BLUE, AELON, 1, 0, 0, 0, 0, 0, 3),
    ("Aelon Lightship", BLUE, AELON, 3, 1, 0, 0, 0, 0, 6),
    ("Aelon Support Tender", BLUE, AELON, 2, 0, 1, 0, 0, 0, 4),
    ("Aelon Sentinel", BLUE, AELON, 4, 0, 0, 0, 0, 0, 3),
    ("Aelon Bastion", BLUE, AELON, 6, 0, 0, 0, 0, 0, 5),
)

ION_STORM, WAR_CRY, BLACK_HOLE, WAVE, SHIELD, SALVAGE, JUMP, RALLY, TRACTOR = (
    "Ion Storm", "K'Totekk War Cry", "Black Hole", "Reinforcement Wave", "Shield Matrix",
    "Salvage Crews", "Hyperspace Jump", "Confederation Rally", "Tractor Beam")

# (name, alliance, number, copies)
MODIFIER_TABLE = (
    (ION_STORM, RED, 12, 1),
    (WAR_CRY, RED, 11, 1),
    (BLACK_HOLE, RED, 10, 1),
    (WAVE, RED, 7, 1),
    (SHIELD, RED, 6, 2),
    (SALVAGE, RED, 4, 1),
    (JUMP, RED, 3, 2),
    (ION_STORM, BLUE, 12, 1),
    (RALLY, BLUE, 9, 1),
    (TRACTOR, BLUE, 8, 1),
    (WAVE, BLUE, 7, 1),
    (SHIELD, BLUE, 6, 2),
    (SALVAGE, BLUE, 4, 1),
    (JUMP, BLUE, 3, 2),
)

# Per-card arrays, indexed by card number (a Battle Modifier: not a ship, force 0, race -1).
NAME, OWNER, IS_SHIP, RACE, FORCE, PLAY_ANOTHER, COLUMN_BONUS, KIN_COLUMN, KIN_BATTLE, LEADER, NUMBER = (
    [], [], [], [], [], [], [], [], [], [], [])
for _name, _all, _race, _force, _pa, _cb, _kc, _kb, _rl, _copies in SHIP_TABLE:
    for _ in range(_copies):
        NAME.append(_name), OWNER.append(_all), IS_SHIP.append(True), RACE.append(_race)
        FORCE.append(_force), PLAY_ANOTHER.append(bool(_pa)), COLUMN_BONUS.append(bool(_cb))
        KIN_COLUMN.append(bool(_kc)), KIN_BATTLE.append(bool(_kb)), LEADER.append(bool(_rl)), NUMBER.append(0)
for _name, _all, _number, _copies in MODIFIER_TABLE:
    for _ in range(_copies):
        NAME.append(_name), OWNER.append(_all), IS_SHIP.append(False), RACE.append(-1)
        FORCE.append(0), PLAY_ANOTHER.append(False), COLUMN_BONUS.append(False)
        KIN_COLUMN.append(False), KIN_BATTLE.append(False), LEADER.append(False), NUMBER.append(_number)
N_CARDS = len(NAME)
# Ships whose presence changes another ship's Force (anything but the printed value)
GIVES = [COLUMN_BONUS[c] or KIN_COLUMN[c] or LEADER[c] for c in range(N_CARDS)]
del _name, _all, _race, _force, _pa, _cb, _kc, _kb, _rl, _copies, _number


class SplitMix64:
    """The interpreter's game generator, written out (SplitMix64, Fisher-Yates by rejection
    sampling), for the exact mode only: with it, and the same bots, the reference replays the
    interpreter's very games seed for seed (bench_battlefield.py --exact checks that it does)."""

    MASK = (1 << 64) - 1

    def __init__(self, seed):
        self.state = seed & self.MASK
        self.next64()

    def next64(self):
        self.state = z = (self.state + 0x9E3779B97F4A7C15) & self.MASK
        z = ((z ^ (z >> 30)) * 0xBF58476D1CE4E5B9) & self.MASK
        z = ((z ^ (z >> 27)) * 0x94D049BB133111EB) & self.MASK
        return z ^ (z >> 31)

    def shuffle(self, items):
        for i in range(len(items) - 1, 0, -1):
            n = i + 1
            limit = (1 << 64) - ((1 << 64) % n)
            x = self.next64()
            while x >= limit:
                x = self.next64()
            j = x % n
            items[i], items[j] = items[j], items[i]


class Player:
    __slots__ = ("seat", "rng", "deck", "hand", "left", "centre", "right", "line", "beside",
                 "survivors", "out")

    def __init__(self, seat, rng):
        self.seat = seat
        self.rng = rng
        self.deck = []          # top = end of list
        self.hand = []
        self.left, self.centre, self.right = [], [], []
        self.line = (self.left, self.centre, self.right)
        self.beside = []
        self.survivors = []
        self.out = False

    def pick(self, options):
        """A decision: none from no options, the one option without asking, else uniform."""
        if not options:
            return None
        if len(options) == 1:
            return options[0]
        return options[self.rng.randrange(len(options))]

    def fleet(self):
        return (len(self.deck) + len(self.hand) + len(self.left) + len(self.centre) + len(self.right)
                + len(self.survivors))

    def can_add(self):
        return bool(self.deck) or bool(self.survivors)


class GameOver(Exception):
    def __init__(self, winner):
        self.winner = winner


class Battlefield:
    def __init__(self, seed, exact=False):
        self.rng = SplitMix64(seed) if exact else random.Random(seed)
        self.players = [Player(s, random.Random(seed * 1000 + s)) for s in range(2)]
        self.box = list(range(N_CARDS))
        self.graveyard = []
        self.loc = [self.box] * N_CARDS
        self.up = [False] * N_CARDS
        self.tie_break = False
        self.battles = 0
        self.decisions = 0      # decisions with two or more options (asked of a bot)

    # -- moving cards --------------------------------------------------------------------
    def move(self, c, dest, bottom=False):
        src = self.loc[c]
        if src[-1] == c:
            src.pop()
        else:
            src.remove(c)
        if bottom:
            dest.insert(0, c)
        else:
            dest.append(c)
        self.loc[c] = dest

    def move_all(self, cards, dest, up=True):
        for c in cards:
            self.move(c, dest)
            self.up[c] = up

    def in_line(self, c):
        """`zone of c is in line(you)`, you being c's owner (whose zones alone hold c)."""
        z = self.loc[c]
        line = self.players[OWNER[c]].line
        return z is line[0] or z is line[1] or z is line[2]

    def battlefield(self):
        p, q = self.players
        return p.left + p.centre + p.right + q.left + q.centre + q.right

    def pick(self, p, options):
        if len(options) > 1:
            self.decisions += 1
        return p.pick(options)

    # -- procedures ----------------------------------------------------------------------
    def refill(self, p):
        if not p.deck and p.survivors:
            for c in list(p.survivors):
                self.move(c, p.deck)
                self.up[c] = False
            self.rng.shuffle(p.deck)

    def place_face_down(self, p, column):
        self.refill(p)
        if p.deck:
            c = p.deck[-1]
            self.move(c, column)
            self.up[c] = False

    def play_upon(self, p, column):
        self.refill(p)
        if p.deck:
            c = p.deck[-1]
            self.move(c, column)
            self.up[c] = True
            if column is self.graveyard:
                return                      # revealed where no ability works
            self.revealed([c])

    def draw_reinforcement(self, p):
        self.refill(p)
        if p.deck:
            c = p.deck[-1]
            self.move(c, p.hand)
            self.up[c] = False
            if not IS_SHIP[c]:
                self.up[c] = True
                self.flipped_in_hand([c])

    def play_modifier(self, p, m):
        self.move(m, p.beside)
        self.up[m] = True
        self.modifier_played(p, m)

    # -- triggers ------------------------------------------------------------------------
    def _revealed_applies(self, c):
        """The `when revealed` abilities of a card: a 'play another' ship, or a Battle Modifier
        (outside step 6), laid down in one of its player's columns."""
        if IS_SHIP[c]:
            return PLAY_ANOTHER[c] and self.in_line(c)
        return self.in_line(c) and not self.tie_break

    def revealed(self, cards):
        """One moment: these cards were turned face up in a column."""
        fired = [c for c in cards if self._revealed_applies(c)]
        if len(fired) > 1:
            fired.sort(key=lambda c: (-NUMBER[c], OWNER[c], c))
        for c in fired:
            if not self._revealed_applies(c):      # re-checked when it comes to resolve
                continue
            p = self.players[OWNER[c]]
            column = self.loc[c]
            if IS_SHIP[c]:
                self.play_upon(p, column)
            else:
                self.play_modifier(p, c)
                self.play_upon(p, column)

    def flipped_in_hand(self, cards):
        """Battle Modifiers turned face up in a hand: each is played, then replaced."""
        fired = [c for c in cards if self.loc[c] is self.players[OWNER[c]].hand]
        if len(fired) > 1:
            fired.sort(key=lambda c: (-NUMBER[c], OWNER[c], c))
        for c in fired:
            p = self.players[OWNER[c]]
            if self.loc[c] is not p.hand:
                continue
            self.play_modifier(p, c)
            self.draw_reinforcement(p)

    def modifier_played(self, p, m):
        name = NAME[m]
        opp = self.players[1 - p.seat]
        if name == ION_STORM:
            for z in (self.players[0].beside, self.players[1].beside):
                for c in [c for c in z if c != m]:
                    self.move(c, self.graveyard)
                    self.up[c] = True
            for c in [c for c in self.battlefield() if not IS_SHIP[c]]:
                column = self.loc[c]
                q = self.players[OWNER[c]]
                self.move(c, self.graveyard)
                self.up[c] = True
                self.play_upon(q, column)
            for c in [c for c in self.players[0].hand + self.players[1].hand if not IS_SHIP[c]]:
                q = self.players[OWNER[c]]
                self.move(c, self.graveyard)
                self.up[c] = True
                self.draw_reinforcement(q)
        elif name == BLACK_HOLE:
            s = self.pick(p, [c for z in opp.line for c in z if IS_SHIP[c]])
            if s is not None:
                self.move(s, self.graveyard)
                self.up[s] = True
        elif name == TRACTOR:
            s = self.pick(p, [c for z in opp.line for c in z if IS_SHIP[c]])
            if s is not None:
                self.move(s, opp.deck, bottom=True)
                self.up[s] = False
        elif name == WAVE:
            for z in p.line:
                self.play_upon(p, z)
        elif name == SALVAGE:
            s = self.pick(p, [c for c in self.graveyard if IS_SHIP[c] and OWNER[c] == p.seat])
            if s is not None:
                self.move(s, p.survivors)
                self.up[s] = True
        elif name == JUMP:
            s = self.pick(p, [c for z in p.line for c in z if IS_SHIP[c]])
            if s is not None:
                self.play_upon(p, self.loc[s])

    # -- Force ---------------------------------------------------------------------------
    def column_total(self, column, p):
        """The sum of the Force of the column's cards, with every modifier in play."""
        if not column:
            return 0
        ships = [c for c in column if IS_SHIP[c]]
        if not ships:
            return 0
        everywhere = [c for q in self.players for z in q.line for c in z if IS_SHIP[c]]
        beside = self.players[0].beside + self.players[1].beside
        war_cry = sum(1 for m in beside if NAME[m] == WAR_CRY)
        rally = sum(1 for m in beside if NAME[m] == RALLY)
        shields = sum(1 for m in p.beside if NAME[m] == SHIELD)
        givers = [y for y in ships if GIVES[y]]
        leaders = [y for y in everywhere if LEADER[y]]
        total = 0
        for x in ships:
            f = FORCE[x] + shields
            race = RACE[x]
            for y in givers:            # '+1 Force' and the Deterians' battle group: this column
                if y != x:
                    if COLUMN_BONUS[y]:
                        f += 1
                    if KIN_COLUMN[y] and RACE[y] == race:
                        f += 1
            if KIN_BATTLE[x]:           # the K'Totekk: every other ship of the race engaged
                f += sum(1 for y in everywhere if RACE[y] == race and y != x)
            for y in leaders:           # the Flagship: every other ship of its race engaged
                if y != x and RACE[y] == race:
                    f += 1
            if race == KTOTEKK:
                f += war_cry
            elif race == CC:
                f += rally
            total += f
        return total

    # -- the steps -----------------------------------------------------------------------
    def flip_battlefield(self):
        flipped = [c for c in self.battlefield() if not self.up[c]]
        for c in flipped:
            self.up[c] = True
        if flipped:
            self.revealed(flipped)

    def form_columns(self):
        for p in self.players:
            for column in p.line:
                self.place_face_down(p, column)
        self.flip_battlefield()

    def draw_reinforcements(self):
        for p in self.players:
            for _ in range(3):
                self.refill(p)
                if p.deck:
                    c = p.deck[-1]
                    self.move(c, p.hand)
                    self.up[c] = False
        flipped = [c for p in self.players for c in p.hand if not IS_SHIP[c] and not self.up[c]]
        for c in flipped:
            self.up[c] = True
        if flipped:
            self.flipped_in_hand(flipped)

    def commit_reinforcements(self):
        for column in range(3):
            picks = [self.pick(p, list(p.hand)) for p in self.players]     # secretly, in seat order
            for p, c in zip(self.players, picks):
                if c is not None:
                    self.move(c, p.line[column])
                    self.up[c] = False
        self.flip_battlefield()

    def settle(self, a, column_a, force_a, b, column_b, force_b):
        if force_a > force_b:
            self.move_all(list(column_a), a.survivors)
            self.move_all(list(column_b), self.graveyard)
        elif force_b > force_a:
            self.move_all(list(column_b), b.survivors)
            self.move_all(list(column_a), self.graveyard)

    def judge_columns(self):
        """Steps 4 and 5: every column's total written down at the same moment, then settled."""
        a, b = self.players
        self.totals = [[self.column_total(a.line[i], a), self.column_total(b.line[i], b)] for i in range(3)]
        self.settle_written()

    def settle_written(self):
        a, b = self.players
        for i in range(3):
            self.settle(a, a.line[i], self.totals[i][0], b, b.line[i], self.totals[i][1])

    def _column_forces(self, sign):
        for k, p in enumerate(self.players):
            for i in range(3):
                self.totals[i][k] += sign * self.column_total(p.line[i], p)

    def break_ties(self):
        """Step 6: a tied column's total goes on from its tie score; the cards added are worth what
        they change in their column's Force (the game's interpretation note)."""
        a, b = self.players
        self.tie_break = True
        while any(a.line) or any(b.line):
            if not a.can_add() and not b.can_add():
                self.move_all(self.battlefield(), self.graveyard)
                break
            tied = [i for i in range(3)
                    if self.totals[i][0] == self.totals[i][1] and (a.line[i] or b.line[i])]
            self._column_forces(-1)
            for i in tied:
                if a.can_add():
                    self.place_face_down(a, a.line[i])
                if b.can_add():
                    self.place_face_down(b, b.line[i])
            self.flip_battlefield()
            self._column_forces(+1)
            self.settle_written()
        self.tie_break = False

    def clear_battlefield(self):
        for p in self.players:
            self.move_all(list(p.beside), self.graveyard)
        out = [p for p in self.players if not p.out and p.fleet() == 0]
        for p in out:
            p.out = True
        if out:                             # the "as soon as" end checks, after the elimination
            alive = [p for p in self.players if not p.out]
            if len(alive) == 1:
                raise GameOver(alive[0].seat)
            if not alive:
                raise GameOver(None)

    def battle(self):
        self.form_columns()
        self.draw_reinforcements()
        self.commit_reinforcements()
        self.judge_columns()
        self.break_ties()
        self.clear_battlefield()

    def setup(self):
        for p in self.players:
            for c in [c for c in self.box if OWNER[c] == p.seat]:
                self.move(c, p.deck)
                self.up[c] = False
            self.rng.shuffle(p.deck)

    def play(self, check=False):
        """Play to the end: the winner's seat, or None (a draw, or no end within MAX_BATTLES)."""
        try:
            self.setup()
            if check:
                self.check()
            while self.battles < MAX_BATTLES:
                self.battles += 1
                self.battle()
                if check:
                    self.check()
            return None
        except GameOver as over:
            if check:
                self.check()
            return over.winner

    # -- the reference's own invariants ----------------------------------------------------
    def zones(self):
        out = [("box", self.box), ("graveyard", self.graveyard)]
        for p in self.players:
            out += [(f"{z} {p.seat}", getattr(p, z))
                    for z in ("deck", "hand", "left", "centre", "right", "beside", "survivors")]
        return out

    def check(self):
        """Every card in exactly one zone, the one `loc` names; a player's zones hold only their
        own cards; between battles the columns, hands and besides are empty and the cards not
        in the Graveyard are the fleets."""
        seen = [0] * N_CARDS
        for name, z in self.zones():
            for c in z:
                seen[c] += 1
                assert self.loc[c] is z, f"card {c} ({NAME[c]}) is in {name} but loc says elsewhere"
                if name not in ("box", "graveyard"):
                    assert OWNER[c] == int(name.split()[1]), f"{NAME[c]} in another player's {name}"
        assert all(n == 1 for n in seen), "a card is in no zone or in two"
        for p in self.players:
            assert not any(p.line) and not p.beside, "the battlefield was not cleared"
            # A hand is empty between battles, but for reinforcements drawn twice when one Ion
            # Storm goes off inside another (the outer one's `for each` still replaces the
            # Modifiers the inner one already took): its leftovers are ships, never Modifiers.
            assert all(IS_SHIP[c] and not self.up[c] for c in p.hand), "a Battle Modifier left in a hand"
            assert all(not self.up[c] for c in p.deck), "a face-up card in a deck"
            assert p.out == (p.fleet() == 0), "a player is out exactly when their fleet is gone"
        fleets = sum(p.fleet() for p in self.players)
        assert fleets + len(self.graveyard) + len(self.box) == N_CARDS
        assert not self.box or self.battles == 0


def play_game(seed: int, exact: bool = False) -> dict:
    game = Battlefield(seed, exact)
    winner = game.play()
    return {"winner": winner, "rounds": game.battles}


def _self_check(games: int = 100) -> None:
    wins = [0, 0]
    draws = 0
    battles = []
    decisions = 0
    start = time.perf_counter()
    for seed in range(games):
        game = Battlefield(seed)
        winner = game.play(check=True)
        battles.append(game.battles)
        decisions += game.decisions
        if winner is None:
            draws += 1
        else:
            wins[winner] += 1
        assert play_game(seed) == {"winner": winner, "rounds": game.battles}, "not deterministic"
    elapsed = time.perf_counter() - start
    mean = sum(battles) / games
    sd = (sum((b - mean) ** 2 for b in battles) / max(games - 1, 1)) ** 0.5
    print(f"{games} games: wins red {wins[0]}, blue {wins[1]}, draws {draws}; battles per game "
          f"{mean:.2f} ± {sd / games ** 0.5:.2f} (min {min(battles)}, max {max(battles)}); "
          f"bot decisions per game {decisions / games:.1f} ({elapsed:.2f}s, checks on)")


if __name__ == "__main__":
    _self_check(int(sys.argv[1]) if len(sys.argv) > 1 else 100)
