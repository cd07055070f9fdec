"""Boards in English (their describers join DESCRIBERS when english.py imports this module).

    the places adjacent to s            → "the places one link away from s"
    the places within 2 of s            → "the other places at most 2 links away from s, nearest first"
    the distance from a to b            → "the fewest links between a and b (no number at all when no path joins them)"
    the shortest path from a to b       → "the places along a shortest path from a to b, both included ..."
    the influence of p on s             → "p's influence on s"
"""
from __future__ import annotations

from .. import ast as A
from .phrases import SAYINGS
from .words import Ctx, describer, np


def _board_title(ctx: Ctx, name: str) -> str:
    board = ctx.decls.boards.get(name)
    label = getattr(board, "label", None)
    return f"“{label}”" if label else f"the {name} board"


@describer
def describe_PlacesAdjacent(e: A.PlacesAdjacent, ctx: Ctx) -> str:
    return f"the places one link away from {np(e.place, ctx)}"


@describer
def describe_PlacesWithin(e: A.PlacesWithin, ctx: Ctx) -> str:
    n = np(e.steps, ctx)
    return (f"the other places at most {n} {'link' if n == '1' else 'links'} away from {np(e.place, ctx)}, "
            "nearest first")


@describer
def describe_PlacesOf(e: A.PlacesOf, ctx: Ctx) -> str:
    return f"every place of {_board_title(ctx, e.board)}"


@describer
def describe_DistanceBetween(e: A.DistanceBetween, ctx: Ctx) -> str:
    return (f"the fewest links between {np(e.start, ctx)} and {np(e.end, ctx)} "
            "(no number at all when no path joins them)")


@describer
def describe_ShortestPath(e: A.ShortestPath, ctx: Ctx) -> str:
    return (f"the places along a shortest path from {np(e.start, ctx)} to {np(e.end, ctx)}, both included "
            "(where paths tie, the one stepping to the place listed first on the board)")


@describer
def describe_PlaceMark(e: A.PlaceMark, ctx: Ctx) -> str:
    if e.name in ctx.decls.toward_fields:       # `player toward a player has:`: "your intel on Ben"
        from .phrases import poss
        from .words import display_name
        return f"{poss(e.player, ctx)} {display_name(ctx.decls, 'field', e.name)} on {np(e.place, ctx)}"
    return f"the {e.name.replace('_', ' ')} of {np(e.player, ctx)} on {np(e.place, ctx)}"


# the built-ins adjacent(s) and distance(a, b) (dsl/registry.py), said as the board forms
def say_adjacent(e: A.Call, ctx: Ctx) -> str:
    return f"the places one link away from {np(e.args[0], ctx)}"


def say_distance(e: A.Call, ctx: Ctx) -> str:
    return (f"the fewest links between {np(e.args[0], ctx)} and {np(e.args[1], ctx)} "
            "(no number at all when no path joins them)")


SAYINGS["say_adjacent"] = say_adjacent
SAYINGS["say_distance"] = say_distance
