"""The bounds of dsl/bounds.py are documented, word for word, in docs/security.md and in
docs/language.md's "Bounds" section (both generated from the module; see `with_table`)."""
from pathlib import Path

import pytest

from cardsmith.dsl import bounds

DOCS = Path(__file__).resolve().parent.parent / "docs"


@pytest.mark.parametrize("name", ["language.md", "security.md"])
def test_doc_shows_the_current_bounds(name):
    text = (DOCS / name).read_text(encoding="utf-8")
    assert bounds.TABLE_START in text and bounds.TABLE_END in text, f"docs/{name} has no bounds table"
    assert text == bounds.with_table(text), (
        f"docs/{name} is stale: run python -m cardsmith.dsl.bounds --update docs/language.md docs/security.md")


def test_every_bound_is_named_once_and_explained():
    names = [b.name for b in bounds.BOUNDS]
    assert len(names) == len(set(names))
    for b in bounds.BOUNDS:
        assert b.value > 0 and b.what
        assert getattr(bounds, b.name) == b.value, f"{b.name}: constant and table disagree"


def test_with_table_replaces_only_between_the_markers():
    text = f"before\n{bounds.TABLE_START}\nSTALE-TABLE\n{bounds.TABLE_END}\nafter\n"
    out = bounds.with_table(text)
    assert out.startswith("before\n") and out.endswith("after\n") and "STALE-TABLE" not in out
    assert bounds.bounds_markdown() in out
