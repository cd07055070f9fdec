"""The machine's modules each state the rule they implement once, pointing at the rulebook
section that states it for designers; and a method lives in one of them only (a mixin method
silently shadowed by one of the same name on Machine would never run)."""
from __future__ import annotations

import re
from pathlib import Path

from cardsmith.interpreter import decisions, machine, triggers
from cardsmith.interpreter.decisions import Decisions
from cardsmith.interpreter.machine import Machine
from cardsmith.interpreter.triggers import Triggers

DOCS = Path(__file__).resolve().parent.parent / "docs"


def headings(name: str) -> set[str]:
    return {line.lstrip("#").strip() for line in (DOCS / name).read_text().splitlines() if line.startswith("#")}


def bold_titles(name: str) -> set[str]:
    return {m.rstrip(".") for m in re.findall(r"^\*\*(.+?)\*\*", (DOCS / name).read_text(), re.M)}


CITATION = re.compile(r'"([^"]+)"(?:\s*\([^)]*\))?(\s*,\s*|\s+and\s+)?')


def cited(doc: str, name: str) -> list[str]:
    """The section titles a docstring cites as `docs/<name>, "Title", "Title" and "Title"`."""
    found = []
    for m in re.finditer(rf"docs/{re.escape(name)},\s*", doc):
        at = m.end()
        while (title := CITATION.match(doc, at)):
            found.append(" ".join(title.group(1).split()))
            at = title.end()
            if title.group(2) is None:
                break
    return found


def test_each_module_cites_real_rulebook_sections():
    language, arch = headings("language.md"), bold_titles("architecture.md")
    for module, wanted in ((triggers, {"`when`: triggered abilities", "`order simultaneous triggers`",
                                       "`instead of`: replacement effects", "How a game runs"}),
                           (decisions, {"Choices: `chooses`, `may`, `secretly chooses`",
                                        "Scenario statements: `give`, `expect`, `play`, `stack`"})):
        sections = cited(module.__doc__, "language.md")
        assert wanted <= set(sections), (module.__name__, sections)
        assert set(sections) <= language, (module.__name__, set(sections) - language)
        for title in cited(module.__doc__, "architecture.md"):
            assert title in arch, (module.__name__, title)
    assert cited(triggers.__doc__, "architecture.md") == ["Triggers"]
    assert cited(decisions.__doc__, "architecture.md") == ["Decisions are explicit"]


def test_the_machine_composes_the_modules_and_no_method_is_defined_twice():
    assert Machine.__mro__[1:3] == (Triggers, Decisions)
    own = {name for name, v in vars(Machine).items() if callable(v)}
    for part in (Triggers, Decisions):
        methods = {name for name, v in vars(part).items() if callable(v)}
        assert methods, part
        assert not methods & own, (part.__name__, methods & own)
    assert not {n for n in vars(Triggers) if not n.startswith("__")} & {n for n in vars(Decisions)
                                                                          if not n.startswith("__")}
    for name in ("announce", "announce_all", "replace", "_collect", "_order"):
        assert getattr(Machine, name) is vars(Triggers)[name]
    for name in ("ask", "decide", "give"):
        assert getattr(Machine, name) is vars(Decisions)[name]


def test_the_rule_of_trigger_order_is_stated_in_one_module():
    """"last in, first out" for triggers is stated in triggers.py, not again in machine.py."""
    assert "last in, first out" in triggers.__doc__
    assert "first to resolve on top" not in machine.__doc__
