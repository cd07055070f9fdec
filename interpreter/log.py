"""The explained event log: every event names the rule (file:line:col) that caused it.

Events are plain dicts with sorted keys when written, so the same file, seed and choices
give the same log byte for byte. Logging can be switched off for fast simulation.
"""
from __future__ import annotations

import json


class EventLog:
    def __init__(self, on: bool = True, player_names: list[str] | None = None):
        self.on = on
        self.events: list[dict] = []
        self.names = player_names or []
        self._spans: dict = {}

    # ------------------------------------------------------------------ words
    def player_name(self, p) -> str:
        if p is None:
            return "nobody"
        return self.names[p] if p < len(self.names) else f"Player {p + 1}"

    def zone_name(self, m, key) -> str:
        if isinstance(key, list):
            return " and ".join(self.zone_name(m, k) for k in key)
        name, _, seat = key.partition(":")
        return f"{self.player_name(int(seat))}'s {name}" if seat else name

    def value(self, m, v):
        """A runtime value in words (cards by name, players by name); JSON-able."""
        if isinstance(v, bool) or v is None:
            return "yes" if v is True else "no" if v is False else "none"
        if isinstance(v, list):
            return [self.value(m, x) for x in v]
        return v

    def typed(self, m, v, t):
        """A value of static type `t` in words: cards and players by name; JSON-able."""
        if t == "action":
            from .resolver import label
            return label(m, v)
        if isinstance(t, tuple) and t and t[0] == "list" and isinstance(v, list):
            return [self.typed(m, x, t[1]) for x in v]
        if t == "card" and isinstance(v, int):
            return m.card_label(v)
        if t == "player" and isinstance(v, int):
            return self.player_name(v)
        if t == "zone" and isinstance(v, str):
            return self.zone_name(m, v)
        return self.value(m, v)

    def option_label(self, m, v, kind) -> str:
        if kind == "action":
            from .resolver import label
            return label(m, v)
        if kind == "card":
            return m.card_label(v)
        if kind == "player":
            return self.player_name(v)
        if isinstance(v, bool):
            return "yes" if v else "no"
        if kind == "zone":
            return self.zone_name(m, v)
        return str(v)

    # ------------------------------------------------------------------ events
    def emit(self, m, kind: str, span, data: dict, text: str) -> None:
        st = m.st
        st.event_n += 1        # numbered in the state, so a restored game goes on counting
        ev = {"n": st.event_n, "round": st.round, "event": kind,
              "rule": self._where(span),
              "step": st.step_path[-1] if st.step_path else "", "text": text}
        ev.update(data)
        self.events.append(ev)

    def move(self, m, cards, sources, key, place, face, span) -> None:
        dest = self.zone_name(m, key)
        hidden_dest = m.prog.decls.zones[key.partition(":")[0]].visibility == "hidden" or face == "down"
        if len(cards) == 1:
            what = m.card_label(cards[0])
            src = self.zone_name(m, sources[0])
        else:
            what = f"{len(cards)} cards"
            uniq = list(dict.fromkeys(sources))
            src = self.zone_name(m, uniq[0]) if len(uniq) == 1 else f"{len(uniq)} zones"
        where = f"the bottom of {dest}" if place == "bottom" else dest
        facing = f" face {face}" if face else ""
        self.emit(m, "move", span, {"cards": [m.card_label(c) for c in cards], "from": list(dict.fromkeys(sources)),
                                    "to": key, "face": face or "", "hidden": hidden_dest},
                  f"{what} from {src} to {where}{facing}")

    def _where(self, span) -> str:
        """`file.cards:12:7`, formatted once per rule: the log names a rule for every event."""
        if span is None:
            return "engine"
        text = self._spans.get(span)
        if text is None:
            text = self._spans[span] = span.short
        return text

    def to_jsonl(self) -> str:
        return "".join(json.dumps(e, sort_keys=True, ensure_ascii=False) + "\n" for e in self.events)
