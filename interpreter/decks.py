"""The players' decks in a game: dealt from deck files, or built at random from the pool.

A game that declares deck rules (`decks from ...`, docs/language.md, "Decks") is played with one deck per seat.
`dealt_game` turns the declared game and the seats' decks into the game that is played: the
cards outside the pool as declared, then each seat's deck, every card a copy of its pool card,
starting in that seat's zone the rules deal it into (`deck:0`, ...), in the order the deck lists
them. The pool itself is not in play. The Game it returns carries the decks (`Game.decks`), so
a saved game names them and is restored with the same cards.

A seat without a deck file gets a random legal deck (`random_deck`): seeded by the game's seed
and the seat (its own generator: the game's random numbers are not used up), built one card at a
time from cards that keep a legal deck within reach, at most MAX_DECK_TRIES times; when no legal
deck can be built from the pool, E0618 says why, at the deck rules.
"""
from __future__ import annotations

from dataclasses import replace

from cardsmith.dsl import ast as A
from cardsmith.dsl.bounds import MAX_CARDS, MAX_DECK_TRIES
from cardsmith.dsl.decks import Deck, deal_names, deck_diagnostics, pool_of, read_deck
from cardsmith.dsl.diagnostics import CardsmithError, Diagnostic

from . import rng as R

DECK_SALT = 0x5EED_DEC0_0DEC_5EED       # the deck builder's generator is not the game's
_DEALT_KEPT = 8                          # dealt games remembered per declared game


class NoLegalDeck(Exception):
    """No legal deck can be built from the pool; the reason, in the designer's words."""


# ================================================================ random legal decks


def _name_caps(rules: A.DeckRulesDecl, pool: dict) -> dict[str, int]:
    """How many copies of each name a deck may take: the pool's, the copies rules', unique names."""
    excepted = {t for r in rules.rules if r.kind == "unique" for t, _ in r.excepted}
    unique = any(r.kind == "unique" for r in rules.rules)
    caps = {}
    for name, card in pool.items():
        cap = card.copies
        for r in rules.rules:
            if r.kind == "copies" and r.type_name in (None, card.type_name):
                cap = min(cap, r.n)
        if unique and card.type_name not in excepted:
            cap = min(cap, 1)
        caps[name] = cap
    return caps


def _counts(rules: A.DeckRulesDecl, avail: dict[str, int], state: int) -> tuple[dict[str, int], int]:
    """How many cards of each type the deck takes: within each type's count rules and what the
    pool offers, the whole deck within the rules' count of cards; random where the rules leave room."""
    lo = {t: 0 for t in avail}
    hi = dict(avail)
    total_lo, total_hi = 0, None
    for r in rules.rules:
        if r.kind != "count":
            continue
        low = r.n if r.bound in ("exactly", "at least") else 0
        high = r.n if r.bound in ("exactly", "at most") else None
        if r.type_name is None:
            total_lo = max(total_lo, low)
            total_hi = high if total_hi is None else (total_hi if high is None else min(total_hi, high))
            continue
        if r.type_name not in avail:
            if low > 0:
                raise NoLegalDeck(f"the deck rules ask for {r.bound} {r.n} {r.type_name} cards, and the pool "
                                  f"has none")
            continue
        lo[r.type_name] = max(lo[r.type_name], low)
        if high is not None:
            hi[r.type_name] = min(hi[r.type_name], high)
    for t in avail:
        if lo[t] > hi[t]:
            raise NoLegalDeck(f"the deck rules ask for at least {lo[t]} {t} cards, and a deck may take only "
                              f"{hi[t]} from the pool (its copies, the copies and unique names rules)")
    bounded = {t for r in rules.rules if r.kind == "count" and r.type_name is not None for t in (r.type_name,)}
    take = {}
    for t in avail:           # the type's own rules: exactly, at least, at most, or room between
        if t in bounded and lo[t] < hi[t] and any(r.kind == "count" and r.type_name == t and r.bound == "at most"
                                                 for r in rules.rules):
            state, k = R.below(state, hi[t] - lo[t] + 1)
            take[t] = lo[t] + k
        else:
            take[t] = lo[t]
    types = sorted(avail)
    most = sum(hi.values())
    if total_hi is not None and sum(lo.values()) > total_hi or total_lo > most:
        raise NoLegalDeck(f"the deck rules ask for {total_lo if total_lo > most else total_hi} cards in all, "
                          f"and the counts of the card types allow {sum(lo.values())} to {most}")
    while sum(take.values()) < total_lo:
        room = [t for t in types if take[t] < hi[t]]
        state, i = R.below(state, len(room))
        take[room[i]] += 1
    while total_hi is not None and sum(take.values()) > total_hi:
        room = [t for t in types if take[t] > lo[t]]
        state, i = R.below(state, len(room))
        take[room[i]] -= 1
    return take, state


def _pick(names: list[str], caps: dict[str, int], k: int, sums: list, pool: dict, state: int):
    """`k` cards of `names` (each at most caps[name] times) with every (field, cap) of `sums` kept:
    one at a time, only a card after which the smallest completion still fits. None: stuck."""
    left = {n: caps[n] for n in names}
    chosen: list[str] = []
    if not sums:
        # no capped field: every card left fits, in the order of `names` (those with copies
        # left, kept as they run out): the same draws as the general loop below
        ok = [n for n in names if left[n] > 0]
        total = sum(left.values())
        for step in range(k):
            if total - 1 < k - step - 1 or not ok:
                return None, state
            state, i = R.below(state, len(ok))
            n = ok[i]
            left[n] -= 1
            total -= 1
            chosen.append(n)
            if left[n] <= 0:
                del ok[i]
        return chosen, state
    used = [0] * len(sums)
    for step in range(k):
        rest = k - step - 1
        if sum(left.values()) - 1 < rest:
            return None, state
        # per capped field: the values of the copies left, smallest first, and their running sums
        sorted_left = []
        for field, _cap in sums:
            vals = sorted(v for m in names for v in [pool[m].values.get(field) or 0] * left[m])
            prefix = [0]
            for v in vals[:rest + 1]:
                prefix.append(prefix[-1] + v)
            sorted_left.append((vals, prefix))
        ok = []
        for n in names:
            if left[n] <= 0:
                continue
            fits = True
            for j, (field, cap) in enumerate(sums):
                value = pool[n].values.get(field) or 0
                vals, prefix = sorted_left[j]
                # the `rest` smallest of the copies left once this one is taken
                least = prefix[rest] if rest == 0 or value > vals[rest - 1] else prefix[rest + 1] - value
                if used[j] + value + least > cap:
                    fits = False
                    break
            if fits:
                ok.append(n)
        if not ok:
            return None, state
        state, i = R.below(state, len(ok))
        n = ok[i]
        left[n] -= 1
        chosen.append(n)
        for j, (field, _cap) in enumerate(sums):
            used[j] += pool[n].values.get(field) or 0
    return chosen, state


def _plan(game) -> tuple:
    """What every random deck of `game` starts from (read, never changed): the pool by name, how
    many copies of each name a deck may take, the names by card type (those it may take) and
    how many cards of each type the pool offers. Kept on the game."""
    plan = game._cache.get("deck_plan")
    if plan is None:
        pool = _pool(game)
        caps = _name_caps(game.decls.deck_rules, pool)
        by_type: dict[str, list[str]] = {}
        for name, card in pool.items():
            if caps[name] > 0:
                by_type.setdefault(card.type_name, []).append(name)
        avail = {t: sum(caps[n] for n in names) for t, names in by_type.items()}
        plan = game._cache["deck_plan"] = (pool, caps, by_type, avail)
    return plan


def _pool(game) -> dict:
    """`pool_of(game)`, kept on the game (the declared game's cards do not change)."""
    pool = game._cache.get("deck_pool")
    if pool is None:
        pool = game._cache["deck_pool"] = pool_of(game)
    return pool


def random_deck(game, seed: int, seat: int) -> list[str]:
    """A legal deck for `seat` (card names, in the order dealt), the same for the same game, seed
    and seat. Raises NoLegalDeck when none can be built within MAX_DECK_TRIES."""
    rules: A.DeckRulesDecl = game.decls.deck_rules
    pool, caps, by_type, avail = _plan(game)
    state = R.seed_state((seed * 1_000_003 + seat) ^ DECK_SALT)
    for _ in range(MAX_DECK_TRIES):
        take, state = _counts(rules, avail, state)
        deck: list[str] | None = []
        for t in sorted(take):
            sums = [(r.field, r.n) for r in rules.rules if r.kind == "sum" and r.type_name == t]
            got, state = _pick(by_type[t], caps, take[t], sums, pool, state) if take[t] else ([], state)
            if got is None:
                deck = None
                break
            deck.extend(got)
        if deck is not None:
            state = R.shuffle(state, deck)
            return deck
    sums = [r for r in rules.rules if r.kind == "sum"]
    raise NoLegalDeck(f"no legal deck was found in {MAX_DECK_TRIES} tries (MAX_DECK_TRIES)"
                      + (f": the cap on the {sums[0].field} of {sums[0].type_name} cards may be too low for the pool"
                         if sums else ""))


# ================================================================ the game played with decks


def dealt_game(game, decks: list[list[str]]):
    """The game played with `decks` (card names per seat, legal): see the module's docstring."""
    key = tuple(tuple(d) for d in decks)
    kept = game._cache.setdefault("dealt", {})
    if key in kept:
        return kept[key]
    rules = game.decls.deck_rules
    pool = _pool(game)
    cards = [replace(c, id=i) for i, c in enumerate(c for c in game.cards if c.zone != rules.pool)]
    for seat, names in enumerate(decks):
        unknown = [n for n in names if n not in pool]
        if unknown:
            raise ValueError(f"seat {seat + 1}'s deck names {unknown[0]!r}, which is no card of the pool")
        for zone, dealt in deal_names(game, list(names)).items():
            for name in dealt:
                cards.append(replace(game.cards[pool[name].first], id=len(cards), zone=f"{zone}:{seat}"))
    if len(cards) > MAX_CARDS:
        raise CardsmithError([Diagnostic("E0618", f"with these decks the game has {len(cards):,} cards, more than the "
                                         f"{MAX_CARDS:,} a game may have (MAX_CARDS)", rules.span,
                                         "use smaller decks or fewer players")], game.sources)
    # the prefixes of the programs of its deals, shared by them (interpreter/program.py, `Program._prefix_key`)
    # the declared game's cards, whose abilities' codes its program builds (interpreter/program.py, `_rules_abilities`)
    out = replace(game, cards=tuple(cards), _cache={"prefixes": game._cache.setdefault("prefixes", {}),
                                                    "holders_read": game._cache.setdefault("holders_read", {}),
                                                    "rules_cards": game.cards}, decks=key)
    if len(kept) >= _DEALT_KEPT:
        kept.pop(next(iter(kept)))
    kept[key] = out
    return out


def game_with_decks(game, players: int, seed: int, decks=None):
    """The game `players` play with `decks` (seat -> card names; a list per seat, or a dict by
    seat from 0); a seat without one gets `random_deck(game, seed, seat)`."""
    if isinstance(decks, (list, tuple)):
        decks = {i: d for i, d in enumerate(decks) if d is not None}
    decks = decks or {}
    chosen = []
    for seat in range(players):
        if seat in decks:
            chosen.append(list(decks[seat]))
            continue
        try:
            chosen.append(random_deck(game, seed, seat))
        except NoLegalDeck as why:
            raise CardsmithError([Diagnostic("E0618", f"no legal deck can be built from the pool: {why}",
                                             game.decls.deck_rules.span,
                                             "give the pool more cards, or loosen the deck rules")],
                                 game.sources) from None
    return dealt_game(game, chosen)


# ================================================================ deck files for play and simulate


def load_decks(game, specs: list[str], players: int) -> tuple[dict[int, list[str]], list[Diagnostic], dict]:
    """`--deck SEAT=FILE` options: the decks by seat (from 0), and every diagnostic of the files
    (unreadable, unreadable lines, broken deck rules). A usage mistake raises ValueError."""
    if game.decls.deck_rules is None:
        raise ValueError(f"{game.title} declares no deck rules: it is played with its own cards, not decks")
    decks: dict[int, list[str]] = {}
    diags: list[Diagnostic] = []
    sources: dict = {}
    for spec in specs:
        seat_text, eq, path = spec.partition("=")
        if not eq or not seat_text.strip().isdigit() or not path:
            raise ValueError(f"--deck takes SEAT=FILE, e.g. --deck 1=red.deck, not {spec!r}")
        seat = int(seat_text)
        if not 1 <= seat <= players:
            raise ValueError(f"--deck {spec}: the seat must be from 1 to {players}")
        if seat - 1 in decks:
            raise ValueError(f"--deck: seat {seat} is given two decks")
        deck, problems, src = read_deck(path)
        sources.update(src)
        if deck is not None:
            diags.extend(deck_diagnostics(game, deck, problems))
            decks[seat - 1] = deck.names()
        else:
            diags.extend(problems)
    return decks, diags, sources


__all__ = ["Deck", "NoLegalDeck", "dealt_game", "game_with_decks", "load_decks", "random_deck"]
