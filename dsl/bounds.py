"""Every bound cardsmith puts on what a game file, a template or a run may use, in one place.

A stranger's `.cards` file or rulebook template is untrusted input: each bound below stops it
from exhausting the machine. Exceeding one is always a located error (file:line:col, the code
named here) that says which bound it hit and, where raising it makes sense, how. The table in
docs/security.md and the "Bounds" section of docs/language.md are kept equal to this module by
`tests/test_bounds_docs.py`.

Bounds are plain data (one frozen dataclass per value) so the docs, the errors and the tests all
read the same numbers; code imports the constant (`from cardsmith.dsl.bounds import MAX_PLAYERS`).
"""
from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True, slots=True)
class Bound:
    """One limit: its value, its unit, what it protects and how a user may raise it."""
    name: str
    value: int | float
    unit: str
    what: str
    raise_with: str | None = None       # how to raise it, or None where it is fixed


BOUNDS: tuple[Bound, ...] = (
    # --- reading files (dsl/loader.py) ---
    Bound("MAX_FILE_BYTES", 2_000_000, "bytes", "size of one .cards file (regular files only)"),
    Bound("MAX_INCLUDE_DEPTH", 8, "levels", "nesting of extends / import"),
    Bound("MAX_INCLUDED_FILES", 64, "files", "files read for one game, the game itself and every extends / import"),
    Bound("MAX_TOTAL_BYTES", 8_000_000, "bytes", "bytes parsed for one game across all its files"),
    # --- what a file may declare (dsl/transformer.py, dsl/checks/) ---
    Bound("MAX_NUMBER", 10**15, "", "magnitude of a number written in a file"),
    Bound("MAX_STRING_LENGTH", 10_000, "characters", "length of one text written in a file (names, say texts, doc strings)"),
    Bound("MAX_CARD_COPIES", 10_000, "copies", "copies of one card"),
    Bound("MAX_CARDS", 100_000, "cards", "cards in one game, all copies of all cards"),
    Bound("MAX_PLAYERS", 100, "players", "players a game may declare (`players: 2 to N`)"),
    Bound("MAX_BOARD_PLACES", 10_000, "places", "places on one board (`board`: listed, or in the rows of a grid or hex)"),
    Bound("FRONT_FRAMES", 990, "frames", "Python frames the parser and the checks may use for a file's nesting, counted from where they are called, so a file is accepted alike from the CLI, a test run or a server (past it: E0906); a caller that raised Python's recursion limit higher gives them more"),
    Bound("MAX_CARD_PARTS", 100, "parts", "parts of one kind on one card (`parts belts: 2`, or the card's `belts` cell)"),
    Bound("MAX_ENTITIES", 100, "entities", "entities of one kind a player may own at once (`entity ship: per player, at most N`)"),
    # --- running a game (interpreter/) ---
    Bound("MAX_STEPS", 5_000_000, "instructions", "instructions one game may run; and, counted apart, items of work inside instructions (lists built, options offered, cards searched)",
          "`--max-steps N` on play, simulate and test"),
    Bound("MAX_FRAMES", 10_000, "calls", "rules calling each other (the frame stack)"),
    Bound("MAX_RUNTIME_NUMBER", 10**18, "", "magnitude of a number computed while playing"),
    Bound("MAX_DICE_PER_ROLL", 1_000, "dice", "dice rolled by one `roll`, and dice in one pool"),
    Bound("MAX_COLLECTION", 100_000, "items", "items in one list or collection computed while playing"),
    Bound("MAX_NUMBER_RANGE", 10_000, "numbers", "numbers in one `numbers from a to b` (so a choice of a number offers at most this many options)"),
    Bound("MAX_COMBINATIONS", 100_000, "groups", "groups one combination search may examine (`the groups of`, `the subsets of`, `the best arrangement of`)"),
    Bound("MAX_RUNTIME_STRING", 100_000, "characters", "length of a text computed while playing"),
    Bound("MAX_GAME_MEMORY", 4_000_000_000, "bytes",
          "memory a game may take on top of what cardsmith already holds (play, test, each simulate worker)"),
    Bound("MAX_LOG_BYTES", 50_000_000, "bytes", "size of one game's explained log",
          "play with the log off (`simulate` does), or `--max-steps` to stop sooner"),
    Bound("MAX_ANSWER_CHARS", 1_000, "characters", "one answer typed at `play --agent human` (a longer line is asked again)"),
    # --- publishing (dsl/publish/) ---
    Bound("GRAPHVIZ_SECONDS", 60, "seconds", "time Graphviz may take to lay out one diagram"),
    Bound("MAX_DIAGRAM_NODES", 2_000, "boxes", "boxes in one diagram; a larger one is left out of the rulebook with a note"),
    Bound("CHROMIUM_SECONDS", 120, "seconds", "time Chromium may take to print the rulebook's PDF"),
    Bound("MAX_TEMPLATE_OUTPUT", 50_000_000, "characters", "size of a rendered rulebook page"),
    Bound("MAX_TEMPLATE_BYTES", 2_000_000, "bytes", "size of one rulebook template file (regular files in the templates directory only)"),
    Bound("TEMPLATE_SECONDS", 60, "seconds", "time the templates may take to render the rulebook"),
    Bound("TEMPLATE_MEMORY", 1_000_000_000, "bytes", "memory the templates may use while rendering (beyond what cardsmith already uses)"),
    Bound("EXAMPLE_STEPS", 50_000, "instructions", "steps of the seeded sample game the rulebook's examples of play are taken from (the bundled games end within 14,000); past it the book tells the rounds played so far, or says why it has no examples"),
    Bound("PUBLISH_FRAMES", 20_000, "frames", "nesting the rulebook and diagram writers may follow (deeply nested rules, recursive template macros)"),
    # --- decks (dsl/decks.py, interpreter/decks.py) ---
    Bound("MAX_DECK_BYTES", 1_000_000, "bytes", "size of one deck file"),
    Bound("MAX_DECK_TRIES", 64, "tries", "random decks built and thrown away before a seat without a deck file is said to have no legal deck (each try adds one card at a time, only cards that leave a legal deck within reach)"),
    # --- simulation (interpreter/simulate.py) ---
    Bound("MAX_JOBS_OVER_CORES", 1, "× cores", "worker processes per core for `simulate --jobs`",
          "`--force-jobs`"),
)

_BY_NAME = {b.name: b for b in BOUNDS}


def bound(name: str) -> Bound:
    return _BY_NAME[name]


MAX_FILE_BYTES = int(bound("MAX_FILE_BYTES").value)
MAX_INCLUDE_DEPTH = int(bound("MAX_INCLUDE_DEPTH").value)
MAX_INCLUDED_FILES = int(bound("MAX_INCLUDED_FILES").value)
MAX_TOTAL_BYTES = int(bound("MAX_TOTAL_BYTES").value)
MAX_NUMBER = int(bound("MAX_NUMBER").value)
MAX_STRING_LENGTH = int(bound("MAX_STRING_LENGTH").value)
MAX_CARD_COPIES = int(bound("MAX_CARD_COPIES").value)
MAX_CARDS = int(bound("MAX_CARDS").value)
MAX_PLAYERS = int(bound("MAX_PLAYERS").value)
MAX_BOARD_PLACES = int(bound("MAX_BOARD_PLACES").value)
MAX_CARD_PARTS = int(bound("MAX_CARD_PARTS").value)
FRONT_FRAMES = int(bound("FRONT_FRAMES").value)
MAX_ENTITIES = int(bound("MAX_ENTITIES").value)
MAX_STEPS = int(bound("MAX_STEPS").value)
MAX_FRAMES = int(bound("MAX_FRAMES").value)
MAX_RUNTIME_NUMBER = int(bound("MAX_RUNTIME_NUMBER").value)
MAX_DICE_PER_ROLL = int(bound("MAX_DICE_PER_ROLL").value)
MAX_COLLECTION = int(bound("MAX_COLLECTION").value)
MAX_NUMBER_RANGE = int(bound("MAX_NUMBER_RANGE").value)
MAX_COMBINATIONS = int(bound("MAX_COMBINATIONS").value)
MAX_RUNTIME_STRING = int(bound("MAX_RUNTIME_STRING").value)
MAX_GAME_MEMORY = int(bound("MAX_GAME_MEMORY").value)
MAX_LOG_BYTES = int(bound("MAX_LOG_BYTES").value)
MAX_ANSWER_CHARS = int(bound("MAX_ANSWER_CHARS").value)
MAX_DECK_BYTES = int(bound("MAX_DECK_BYTES").value)
MAX_DECK_TRIES = int(bound("MAX_DECK_TRIES").value)
GRAPHVIZ_SECONDS = bound("GRAPHVIZ_SECONDS").value
MAX_DIAGRAM_NODES = int(bound("MAX_DIAGRAM_NODES").value)
CHROMIUM_SECONDS = bound("CHROMIUM_SECONDS").value
MAX_TEMPLATE_OUTPUT = int(bound("MAX_TEMPLATE_OUTPUT").value)
MAX_TEMPLATE_BYTES = int(bound("MAX_TEMPLATE_BYTES").value)
TEMPLATE_SECONDS = bound("TEMPLATE_SECONDS").value
TEMPLATE_MEMORY = int(bound("TEMPLATE_MEMORY").value)
PUBLISH_FRAMES = int(bound("PUBLISH_FRAMES").value)
EXAMPLE_STEPS = int(bound("EXAMPLE_STEPS").value)
MAX_JOBS_OVER_CORES = int(bound("MAX_JOBS_OVER_CORES").value)


TABLE_START = "<!-- bounds-table -->"
TABLE_END = "<!-- /bounds-table -->"


def bounds_markdown() -> str:
    """The table of bounds as it stands in docs/security.md and docs/language.md, between the
    TABLE_START and TABLE_END markers (tests/test_bounds_docs.py keeps both equal to this):
    `python -m cardsmith.dsl.bounds --update docs/language.md docs/security.md` rewrites them."""
    rows = ["| bound | value | what it limits | how to raise it |", "|---|---|---|---|"]
    for b in BOUNDS:
        value = f"{b.value:,}" if isinstance(b.value, int) and b.value < 10**9 else f"10^{len(str(int(b.value))) - 1}"
        unit = f" {b.unit}" if b.unit else ""
        rows.append(f"| `{b.name}` | {value}{unit} | {b.what} | {b.raise_with or 'fixed'} |")
    return "\n".join(rows)


def with_table(text: str) -> str:
    """`text` with the part between the markers replaced by the current table."""
    head, _, rest = text.partition(TABLE_START)
    _, _, tail = rest.partition(TABLE_END)
    return f"{head}{TABLE_START}\n{bounds_markdown()}\n{TABLE_END}{tail}"


if __name__ == "__main__":
    import sys
    from pathlib import Path
    if sys.argv[1:2] == ["--update"]:
        for name in sys.argv[2:]:
            doc = Path(name)
            doc.write_text(with_table(doc.read_text(encoding="utf-8")), encoding="utf-8")
    else:
        print(bounds_markdown())
