"""A board drawn from its declaration (dsl/checks/boards.py `Board`): every place a node, every
link a line. A `grid:` or `hex:` board keeps its layout (each place pinned where its row and
column put it; a hex's odd rows half a place to the right); a board of listed links is laid out
by Graphviz's `neato`. The same places appear in the zone diagram as one cluster per board
(dsl/publish/diagrams.py), and the rulebook prints each board with a table of its places.

    board valley "The valley":
        places: Camp, Ford, Mill
        links: Camp - Ford, Ford - Mill      → Camp — Ford — Mill
"""
from __future__ import annotations

import graphviz

from ..checks.boards import Board
from .diagrams import EDGE_ATTR, FONT, label

NODE = {"fontname": FONT, "fontsize": "10", "style": "filled", "fillcolor": "#ffffff"}
# A board of more places is one node in the zone diagram (its own drawing shows every place):
# drawn place by place it would stretch the diagram past a printable page.
MAX_ZONE_DIAGRAM_PLACES = 12


def _pos(board: Board, place: str) -> str | None:
    xy = board.coords.get(place)
    if xy is None:
        return None
    c, r = xy
    shift = 0.5 if board.decl.shape == "hex" and r % 2 == 1 else 0.0
    step_y = 0.87 if board.decl.shape == "hex" else 1.0
    return f"{(c + shift) * 1.4:.2f},{-r * step_y * 1.4:.2f}!"


def board_graph(board: Board) -> graphviz.Graph:
    """The board as an undirected Graphviz graph (deterministic: places and links in order)."""
    g = graphviz.Graph(f"board_{board.name}",
                       graph_attr={"fontname": FONT, "fontsize": "11", "layout": "neato", "overlap": "false",
                                   "splines": "true", "sep": "+8", "label": label(board.title, 60, 2),
                                   "labelloc": "t"},
                       node_attr=dict(NODE, shape="hexagon" if board.decl.shape == "hex" else
                                      "box" if board.decl.shape == "grid" else "ellipse"),
                       edge_attr=dict(EDGE_ATTR, color="#555555"))
    for i, place in enumerate(board.places):
        attrs = {}
        pos = _pos(board, place)
        if pos is not None:
            attrs["pos"] = pos
        g.node(f"p{i}", graphviz.escape(label(board.labels[place], 18, 3)), **attrs)
    for i, j in board.links:
        g.edge(f"p{i}", f"p{j}")
    return g


def board_source(board: Board) -> tuple[str, int]:
    """(DOT, boxes) of one board's drawing."""
    return board_graph(board).source, len(board.places)


def cluster(g, board: Board, node_id) -> None:
    """The board's places inside the zone diagram `g`: a cluster, with its links as plain lines."""
    with g.subgraph(name=f"cluster_board_{board.name}") as c:
        if len(board.places) > MAX_ZONE_DIAGRAM_PLACES:
            c.attr(label=label(f"{board.title} (a board)", 18, 3), style="rounded", color="#7f7f7f", fontname=FONT)
            c.node(node_id(board.places[0]), label(f"{len(board.places)} places, each a shared zone (drawn apart)", 16, 4),
                   shape="ellipse", style="filled", fillcolor="#ffffff")
            return
        c.attr(label=label(f"{board.title} (a board: every place is a shared zone)", 40, 2), style="rounded",
               color="#7f7f7f", fontname=FONT)
        for place in board.places:
            c.node(node_id(place), graphviz.escape(label(board.labels[place], 18, 3)), shape="ellipse",
                   style="filled", fillcolor="#ffffff")
        for i, j in board.links:
            c.edge(node_id(board.places[i]), node_id(board.places[j]), dir="none", style="dashed",
                   color="#7f7f7f", constraint="false")


def value_columns(board: Board) -> list[str]:
    """The fields whose starting value the board gives place by place (`values:`)."""
    return list(board.decl.value_columns[1:]) if board.values else []


def place_rows(board: Board, say=str) -> list[list[str]]:
    """One row per place for the rulebook: the place, the places linked to it, and its own
    starting values (`say` writes a value in words)."""
    rows = []
    for i, place in enumerate(board.places):
        near = [board.labels[board.places[j]] for j in board.adjacent[i]]
        rows.append([board.labels[place], ", ".join(near) or "none",
                     *(say(board.start(place, f)) for f in value_columns(board))])
    return rows


__all__ = ["board_graph", "board_source", "cluster", "place_rows", "value_columns"]
