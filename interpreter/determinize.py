"""What a player may believe: whole game states consistent with what that player sees.

A search agent must not read the cards it cannot see. It reads the game only through
`Determinizer.sample(engine, player, rng)`, which returns a saved game (the JSON of
`Engine.save()`) where everything hidden from `player` is dealt again at random:

- the cards `player` may not see (by the one rule of `interpreter/visibility.py`: hidden
  zones, other players' owner-only zones, face-down cards in public zones) are shuffled
  among the places where such cards lie. A place keeps its zone, its position and its
  face, and its owner (`owner of it`); only which card lies there changes. Cards are
  shuffled among the cards that start the game on the same side: a card the game file
  deals to a player's zone stays among that player's cards (the rules say where each card
  starts, so this is no secret), the cards of shared zones among themselves; and a card
  whose back shows fields (`back shows: tier`) only among cards with the same back (its type
  and those fields' values), wherever they lie: a face-down Tier 2 tile stays a Tier 2 tile
  (so a hidden zone keeps how many cards of each back it holds);
- the game's random generator gets a new state, so the order of future shuffles, dice
  and draws is not the true one;
- other players' secret picks made before `player` is asked (`secretly chooses` from
  cards) follow their place: the pick is "the card that lies there", whichever it is now.

What `player` sees is the same in the sample as in the true game (tests/test_agents_search.py
checks it), and the sample depends only on that view and on `rng`: two true games that look
the same to `player` give the same samples. What a player saw earlier and remembers (a card
shown, then shuffled back) is not used: the sample is consistent with the view as it is now.
Known limits: a hidden card named by an item on the stack (its card or a target), or held in a rule's own name
(`let c be top card of ...`) other than a secret pick, keeps its place and identity.
"""
from __future__ import annotations

import random
from typing import TYPE_CHECKING

from .entities import key_seat
from . import rng as R
from .visibility import back_key, known_to, rule_of, sees

if TYPE_CHECKING:
    from .engine import Engine

CARD_KIND = "card"          # a decision's `kind` when its options are cards (interpreter/decisions.py)
# the register of a `secretly chooses` that holds the picks made so far (`$picks<n>`, state.REGISTERS)
PICKS_REGISTER = "$picks<n>"
PICKS = PICKS_REGISTER.removesuffix("<n>")
SEEN_BY = "$seen_by"        # a card's field: who looked at it there (visibility.known_to)


def hidden_places(state: dict, decls, player: int) -> list[tuple[str, int, int]]:
    """[(zone key, position, card)] of every card `player` may not see, in zone order."""
    zones, face_up, fields = state["zones"], state["face_up"], state["cards"]
    places = []
    for key, cards in zones.items():
        name = key.partition(":")[0]
        owner = key_seat(key)           # `crew:1/0`, an entity's zone, is seat 1's too
        vis = rule_of(decls.zones[name])
        for i, c in enumerate(cards):
            # the rule of Engine.view: the zone's visibility, or the player looked at the card
            if not sees(vis, owner, face_up[c], player) and player not in known_to(fields[c]):
                places.append((key, i, c))
    return places


def _pinned(state: dict) -> set[int]:
    """Hidden cards that must keep their identity: those on the stack and the cards their items
    target (see the module's limits)."""
    pinned = set()
    for item in state.get("stack", ()):
        pinned.add(item["card"])
        pinned.update(item.get("targeted", ()))
    return pinned


def starting_sides(game) -> list[int]:
    """Per card, the seat whose zone the game file puts it in at the start (-1: a shared zone)."""
    sides = []
    for c in game.cards:
        _, _, seat = c.zone.partition(":")
        sides.append(int(seat) if seat else -1)
    return sides


def card_backs(game, decls) -> list | None:
    """Per card, (type name, the fields its back shows) when its type declares `back shows`,
    else None; None for a game where no card type does."""
    backs = [(c.type_name, decls.card_types[c.type_name].back) if decls.card_types[c.type_name].back else None
             for c in game.cards]
    return backs if any(backs) else None


def redeal(state: dict, decls, sides: list[int], player: int, rng: random.Random, backs: list | None = None) -> dict:
    """A copy of the saved `state` (GameState.to_dict) with what `player` cannot see dealt again
    (`sides`: `starting_sides` of the game; `backs`: its `card_backs`).

    The copy shares no list that it changes with `state`; the rest is shared (the engine
    copies a saved state when it restores it)."""
    places = hidden_places(state, decls, player)
    pinned = _pinned(state)
    groups: dict[tuple, list] = {}  # (starting side, back) -> [(key, i, card)] of the cards that may move
    for place in places:
        c = place[2]
        if c not in pinned:
            back = () if backs is None or backs[c] is None else back_key(*backs[c], state["cards"][c])
            groups.setdefault((sides[c], back), []).append(place)
    zones = {key: list(cards) for key, cards in state["zones"].items()}
    card_zone = list(state["card_zone"])
    face_up, owner, fields = list(state["face_up"]), list(state["owner"]), list(state["cards"])
    old_face, old_owner, old_fields = state["face_up"], state["owner"], state["cards"]
    moved: dict[int, int] = {}      # the card that lay at a place -> the card that lies there now
    for side in sorted(groups):
        group = groups[side]
        cards = sorted(c for _, _, c in group)      # the set, not who lies where: that is hidden
        rng.shuffle(cards)
        for (key, i, was), now in zip(group, cards):
            zones[key][i] = now
            card_zone[now] = key
            face_up[now] = old_face[was]            # the place keeps its face and its owner,
            owner[now] = old_owner[was]
            if SEEN_BY in old_fields[was] or SEEN_BY in old_fields[now]:   # and who looked at it
                fields[now] = _with_seers(old_fields[now], old_fields[was].get(SEEN_BY))
            moved[was] = now
    out = dict(state)
    out.update(zones=zones, card_zone=card_zone, face_up=face_up, owner=owner, cards=fields,
               rng=R.seed_state(rng.getrandbits(63)))
    if moved:
        out["frames"], out["pending"] = _follow_places(state, moved)
    return out


def _with_seers(card: dict, seers) -> dict:
    out = {k: v for k, v in card.items() if k != SEEN_BY}
    if seers:
        out[SEEN_BY] = seers
    return out


def _follow_places(state: dict, moved: dict[int, int]) -> tuple[list, dict | None]:
    """Secret picks of cards and the options of a pending choice of cards name places: after a
    redeal they name the card that lies there now."""
    frames = [list(fr) for fr in state["frames"]]
    pending = state["pending"]
    if pending is not None and pending.get("kind") == CARD_KIND:
        pending = dict(pending, options=[moved.get(c, c) for c in pending["options"]])
        if pending.get("secret") and frames:
            code_id, pc, env = frames[-1]
            env = dict(env)
            for name, value in env.items():
                if name.startswith(PICKS) and isinstance(value, list):
                    env[name] = [moved.get(c, c) if isinstance(c, int) else c for c in value]
            frames[-1] = [code_id, pc, env]
    if pending is not None and pending.get("kind") == ["list", CARD_KIND]:     # a choice among groups of cards
        pending = dict(pending, options=[[moved.get(c, c) for c in group] for group in pending["options"]])
    return frames, pending


class Determinizer:
    """Samples saved games consistent with one player's view of an engine's game."""

    def __init__(self, game):
        from .program import program_for
        self.game = game
        self.decls = program_for(game).decls
        self.sides = starting_sides(game)
        self.backs = card_backs(game, self.decls)

    def sample(self, eng: "Engine", player: int, rng: random.Random, base: dict | None = None) -> dict:
        """A saved game (`Engine.save()` form) as `player` might believe it is. `base`, when
        given, is `eng.save()` already made (a search samples many times from one)."""
        data = dict(base if base is not None else eng.save())
        data["state"] = redeal(data["state"], self.decls, self.sides, player, rng, self.backs)
        return data


def determinizer_for(game) -> Determinizer:
    found = game._cache.get("determinizer")
    if found is None:
        found = game._cache["determinizer"] = Determinizer(game)
    return found
