"""The front end never crashes: mutated Space War text is either a Game or located diagnostics.

hypothesis mutates games/space_war_in_space.cards (delete a slice, duplicate a line, replace
a word with another word of the file, truncate; one to three of these) and checks that
`check_file` never raises and reports every problem inside the mutated file, that `load_game`
returns a Game or raises CardsmithError and agrees with `check_file`, and that a Game which
loads plays a short seeded game ending normally or with GameAborted / CardsmithError.
"""
from __future__ import annotations

import re
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from cardsmith.dsl.diagnostics import CardsmithError
from cardsmith.dsl.loader import check_file, load_game
from cardsmith.interpreter.engine import Engine, GameAborted
from cardsmith.interpreter.play import default_agents

SOURCE = (Path(__file__).resolve().parents[1] / "games" / "space_war_in_space.cards").read_text(encoding="utf-8")
WORDS = sorted(set(re.findall(r"[A-Za-z_]+|\d+", SOURCE)))
MAX_STEPS = 20_000


@st.composite
def mutation(draw, text: str):
    kind = draw(st.sampled_from(["delete", "duplicate", "replace", "truncate"]))
    n = len(text)
    if kind == "delete":
        start = draw(st.integers(0, max(n - 1, 0)))
        length = draw(st.integers(1, 200))
        return kind, text[:start] + text[start + length:]
    if kind == "duplicate":
        lines = text.splitlines(keepends=True)
        if not lines:
            return kind, text
        i = draw(st.integers(0, len(lines) - 1))
        return kind, "".join(lines[: i + 1] + [lines[i]] + lines[i + 1:])
    if kind == "replace":
        spots = [m.span() for m in re.finditer(r"[A-Za-z_]+|\d+", text)]
        if not spots:
            return kind, text
        a, b = draw(st.sampled_from(spots))
        word = draw(st.sampled_from(WORDS))
        return kind, text[:a] + word + text[b:]
    cut = draw(st.integers(0, n))
    return kind, text[:cut]


@st.composite
def mutants(draw):
    text = SOURCE
    for _ in range(draw(st.integers(1, 3))):
        _, text = draw(mutation(text))
    return text


@pytest.fixture(scope="module")
def mutant_path(tmp_path_factory) -> Path:
    return tmp_path_factory.mktemp("fuzz") / "mutant.cards"


def assert_located(diags, path: str, text: str) -> None:
    n_lines = len(text.splitlines())
    for d in diags:
        where = f"{d.code} {d.message!r} at {d.span}"
        assert d.span.path == path, f"{where}: not in the mutated file"
        assert d.span.line >= 1, where
        assert d.span.line <= n_lines + 1, f"{where}: past the end of the file ({n_lines} lines)"
        assert d.span.column >= 1, where
        assert isinstance(d.message, str) and d.message.strip(), where
        assert re.fullmatch(r"[EW]\d{4}", d.code), where
        assert d.severity in ("error", "warning"), where


@pytest.mark.slow
@settings(max_examples=150, deadline=None, derandomize=True, database=None,
          suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large])
@given(text=mutants())
def test_mutated_rules_never_crash_the_front_end_or_the_engine(mutant_path, text):
    mutant_path.write_text(text, encoding="utf-8")
    path = str(mutant_path)

    diags, sources = check_file(path)                 # must not raise
    assert_located(diags, path, text)
    errors = [d for d in diags if d.severity == "error"]

    try:
        game = load_game(path)
    except CardsmithError as err:
        assert errors, "load_game failed where check_file found no error"
        assert err.diagnostics, "a CardsmithError without diagnostics"
        assert_located(err.diagnostics, path, text)
        return
    assert not errors, f"load_game returned a Game despite: {errors[0].span}: {errors[0].message}"

    players = max(2, min(game.min_players, 3))
    try:
        eng = Engine(game, players, seed=1, max_steps=MAX_STEPS)
        agents = default_agents(players, 1)
        for _ in range(MAX_STEPS):
            if eng.finished:
                break
            d = eng.pending
            assert d is not None, "the engine is neither finished nor waiting for a decision"
            assert d.options, "a decision without options"
            eng.decide(agents[d.player].choose(eng.view(d.player), d))
    except (GameAborted, CardsmithError) as err:
        assert err.diagnostics and err.diagnostics[0].message


def test_unmutated_source_loads_and_plays(mutant_path):
    """The baseline: the fuzz harness accepts the real file with no diagnostics."""
    mutant_path.write_text(SOURCE, encoding="utf-8")
    diags, _ = check_file(str(mutant_path))
    assert [d for d in diags if d.severity == "error"] == []
    game = load_game(str(mutant_path))
    assert game.min_players == 2


def test_a_broken_mutant_is_reported_in_the_mutated_file(mutant_path):
    """The harness can fail: a mistake is found, located in the temporary file."""
    broken = SOURCE.replace("zone deck: per player", "zone deck: per plaer", 1)
    mutant_path.write_text(broken, encoding="utf-8")
    diags, _ = check_file(str(mutant_path))
    assert diags and all(d.span.path == str(mutant_path) for d in diags)
    line = next(i for i, t in enumerate(broken.splitlines(), 1) if "per plaer" in t)
    assert any(d.span.line == line for d in diags)
    with pytest.raises(CardsmithError):
        load_game(str(mutant_path))


def test_an_unknown_attribute_of_a_parameter_is_a_located_error_not_a_crash(mutant_path):
    """A mutant the fuzzer found (`p's bonus` -> `p's interpretation` in a define): it used to pass
    the checks and crash the engine with a bare KeyError; now it must be a located error."""
    text = SOURCE.replace("+ p's bonus", "+ p's interpretation", 1)
    assert text != SOURCE
    mutant_path.write_text(text, encoding="utf-8")
    try:
        game = load_game(str(mutant_path))
    except CardsmithError as err:
        assert err.diagnostics[0].span.path == str(mutant_path)
        return
    with pytest.raises(GameAborted) as info:
        eng = Engine(game, 2, seed=1, max_steps=MAX_STEPS)
        agents = default_agents(2, 1)
        while not eng.finished:
            d = eng.pending
            eng.decide(agents[d.player].choose(eng.view(d.player), d))
    assert info.value.diagnostics[0].span.path == str(mutant_path)
