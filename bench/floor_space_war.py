"""Space War written by hand on cardsmith's state model: the floor of any compiler that keeps it.

`reference_space_war.py` holds the game in the shape a Python programmer would choose: a player
object whose deck is an attribute, cards as slotted objects, nothing kept that the rules of this
one game do not read. cardsmith keeps every game in one general, plain-data shape instead
(interpreter/state.py; save, restore, views and the log read it as JSON): zones as lists of card
ids in a dict by zone key, each card's record a dict, each player's attributes a dict, and for
every card its zone, facing and owner, updated by every move; beside them the state's version
and what changed (`ver`, `dirty`: what the modifier tables and the end checks read), the step
path and the work count (the step bound).

This file plays the same rules with the same random calls as the reference (the same games: the
same winner and number of contests for every seed, tests/test_bench_floor.py) on that shape,
written as tight as a person would write it: the Contest inlined, everything it reads held in
locals. What it does not do is what makes an interpreter general: no frames, no event dispatch,
no log tests, no decisions as data. So `bench_space_war.py --floor` tells how much of the
interpreter's distance from the reference is the state's shape (floor / reference), and how much
the way it runs (interpreter / floor).
"""
from __future__ import annotations

import random

from reference_space_war import (ARMOR, FACTIONS, MAX_CONTESTS, PEACE, POWER_TABLE, RALLY, REGENERATION,
                                 UNIT_TABLE)


class GameOver(Exception):
    def __init__(self, winner):
        self.winner = winner


class SpaceWar:
    def __init__(self, n: int, seed: int):
        self.rng = random.Random(seed)
        self.prng = [random.Random(seed * 1000 + s) for s in range(n)]     # each seat's bot, as the reference's
        self.n = n
        self.cards = [{"name": name, "type": "Unit", "faction": f, "strength": s, "leader": leader}
                      for name, f, s, leader, copies in UNIT_TABLE for _ in range(copies)]
        self.cards += [{"name": name, "type": "Power", "faction": f, "side": side}
                       for f, (name, side) in POWER_TABLE.items()]
        self.zones = {"box": list(range(len(self.cards))), "aside": []}
        for z in ("deck", "discard", "battlefield", "powers"):
            for p in range(n):
                self.zones[f"{z}:{p}"] = []
        self.deck = [f"deck:{p}" for p in range(n)]
        self.discard = [f"discard:{p}" for p in range(n)]
        self.bf = [f"battlefield:{p}" for p in range(n)]
        self.pw = [f"powers:{p}" for p in range(n)]
        self.seat_of = {k: int(k.partition(":")[2]) if ":" in k else None for k in self.zones}
        self.card_zone = ["box"] * len(self.cards)
        self.face_up = [False] * len(self.cards)
        self.owner = [None] * len(self.cards)
        self.players = [{"faction": None, "bonus": 0} for _ in range(n)]
        self.game = {"peace_declared": False}
        self.out = [False] * n
        self.ver = self.dirty = self.work = self.round = 0
        self.step_path = []

    # -- the state's primitives: a move keeps each card's zone, facing and owner -----------
    def move1(self, c, key, up, bottom=False):
        held = self.zones[self.card_zone[c]]
        if held[-1] == c:
            held.pop()
        else:
            held.remove(c)
        if bottom:
            self.zones[key].insert(0, c)
        else:
            self.zones[key].append(c)
        self.card_zone[c] = key
        self.face_up[c] = up
        if self.owner[c] is None:
            self.owner[c] = self.seat_of[key]
        self.dirty |= 1
        self.ver += 1

    def move_all(self, src, key, up, bottom=False):
        cards = self.zones[src]
        if not cards:
            return
        moved = list(cards)
        cards.clear()
        if bottom:
            self.zones[key][0:0] = moved    # as the reference puts a Contest back under a deck
        else:
            self.zones[key] += moved
        card_zone, face_up, owner, seat = self.card_zone, self.face_up, self.owner, self.seat_of[key]
        for c in moved:
            card_zone[c] = key
            face_up[c] = up
            if owner[c] is None:
                owner[c] = seat
        self.dirty |= 1
        self.ver += 1

    def live(self):
        n, out = self.n, self.out
        return list(range(n)) if True not in out else [p for p in range(n) if not out[p]]

    # -- the rules ----------------------------------------------------------------------------
    def setup(self):
        cards, zones = self.cards, self.zones
        for p in range(self.n):
            taken = [q["faction"] for q in self.players]
            f = self.prng[p].choice([f for f in FACTIONS if f not in taken])
            self.players[p]["faction"] = f
            for c in [c for c in zones["box"] if cards[c]["type"] == "Unit" and cards[c]["faction"] == f]:
                self.move1(c, self.deck[p], False)
            for c in [c for c in zones["box"] if cards[c]["type"] == "Power" and cards[c]["faction"] == f]:
                self.move1(c, self.pw[p], True)
            self.rng.shuffle(zones[self.deck[p]])
            self.ver += 1

    def refill(self, p):
        if not self.zones[self.deck[p]]:
            self.move_all(self.discard[p], self.deck[p], False)
            self.rng.shuffle(self.zones[self.deck[p]])
            self.ver += 1

    def reveal_top(self, p, up=True):
        self.refill(p)
        self.move1(self.zones[self.deck[p]][-1], self.bf[p], up)

    def eliminate(self, gone):
        for p in gone:
            self.out[p] = True
            self.dirty |= 4
            self.ver += 1
        alive = self.live()
        if len(alive) == 1:
            raise GameOver(alive[0])
        if not alive:
            raise GameOver(None)

    def capture(self, w):
        zones, card_zone, face_up, owner = self.zones, self.card_zone, self.face_up, self.owner
        card = zones[self.bf[w]][-1]
        k = self.discard[w]
        dest = zones[k]
        for b in self.bf:
            cs = zones[b]
            if cs:
                dest += cs
                for c in cs:
                    card_zone[c] = k
                    face_up[c] = True
                    if owner[c] is None:
                        owner[c] = w
                cs.clear()
        self.dirty |= 1
        self.ver += 1
        won = self.cards[card]           # battle_won: a Faction Leader's victory
        if won.get("leader") and won["faction"] == self.players[w]["faction"]:
            for power in zones[self.pw[w]]:
                rec = self.cards[power]
                if rec["name"] in (ARMOR, PEACE, RALLY):
                    if rec["side"] == "inactive":
                        rec["side"] = "active"
                        self.ver += 1
                elif rec["name"] == REGENERATION and card_zone[card] == k:
                    self.move1(card, self.deck[w], False, bottom=True)

    def before_battle(self, fighters):
        zones, cards, players = self.zones, self.cards, self.players
        for p in fighters:              # in seat order, as the reference's alive players who fight
            powers = zones[self.pw[p]]
            if not powers or cards[powers[0]]["side"] != "active":
                continue
            rec = cards[powers[0]]
            name = rec["name"]
            if name == ARMOR or name == RALLY:
                if self.prng[p].choice((True, False)):
                    players[p]["bonus"] += 1 if name == ARMOR else 2
                    rec["side"] = "inactive"
                    self.ver += 2
            elif name == PEACE and not self.game["peace_declared"] and self.prng[p].choice((True, False)):
                for q in range(self.n):
                    if not self.out[q]:
                        self.move_all(self.bf[q], self.deck[q], False, bottom=True)
                    else:
                        self.move_all(self.bf[q], "aside", True)
                self.game["peace_declared"] = True
                rec["side"] = "inactive"
                self.ver += 2

    def contest(self):
        zones, cards, players, game = self.zones, self.cards, self.players, self.game
        card_zone, face_up, owner, out = self.card_zone, self.face_up, self.owner, self.out
        deck, discard, bf, path, n = self.deck, self.discard, self.bf, self.step_path, self.n
        self.round += 1
        game["peace_declared"] = False          # the round's resets
        for pl in players:
            pl["bonus"] = 0
        path.append("Reveal")
        alive = list(range(n)) if True not in out else [p for p in range(n) if not out[p]]
        self.work += len(alive)
        for p in alive:
            held = zones[deck[p]]
            if not held:
                self.refill(p)
                held = zones[deck[p]]
            c = held.pop()
            k = bf[p]
            zones[k].append(c)
            card_zone[c] = k
            face_up[c] = True
            if owner[c] is None:
                owner[c] = p
            self.dirty |= 1
            self.ver += 1
        self.before_battle(alive)
        path.pop()
        path.append("Battle or War")
        fighters = list(range(n)) if True not in out else [p for p in range(n) if not out[p]]
        face_down = 2
        while not game["peace_declared"]:
            self.work += len(fighters)
            best = max([cards[zones[bf[p]][-1]]["strength"] + players[p]["bonus"] for p in fighters])
            self.work += len(fighters)
            tied = [p for p in fighters if cards[zones[bf[p]][-1]]["strength"] + players[p]["bonus"] == best]
            if len(tied) == 1:
                self.capture(tied[0])
                break
            path.append("War")
            fighters = tied
            gone = [p for p in fighters if len(zones[deck[p]]) + len(zones[discard[p]]) == 0]
            if gone:
                self.eliminate(gone)
            fighters = [p for p in fighters if len(zones[deck[p]]) + len(zones[discard[p]]) > 0]
            if not fighters:
                for p in range(n):
                    self.move_all(bf[p], "aside", True)
                path.pop()
                break
            if len(fighters) == 1:
                self.capture(fighters[0])
                path.pop()
                break
            each_adds = min(face_down + 1, min(len(zones[deck[p]]) + len(zones[discard[p]]) for p in fighters))
            for p in fighters:
                for _ in range(each_adds - 1):
                    self.reveal_top(p, False)
                self.reveal_top(p)
            face_down = max(face_down - 1, 0)
            self.before_battle(fighters)
            path.pop()
        path.pop()
        path.append("Conquest")
        alive = list(range(n)) if True not in out else [p for p in range(n) if not out[p]]
        gone = [p for p in alive if len(zones[deck[p]]) + len(zones[discard[p]]) == 0]
        if gone:
            self.eliminate(gone)
        path.pop()

    def play(self):
        try:
            self.setup()
            while self.round < MAX_CONTESTS:
                self.contest()
            return None
        except GameOver as over:
            return over.winner


def play_game(players: int, seed: int) -> dict:
    game = SpaceWar(players, seed)
    winner = game.play()
    return {"winner": winner, "rounds": game.round}
