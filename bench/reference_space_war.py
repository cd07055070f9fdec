"""Hand-written reference implementation of "Space War: in Space!".

It follows games/space_war_in_space.cards rule for rule (card data copied as
plain literals, no cardsmith import) and plays it with the same random policy
as the interpreter's random bots, so that bench/bench_space_war.py can compare
the interpreter's speed against what a plain Python program does.

Conventions:
  * zones are lists; the *top* of an ordered zone is the END of the list
    (``deck.pop()`` draws the top card, ``deck[:0] = cards`` puts cards at
    the bottom), the battlefield's top card is the last one revealed;
  * the game's shuffles use ``random.Random(seed)``; every player decides with
    their own ``random.Random(seed * 1000 + seat)`` (seeded like the
    interpreter's default RandomAgents; uniform choice among the legal
    options; "you may" choices are offered as [yes, no]);
  * "as soon as" end checks are applied right after each elimination (so in
    the War's "for each ... eliminate p" loop the game can end before a
    later-seated tied player is eliminated);
  * simultaneous triggers resolve in seat order and each one's "where"
    condition is checked when it resolves (after Peace empties the
    battlefields, Dwarven Armor and Rally no longer apply);
  * ``repeat until peace_declared`` tests before each pass; ``let fighters``
    and ``let face_down`` inside ``step "War"`` rebind the loop's variables;
    ``stop`` leaves the repeat (the Conquest step still runs);
  * "contestants()" are the unconquered players with a card in the
    Battlefield, War participants or not (as the .cards file says).

Run as a script to play 100 games for each player count (2..6) with a card
conservation check after every contest.
"""
from __future__ import annotations

import random
import sys
import time

MAX_CONTESTS = 100_000

FACTIONS = ("Dwarves", "Elves", "Goblins", "Trolls", "Humans", "Orcs")

# (name, faction, strength, leader, copies) -- the "cards Unit in box" table.
UNIT_TABLE = (
    ("Tunnel Sapper", "Dwarves", 1, False, 2),
    ("Ale Runner", "Dwarves", 2, False, 2),
    ("Forge Hand", "Dwarves", 3, False, 2),
    ("Axe Pilot", "Dwarves", 4, False, 2),
    ("Rune Gunner", "Dwarves", 5, False, 2),
    ("Ironclad Miner", "Dwarves", 6, False, 2),
    ("Hammer Frigate", "Dwarves", 7, False, 2),
    ("Deep Hold Cruiser", "Dwarves", 8, False, 2),
    ("Mountain Dreadnought", "Dwarves", 9, False, 1),
    ("Thane of the Deep Halls", "Dwarves", 10, True, 1),
    ("Leaf Scout", "Elves", 1, False, 2),
    ("Bow Skiff", "Elves", 2, False, 2),
    ("Grove Warden", "Elves", 3, False, 2),
    ("Moon Archer", "Elves", 4, False, 2),
    ("Star Glaive", "Elves", 5, False, 2),
    ("Silver Cutter", "Elves", 6, False, 2),
    ("Dawn Lancer", "Elves", 7, False, 2),
    ("Sylvan Barque", "Elves", 8, False, 2),
    ("Elder Ark", "Elves", 9, False, 1),
    ("The Spirit of the Forest", "Elves", 10, True, 1),
    ("Scrap Rat", "Goblins", 1, False, 3),
    ("Junk Rocket", "Goblins", 2, False, 3),
    ("Boom Barge", "Goblins", 3, False, 2),
    ("Spiky Tug", "Goblins", 4, False, 2),
    ("Loot Hauler", "Goblins", 5, False, 2),
    ("Grinder Ram", "Goblins", 6, False, 2),
    ("Smoke Stack", "Goblins", 7, False, 2),
    ("Big Bomba", "Goblins", 8, False, 2),
    ("Rust Behemoth", "Goblins", 9, False, 1),
    ("Warboss Grizzik", "Goblins", 10, True, 1),
    ("Bridge Lurker", "Trolls", 1, False, 2),
    ("Club Drone", "Trolls", 2, False, 2),
    ("Moss Hulk", "Trolls", 3, False, 2),
    ("Stone Hauler", "Trolls", 4, False, 2),
    ("Cave Brute", "Trolls", 5, False, 2),
    ("Boulder Thrower", "Trolls", 6, False, 2),
    ("Swamp Colossus", "Trolls", 7, False, 2),
    ("Granite Maw", "Trolls", 8, False, 2),
    ("Mountain Troll", "Trolls", 9, False, 1),
    ("Chieftain", "Trolls", 10, True, 1),
    ("Militia Skiff", "Humans", 1, False, 2),
    ("Courier", "Humans", 2, False, 2),
    ("Patrol Cutter", "Humans", 3, False, 2),
    ("Marine Lander", "Humans", 4, False, 2),
    ("Corvette", "Humans", 5, False, 2),
    ("Frigate", "Humans", 6, False, 2),
    ("Destroyer", "Humans", 7, False, 2),
    ("Battle Cruiser", "Humans", 8, False, 2),
    ("Carrier", "Humans", 9, False, 1),
    ("Admiral Vance", "Humans", 10, True, 1),
    ("Grunt Raft", "Orcs", 1, False, 3),
    ("Spear Boat", "Orcs", 2, False, 3),
    ("War Drum", "Orcs", 3, False, 2),
    ("Raider", "Orcs", 4, False, 2),
    ("Skull Ram", "Orcs", 5, False, 2),
    ("Blood Galley", "Orcs", 6, False, 2),
    ("Iron Tusk", "Orcs", 7, False, 2),
    ("Doom Hulk", "Orcs", 8, False, 2),
    ("Warlord's Flagship", "Orcs", 9, False, 1),
    ("Warlord Ghash", "Orcs", 10, True, 1),
)

# Power Cards: faction -> (name, starting side). Goblins and Orcs have none.
ARMOR, PEACE, REGENERATION, RALLY = (
    "Dwarven Armor", "Peace", "Regeneration", "Rally")
POWER_TABLE = {
    "Dwarves": (ARMOR, "inactive"),
    "Elves": (PEACE, "inactive"),
    "Trolls": (REGENERATION, "permanent"),
    "Humans": (RALLY, "inactive"),
}


class Card:
    """One physical card (compared by identity: copies are distinct cards)."""

    __slots__ = ("name", "faction", "strength", "leader")

    def __init__(self, name, faction, strength, leader):
        self.name = name
        self.faction = faction
        self.strength = strength
        self.leader = leader

    def __repr__(self):
        return f"<{self.name} {self.strength}>"


class Power:
    __slots__ = ("name", "faction", "side")

    def __init__(self, name, faction, side):
        self.name = name
        self.faction = faction
        self.side = side

    def __repr__(self):
        return f"<{self.name} ({self.side})>"


class Player:
    __slots__ = ("seat", "rng", "faction", "bonus", "deck", "discard",
                 "battlefield", "powers", "alive")

    def __init__(self, seat, rng):
        self.seat = seat
        self.rng = rng
        self.faction = None
        self.bonus = 0
        self.deck = []         # top = end of list
        self.discard = []
        self.battlefield = []  # top = end of list (the card last revealed)
        self.powers = []
        self.alive = True

    def cards_left(self):
        return len(self.deck) + len(self.discard)

    def strength(self):
        return self.battlefield[-1].strength + self.bonus

    def may(self):
        """A "you may" decision: uniform among [yes, no]."""
        return self.rng.choice((True, False))


class GameOver(Exception):
    def __init__(self, winner):
        self.winner = winner


class SpaceWar:
    def __init__(self, players, seed):
        if not 2 <= players <= 6:
            raise ValueError("Space War: in Space! is for 2 to 6 players")
        self.rng = random.Random(seed)
        self.players = [Player(s, random.Random(seed * 1000 + s))
                        for s in range(players)]
        self.alive = list(self.players)   # "players": the unconquered, in seat order
        self.box = [Card(name, faction, strength, leader)
                    for name, faction, strength, leader, copies in UNIT_TABLE
                    for _ in range(copies)]
        self.box += [Power(name, faction, side)
                     for faction, (name, side) in POWER_TABLE.items()]
        self.total_cards = len(self.box)
        self.aside = []
        self.peace_declared = False
        self.contests = 0

    # -- setup -------------------------------------------------------------
    def setup(self):
        for p in self.players:
            taken = {q.faction for q in self.players}
            options = [f for f in FACTIONS if f not in taken]
            f = p.rng.choice(options)
            p.faction = f
            p.deck = [c for c in self.box if isinstance(c, Card) and c.faction == f]
            p.powers = [c for c in self.box if isinstance(c, Power) and c.faction == f]
            self.box = [c for c in self.box if c.faction != f]
            self.rng.shuffle(p.deck)

    # -- procedures ----------------------------------------------------------
    def refill(self, p):
        if not p.deck:
            p.deck = p.discard
            p.discard = []
            self.rng.shuffle(p.deck)

    def add_face_down(self, p):
        self.refill(p)
        p.battlefield.append(p.deck.pop())

    def reveal_top(self, p):
        self.refill(p)
        p.battlefield.append(p.deck.pop())

    def eliminate(self, *out):
        """Eliminate these players together (one statement in the rules), then check the end."""
        for p in out:
            p.alive = False
            self.alive.remove(p)
        # "as soon as" checks, right after the elimination
        if len(self.alive) == 1:
            raise GameOver(self.alive[0].seat)
        if not self.alive:
            raise GameOver(None)

    def capture(self, w):
        winning_card = w.battlefield[-1]
        for p in self.players:
            w.discard += p.battlefield
            p.battlefield.clear()
        self.battle_won(w, winning_card)

    # -- triggered abilities -------------------------------------------------
    def battle_won(self, winner, card):
        # Unit: "when battle_won where card = this and leader", text blank
        # unless the controller (the winner, whose discard holds it) is of
        # the card's faction.
        if card.leader and card.faction == winner.faction:
            self.leader_victory(winner, card)

    def leader_victory(self, p, card):
        for power in p.powers:
            if power.name in (ARMOR, PEACE, RALLY):
                if power.side == "inactive":
                    power.side = "active"
            elif power.name == REGENERATION:
                if card in p.discard:
                    p.discard.remove(card)
                    p.deck.insert(0, card)       # the bottom of the deck

    def before_battle(self, fighters):
        # Simultaneous triggers resolve in seat order; each condition is
        # checked when its trigger resolves (so after Peace, nothing else fires).
        for p in self.alive:
            if not p.powers or p not in fighters:   # you is in fighters
                continue
            power = p.powers[0]
            if power.name == ARMOR:
                if power.side == "active" and p.may():
                    p.bonus += 1
                    power.side = "inactive"
            elif power.name == PEACE:
                if power.side == "active" and not self.peace_declared and p.may():
                    for q in self.players:        # "all players"
                        if q.alive:
                            q.deck[:0] = q.battlefield
                        else:
                            self.aside += q.battlefield
                        q.battlefield.clear()
                    self.peace_declared = True
                    power.side = "inactive"
            elif power.name == RALLY:
                if power.side == "active" and p.may():
                    p.bonus += 2
                    power.side = "inactive"

    # -- one Contest -----------------------------------------------------------
    def contest(self):
        # Reveal
        self.peace_declared = False
        for p in self.alive:
            p.bonus = 0
            self.reveal_top(p)
        self.before_battle(list(self.alive))

        # Battle or War
        fighters = list(self.alive)
        face_down = 2
        while not self.peace_declared:
            best = max(p.strength() for p in fighters)
            tied = [p for p in fighters if p.strength() == best]
            if len(tied) == 1:
                self.capture(tied[0])
                break
            # War
            fighters = tied
            out = [p for p in fighters if p.cards_left() == 0]
            if out:
                self.eliminate(*out)    # together; their cards stay in the Contest
            fighters = [p for p in fighters if p.cards_left() > 0]
            if not fighters:
                for p in self.players:
                    self.aside += p.battlefield
                    p.battlefield.clear()
                break
            if len(fighters) == 1:
                self.capture(fighters[0])
                break
            each_adds = min(face_down + 1, min(p.cards_left() for p in fighters))
            for p in fighters:
                for _ in range(each_adds - 1):
                    self.add_face_down(p)
                self.reveal_top(p)
            face_down = max(face_down - 1, 0)
            self.before_battle(fighters)

        # Conquest
        out = [p for p in self.alive if p.cards_left() == 0]
        if out:
            self.eliminate(*out)

    def play(self, check=False):
        """Play to the end: returns the winner's seat, or None (draw / unfinished)."""
        try:
            self.setup()
            if check:
                self.check_conservation()
            while self.contests < MAX_CONTESTS:
                self.contests += 1
                self.contest()
                if check:
                    self.check_conservation()
            return None
        except GameOver as over:
            if check:
                self.check_conservation(between_contests=False)
            return over.winner

    def check_conservation(self, between_contests=True):
        zones = [self.box, self.aside]
        for p in self.players:
            zones += [p.deck, p.discard, p.battlefield, p.powers]
        seen = [id(c) for zone in zones for c in zone]
        assert len(seen) == self.total_cards, (len(seen), self.total_cards)
        assert len(set(seen)) == self.total_cards, "a card is in two zones"
        if between_contests:
            assert not self.aside or len(self.players) > 2, "2-player contest set aside"
            for p in self.players:
                assert not p.battlefield, "battlefield not empty between contests"
                assert not p.alive or p.cards_left() > 0, "an unconquered player has no card"


def play_game(players: int, seed: int) -> dict:
    game = SpaceWar(players, seed)
    winner = game.play()
    return {"winner": winner, "rounds": game.contests}


def _self_check(games: int = 100) -> None:
    for n in range(2, 7):
        wins = [0] * n
        no_winner = 0
        contests = 0
        factions = {}
        start = time.perf_counter()
        for seed in range(games):
            game = SpaceWar(n, seed)
            winner = game.play(check=True)
            contests += game.contests
            if winner is None:
                no_winner += 1
            else:
                wins[winner] += 1
                f = game.players[winner].faction
                factions[f] = factions.get(f, 0) + 1
            # same result through the public entry point (determinism)
            assert play_game(n, seed) == {"winner": winner, "rounds": game.contests}
        elapsed = time.perf_counter() - start
        print(f"{n} players: wins per seat {wins}, no winner {no_winner}, "
              f"mean contests {contests / games:.1f}, "
              f"wins per faction {dict(sorted(factions.items()))} "
              f"({elapsed:.2f}s)")


if __name__ == "__main__":
    _self_check(int(sys.argv[1]) if len(sys.argv) > 1 else 100)
