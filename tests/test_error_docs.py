"""Every error code the code can raise has an entry in docs/errors.md, and every entry is used."""
import re
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent


def _codes_in_code() -> set[str]:
    found = set()
    for folder in ("dsl", "interpreter"):
        for path in (ROOT / folder).rglob("*.py"):
            found.update(re.findall(r'"(E\d{4})"', path.read_text(encoding="utf-8")))
    return found


def _codes_in_docs() -> set[str]:
    return set(re.findall(r"^#{2,3} (E\d{4})", (ROOT / "docs" / "errors.md").read_text(encoding="utf-8"), re.M))


def test_every_code_is_documented():
    missing = _codes_in_code() - _codes_in_docs()
    assert not missing, f"codes without an entry in docs/errors.md: {sorted(missing)}"


def test_every_documented_code_exists():
    stale = _codes_in_docs() - _codes_in_code()
    assert not stale, f"docs/errors.md documents codes nothing raises: {sorted(stale)}"
