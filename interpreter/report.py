"""What a simulation reports: the counts taken while a game runs, the values read when it ends,
and the versioned report built from one record per game (docs/simulate.md).

* ``Tally`` rides along one game (``Engine(..., tally=...)``): it counts the decisions a player
  was asked (``real``) and those with one option, taken at once (``forced``), the announcements of
  the events a ``measure ... counts event`` names, and which cards each seat had, drew and played:

  - **had**: the card was in a zone the seat owns at some moment (from the start of the game);
  - **drew**: the card moved into a zone the seat owns that only its owner sees (``owner only``:
    a hand), from anywhere but another such zone of the same seat;
  - **played**: the card moved out of a zone the seat owns that is not public (a hand, a deck)
    into a public zone (the table, a battlefield, a discard pile).

  These read nothing but zone declarations (who owns a zone, who sees it), so they mean the
  same in every game.
* ``end_of_game(engine, tally)`` reads the declared measures (``measure "X" [for p] as ...``)
  and groups (``group "X" for p as ...``) when the game is over, into the game's record.
* ``build_report(records, players, game)`` turns the records (in seed order) into the report:
  ``stats.summarize_games`` (win rates per seat, draws, length, aborted and crashed games) with
  the schema ``SCHEMA``, decisions, scores and returns per seat, the measures, the groups and
  the cards, each rate with its 95% Wilson interval. The same records give the same report,
  whatever the number of worker processes that played them.
* ``compare_reports(base, variant)`` sets two reports side by side (``cardsmith compare``).

The report is a ``Report``: a dict (JSON-able, the shape docs/simulate.md documents) with
``to_json()``.
"""
from __future__ import annotations

import json
from collections.abc import Sequence

from .stats import histogram, moments, rate, summarize_games, two_proportion_test, welch_test

SCHEMA = "cardsmith.simulate/1"
"""The report's schema; a change that renames or removes a key gets a new number."""

COMPARE_SCHEMA = "cardsmith.compare/1"
"""The schema of ``cardsmith compare --json``."""

SIGNIFICANCE = 0.05
"""A difference is called significant when its two-sided p-value is below this."""

CARD_WAYS = ("had", "drew", "played")


class Report(dict):
    """A simulation's report: a plain dict in the shape of docs/simulate.md, plus ``to_json``."""

    def to_json(self, indent: int | None = 2) -> str:
        return json.dumps(self, indent=indent, ensure_ascii=False)


# ================================================================ while a game runs


class Tally:
    """The counts one game's engine makes for its simulation record (see the module docstring).

    ``events`` names the events to count; ``cards`` turns the card tracking on (it makes every
    move report where its cards came from, which costs a little)."""

    __slots__ = ("real", "forced", "events", "cards", "had", "drew", "played", "zones", "_ways")

    def __init__(self, events: Sequence[str] = (), cards: bool = True):
        self.real = 0
        self.forced = 0
        self.events = {name: 0 for name in events}
        self.cards = cards
        self.had: list[set] = []
        self.drew: list[set] = []
        self.played: list[set] = []
        self.zones: dict = {}           # zone key -> (owner seat or None, visibility)
        self._ways: dict = {}           # (from key, to key) -> the sets a card moving so joins (`_ways_of`)

    def begin(self, m) -> None:
        """The game starts: every card already in a seat's zone was had by that seat."""
        n = m.n_players
        self.had = [set() for _ in range(n)]
        self.drew = [set() for _ in range(n)]
        self.played = [set() for _ in range(n)]
        self._ways = {}                 # they name the sets just made
        if not self.cards:
            return
        self.zones = {key: (seat, decl.visibility if decl is not None else "hidden")
                      for key, (decl, seat, _) in m.zone_info.items()}
        for key, held in m.zones.items():
            seat = m.zone_info[key][1]
            if seat is not None:
                self.had[seat].update(held)

    def announced(self, event: str, times: int) -> None:
        if event in self.events:
            self.events[event] += times

    def moved(self, m, cards, sources, key) -> None:
        """Cards moved from ``sources`` (one zone key per card) into zone ``key``."""
        if not self.cards:
            return
        ways = self._ways
        for c, src in zip(cards, sources):
            sets = ways.get((src, key))
            if sets is None:
                sets = ways[(src, key)] = self._ways_of(src, key)
            for held in sets:
                held.add(c)

    def moved1(self, c: int, src, key) -> None:
        """One card moved from zone ``src`` into zone ``key``: ``moved`` for the machine's one-card
        move, without building the lists."""
        sets = self._ways.get((src, key))
        if sets is None:
            sets = self._ways[(src, key)] = self._ways_of(src, key)
        for held in sets:
            held.add(c)

    def _ways_of(self, src, key) -> tuple:
        """The sets a card joins when it moves from ``src`` into ``key`` (what ``moved`` records:
        had, drew, played), worked out once per pair of zones: they read only the zone declarations."""
        if not self.cards:
            return ()
        zones = self.zones
        seat, vis = zones[key]
        sseat, svis = zones[src]
        out = []
        if seat is not None:
            out.append(self.had[seat])
            if vis == "owner" and not (sseat == seat and svis == "owner"):
                out.append(self.drew[seat])
        if vis == "public" and sseat is not None and svis != "public":
            out.append(self.played[sseat])
        return tuple(out)

    def record(self, m) -> dict:
        """The tally as a record's fields (card names, sorted, per seat)."""
        out = {"decisions": {"real": self.real, "forced": self.forced}}
        if self.events:
            out["events"] = dict(self.events)
        if self.cards:
            cards = m.cards
            out["cards"] = {way: [sorted({cards[c]["name"] for c in held}) for held in getattr(self, way)]
                            for way in CARD_WAYS}
        return out


def counted_events(game) -> list[str]:
    """The events the game's measures count, in declaration order, each once."""
    seen: list[str] = []
    for m in game.decls.measures:
        if m.event is not None and m.event not in seen:
            seen.append(m.event)
    return seen


# ================================================================ when a game ends


def end_of_game(eng, tally: Tally) -> dict:
    """The record fields a finished game adds: the tally's counts, scores and returns, the
    declared measures and groups. A measure or group that cannot be worked out stops the
    game with a located ``GameAborted`` (as a score does)."""
    from .engine import GameAborted
    from .errors import RuleError

    m, decls = eng.m, eng.game.decls
    out = tally.record(m)
    result = eng.result
    for key in ("scores", "returns"):
        if key in result:
            out[key] = list(result[key])
    if decls.measures:
        measures = {}
        for decl in decls.measures:
            try:
                measures[decl.name] = _measure(eng, decl, tally)
            except RuleError as err:
                raise GameAborted(err.code or "E0802", f"the measure \"{decl.name}\" could not be worked out: "
                                  f"{err.message}", err.span or decl.span, err.hint) from None
        out["measures"] = measures
    if decls.groups:
        groups = {}
        for decl in decls.groups:
            try:
                fn = _compiled(eng, decl)
                groups[decl.name] = [_group_value(eng, fn(m, {decl.player: p, "$you": p}))
                                     for p in range(eng.n)]
            except RuleError as err:
                raise GameAborted(err.code or "E0802", f"the group \"{decl.name}\" could not be worked out: "
                                  f"{err.message}", err.span or decl.span, err.hint) from None
        out["groups"] = groups
    return out


def _measure(eng, decl, tally: Tally):
    if decl.event is not None:
        return tally.events.get(decl.event, 0)
    fn = _compiled(eng, decl)
    if decl.player is None:
        return fn(eng.m, {})
    return [fn(eng.m, {decl.player: p, "$you": p}) for p in range(eng.n)]


def _compiled(eng, decl):
    """The declaration's expression compiled once per program (kept beside the score's)."""
    from cardsmith.dsl.types import PLAYER, Scope

    cache = eng.prog.__dict__.setdefault("_report_fns", {})
    key = (type(decl).__name__, decl.name)
    fn = cache.get(key)
    if fn is None:
        scope = Scope({decl.player: PLAYER}, you=True) if decl.player is not None else Scope()
        fn = cache[key] = eng.prog.exprs.compile(decl.expr, scope)
    return fn


def _group_value(eng, value) -> str:
    """A group's value as the report names it: an enum member or a text as it is, a flag as
    yes / no, a number in digits, none as "none"."""
    if value is None:
        return "none"
    if isinstance(value, bool):
        return "yes" if value else "no"
    return str(value)


# ================================================================ the report


def declared(game) -> dict:
    """What the game declares for its report: measures and groups, in order, with their English."""
    from cardsmith.dsl.publish import english as E

    d = game.decls
    ctx = E.make_ctx(d, param_types=E.param_types(d))
    return {
        "measures": [{"name": m.name, "per": "player" if m.player is not None else "game",
                      "kind": "counts event" if m.event is not None else "value",
                      "event": m.event, "says": E.plain(E.describe_measure(m, ctx))} for m in d.measures],
        "groups": [{"name": g.name, "says": E.plain(E.describe_group(g, ctx))} for g in d.groups],
        "has_score": d.score is not None,
    }


def build_report(records: Sequence[dict], players: int, game_info: dict | None = None) -> Report:
    """The report of a simulation from its records in seed order (``game_info``: ``declared(game)``)."""
    info = game_info or {"measures": [], "groups": [], "has_score": False}
    report = Report(schema=SCHEMA)
    report.update(summarize_games(records, players))
    finished = [r for r in records if r["status"] == "finished"]
    wins = [_winners(r) for r in finished]

    report["rounds"] = moments(r["rounds"] for r in finished)
    report["steps"] = moments(r["steps"] for r in finished)
    decisions = [r.get("decisions", {"real": 0, "forced": 0}) for r in finished]
    report["decisions"] = {
        "real": moments(d["real"] for d in decisions),
        "forced": moments(d["forced"] for d in decisions),
        "all": moments(d["real"] + d["forced"] for d in decisions),
    }
    report["histograms"] = {"rounds": histogram(r["rounds"] for r in finished),      # the HTML report's plots
                            "decisions": histogram(d["real"] + d["forced"] for d in decisions)}
    for seat in report["seats"]:
        i = seat["seat"]
        scored = [r for r in finished if "scores" in r]
        seat["score"] = moments(r["scores"][i] for r in scored if r["scores"][i] is not None) if scored else None
        seat["return"] = moments(_returns(r, players)[i] for r in finished)

    report["measures"] = _measures(info["measures"], finished, players)
    report["groups"] = _groups(info["groups"], finished, wins, report["groupings"])
    report["cards"], report["card_groups"] = _cards(finished, wins, players)
    return report


def _returns(record: dict, players: int) -> list:
    """The record's returns (a game with a score carries them), else the same convention worked out
    from the winners: the winners share 1, a draw gives each of n players 1/n."""
    if "returns" in record:
        return record["returns"]
    winners = _winners(record)
    if not winners:
        return [1 / players] * players
    return [1 / len(winners) if seat in winners else 0.0 for seat in range(players)]


def _winners(record: dict) -> set:
    return set() if record["draw"] else set(record["winners"])


def _measures(declared_measures: list, finished: list, players: int) -> dict:
    out = {}
    for m in declared_measures:
        name = m["name"]
        values = [r.get("measures", {}).get(name) for r in finished]
        entry = {"per": m["per"], "kind": m["kind"], "event": m["event"], "says": m["says"]}
        if m["per"] == "game":
            entry["per_game"] = moments(v for v in values if v is not None)
        else:
            per_game = [v for v in values if v is not None]
            entry["per_game"] = moments(sum(x for x in v if x is not None) for v in per_game)
            entry["per_player"] = moments(x for v in per_game for x in v if x is not None)
            entry["seats"] = [moments(v[i] for v in per_game if i < len(v) and v[i] is not None)
                              for i in range(players)]
        out[name] = entry
    return out


def _win_rate(wins: int, seats: int) -> dict:
    r = rate(wins, seats)
    return {"seats": seats, "wins": wins, "win_rate": r["rate"], "ci95": r["ci95"]}


def _groups(declared_groups: list, finished: list, wins: list, groupings: dict) -> dict:
    """Declared groups; a game that declares none is grouped by its enum player attributes."""
    if not declared_groups:
        return {attribute: {"declared": False, "says": f"the players grouped by their {attribute}",
                            "values": {value: _win_rate(row["wins"], row["games"]) for value, row in values.items()}}
                for attribute, values in groupings.items()}
    out = {}
    for g in declared_groups:
        tally: dict[str, list[int]] = {}
        for record, winners in zip(finished, wins):
            for seat, value in enumerate(record.get("groups", {}).get(g["name"], ())):
                t = tally.setdefault(value, [0, 0])
                t[0] += 1
                t[1] += seat in winners
        out[g["name"]] = {"declared": True, "says": g["says"],
                          "values": {v: _win_rate(w, n) for v, (n, w) in sorted(tally.items())}}
    return out


def _cards(finished: list, wins: list, players: int) -> tuple[dict, dict]:
    """Per card name and way (had, drew, played): the win rate of the seats that did it; the same
    within each value of each group."""
    counts: dict[str, dict[str, list[int]]] = {}
    by_group: dict[str, dict[str, dict[str, dict[str, list[int]]]]] = {}
    for record, winners in zip(finished, wins):
        cards = record.get("cards")
        if not cards:
            continue
        groups = record.get("groups", {})
        for way in CARD_WAYS:
            for seat, names in enumerate(cards[way]):
                won = seat in winners
                for name in names:
                    t = counts.setdefault(name, {w: [0, 0] for w in CARD_WAYS})[way]
                    t[0] += 1
                    t[1] += won
                    for group, values in groups.items():
                        value = values[seat] if seat < len(values) else "none"
                        g = by_group.setdefault(group, {}).setdefault(value, {}).setdefault(
                            name, {w: [0, 0] for w in CARD_WAYS})[way]
                        g[0] += 1
                        g[1] += won
    cards = {name: {way: _win_rate(w, n) for way, (n, w) in ways.items()} for name, ways in sorted(counts.items())}
    card_groups = {group: {value: {name: {way: _win_rate(w, n) for way, (n, w) in ways.items()}
                                   for name, ways in sorted(names.items())}
                           for value, names in sorted(values.items())}
                   for group, values in sorted(by_group.items())}
    return cards, card_groups


# ================================================================ two reports side by side


def compare_reports(base: dict, variant: dict, changes: list[str] | None = None) -> dict:
    """Every metric of two reports side by side: base, variant, the difference (variant - base),
    the test, its p-value and whether it is significant (p < ``SIGNIFICANCE``). Rates use the
    two-proportion z test, means Welch's t test. ``changes``: what the variant changes, in words."""
    rows: list[dict] = []

    def rate_row(section: str, metric: str, a: dict | None, b: dict | None, key_k="wins", key_n="seats") -> None:
        if a is None or b is None:
            return
        ka, na, kb, nb = a[key_k], a[key_n], b[key_k], b[key_n]
        ra = ka / na if na else None
        rb = kb / nb if nb else None
        p = two_proportion_test(ka, na, kb, nb)
        rows.append({"section": section, "metric": metric, "kind": "rate", "test": "two-proportion z",
                     "base": ra, "variant": rb, "difference": None if ra is None or rb is None else rb - ra,
                     "base_n": na, "variant_n": nb, "p_value": p,
                     "significant": p is not None and p < SIGNIFICANCE})

    def mean_row(section: str, metric: str, a: dict | None, b: dict | None) -> None:
        if not a or not b:
            return
        ma, mb = a.get("mean"), b.get("mean")
        p = welch_test(a, b)
        rows.append({"section": section, "metric": metric, "kind": "mean", "test": "Welch t",
                     "base": ma, "variant": mb, "difference": None if ma is None or mb is None else mb - ma,
                     "base_n": a.get("count", 0), "variant_n": b.get("count", 0), "p_value": p,
                     "significant": p is not None and p < SIGNIFICANCE})

    for sa, sb in zip(base["seats"], variant["seats"]):
        name = sa["name"]
        rate_row("seats", f"{name} win rate", {"wins": sa["wins"], "seats": base["finished"]},
                 {"wins": sb["wins"], "seats": variant["finished"]})
        mean_row("seats", f"{name} score", sa.get("score"), sb.get("score"))
        mean_row("seats", f"{name} return", sa.get("return"), sb.get("return"))
    rate_row("outcomes", "draws", base["draws"], variant["draws"], "count", "of")
    for key, label in (("rounds", "rounds per game"), ("steps", "steps per game")):
        mean_row("length", label, base.get(key), variant.get(key))
    for key in ("real", "forced", "all"):
        mean_row("length", f"{key} decisions per game", base.get("decisions", {}).get(key),
                 variant.get("decisions", {}).get(key))
    for name, ma in base.get("measures", {}).items():
        mb = variant.get("measures", {}).get(name)
        if mb is None:
            continue
        mean_row("measures", f"{name} per game", ma.get("per_game"), mb.get("per_game"))
        if "per_player" in ma and "per_player" in mb:
            mean_row("measures", f"{name} per player", ma["per_player"], mb["per_player"])
    for group, ga in base.get("groups", {}).items():
        gb = variant.get("groups", {}).get(group)
        if gb is None:
            continue
        for value, va in ga["values"].items():
            rate_row("groups", f"{group} {value} win rate", va, gb["values"].get(value))
    for card, ca in base.get("cards", {}).items():
        cb = variant.get("cards", {}).get(card)
        if cb is None:
            continue
        for way in CARD_WAYS:
            rate_row("cards", f"{card}: {way}, win rate", ca[way], cb[way])
    only = {"measures": sorted(set(variant.get("measures", {})) - set(base.get("measures", {}))),
            "cards": sorted(set(variant.get("cards", {})) - set(base.get("cards", {})))}
    return Report(schema=COMPARE_SCHEMA, base=base, variant=variant, changes=list(changes or ()),
                  rows=rows, only_in_variant=only,
                  significant=[r["metric"] for r in rows if r["significant"]])


# ================================================================ what a variant changes


def variant_changes(base, variant) -> list[str]:
    """What the variant's own file declares over the base game, in English: each `override`
    (the rule it replaces and how the new one reads), a new title or player range, and what it
    adds (end checks, cards, measures, ...). Scenarios are left out: they change no rule."""
    from pathlib import Path

    from cardsmith.dsl import ast as A
    from cardsmith.dsl.publish import english as E

    def same(a: str, b: str) -> bool:
        try:
            return Path(a).resolve() == Path(b).resolve()
        except (OSError, ValueError):
            return a == b

    decls = variant.module.decls
    own = [d for d in decls if same(_decl_path(d), variant.path)]
    if not any(same(_decl_path(d), base.path) for d in decls):
        return [f"The variant does not extend {Path(base.path).name}: it is another game, compared as it is."]
    d = variant.decls
    ctx = E.make_ctx(d, param_types=E.param_types(d))
    out: list[str] = []
    for decl in own:
        if isinstance(decl, A.OverrideDecl):
            out.append(_replaced(decl.decl, ctx, E, A))
        elif isinstance(decl, A.GameDecl):
            if variant.title != base.title:
                out.append(f"Its title is {E.quote(variant.title)}.")
            if (variant.min_players, variant.max_players) != (base.min_players, base.max_players):
                out.append(f"It is for {variant.min_players} to {variant.max_players} players "
                           f"(the base: {base.min_players} to {base.max_players}).")
        elif isinstance(decl, A.ScenarioDecl):
            continue
        elif isinstance(decl, A.MeasureDecl):
            out.append("It adds the measure " + E.plain(E.describe_measure(decl, ctx)))
        elif isinstance(decl, A.GroupDecl):
            out.append("It adds the group " + E.plain(E.describe_group(decl, ctx)))
        elif isinstance(decl, A.EndCheckDecl):
            out.append("It adds an end check: " + _end_check(decl, ctx, E))
        elif isinstance(decl, A.DefineDecl):
            out.append("It adds a definition: " + E.plain(E.describe_define(decl, ctx)))
        elif isinstance(decl, A.ProcedureDecl):
            inner = E.params_ctx(ctx, decl.name, decl.params)
            out.append(f"It adds the procedure {E.quote(E.human(decl.name))}: {_body_text(decl.body, inner, E)}")
        elif isinstance(decl, A.CardDecl):
            out.append(f"It adds the card {E.quote(decl.name)}.")
        elif isinstance(decl, A.CardTable):
            names = dict.fromkeys(c.name for c in variant.cards if same(_decl_path(c), variant.path))
            out.append(f"It adds the cards {', '.join(E.quote(n) for n in names)}." if names else
                       f"It adds a table of cards (line {decl.span.line}).")
        else:
            name = getattr(decl, "name", None)
            kind = type(decl).__name__.removesuffix("Decl").lower()
            out.append(f"It adds the {kind} {E.quote(E.human(name))}." if isinstance(name, str) else
                       f"It adds a {kind} (line {decl.span.line}).")
    return out


def _decl_path(decl) -> str:
    span = getattr(decl, "span", None)
    if span is None:                       # a declaration without a span of its own (its body has one)
        body = getattr(decl, "body", None) or ()
        span = getattr(body[0], "span", None) if body else None
    return span.path if span is not None else ""


def _body_text(body, ctx, E) -> str:
    """A rule's statements in English, its doc strings left out (they are the designer's prose)."""
    from cardsmith.dsl import ast as A

    text = E.plain(E.flatten(E.describe_block([s for s in body if not isinstance(s, A.DocItem)], ctx)))
    return text or "nothing happens."


def _end_check(decl, ctx, E) -> str:
    name = getattr(decl, "name", None)
    named = f" ({E.quote(name)})" if isinstance(name, str) and name else ""
    return f"as soon as {E.plain(E.cond(decl.cond, ctx))}{named}: {_body_text(decl.body, ctx, E)}"


def _replaced(decl, ctx, E, A) -> str:
    if isinstance(decl, A.ProcedureDecl):
        inner = E.params_ctx(ctx, decl.name, decl.params)
        return f"The procedure {E.quote(E.human(decl.name))} is replaced: {_body_text(decl.body, inner, E)}"
    if isinstance(decl, A.DefineDecl):
        return "Replaced: " + E.plain(E.describe_define(decl, ctx))
    if isinstance(decl, A.SetupDecl):
        return f"The setup is replaced: {_body_text(decl.body, ctx, E)}"
    if isinstance(decl, A.RoundDecl):
        return f"The round {E.quote(decl.name)} is replaced: {_body_text(decl.body, ctx, E)}"
    if isinstance(decl, A.EndCheckDecl):
        return "An end check is replaced: " + _end_check(decl, ctx, E)
    return f"A {type(decl).__name__.removesuffix('Decl').lower()} is replaced (line {decl.span.line})."


# ================================================================ running a comparison


def compare(base_path: str, variant_path: str, games: int, players: int, jobs: int, seed: int, *,
            progress: bool = False, agents: list[str] | None = None, max_steps: int | None = None,
            force_jobs: bool = False, scheduler: str | None = None, root: str | None = None) -> Report:
    """Simulate the base and the variant on the same seeds (``seed`` to ``seed + games - 1``)
    and compare the two reports (``compare_reports``), with what the variant changes.
    ``SimulationInterrupted`` from either run goes to the caller (half a comparison is none)."""
    from cardsmith.dsl.loader import load_game

    from .simulate import simulate

    from .play import check_player_count

    base_game, variant_game = load_game(base_path, root=root), load_game(variant_path, root=root)
    for game in (base_game, variant_game):      # both, before either plays a game
        check_player_count(game, players)
    runs = []
    for path in (base_path, variant_path):
        options = {"scheduler": scheduler} if scheduler is not None else {}
        runs.append(simulate(path, games, players, jobs, seed, progress=progress, max_steps=max_steps,
                             force_jobs=force_jobs, agents=agents, root=root, **options))
    return compare_reports(runs[0], runs[1], variant_changes(base_game, variant_game))
