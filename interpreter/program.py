"""Program: a Game compiled once into Codes for the step machine, plus the trigger index.

Built lazily and cached on the (immutable) Game. Code ids are stable for a given game file
(and, for a game dealt decks, its deal), which is what lets a saved GameState name its frames by id.

A game dealt decks (interpreter/decks.py) gets a program per deal. What of it the deal does not
change is built once per rules and what it reads of the deal (`_prefix_key`), and copied into
the program of every later deal (`_snapshot`, `_restore`): the setup, the round, the end checks,
the procedures they call and, unless that code reads the keywords' holders (card ids), the codes
of the `instead of` and triggered abilities of every card of the rules (`_rules_abilities`); the
fused blocks of those codes are shared too, by the deals that read the same when building them
(`_share_blocks`, `_blocks_key`). tests/test_dealt_build_prefix.py.
"""
from __future__ import annotations

import copy
from dataclasses import dataclass, field

from cardsmith.dsl import ast as A
from cardsmith.dsl.model import BUILTIN_EVENTS, Game
from cardsmith.dsl.registry import ROUND_STARTED
from cardsmith.dsl.types import ANY, CARD, PLAYER, Scope, list_of, ref_type

from .compile_expr import ExprCompiler, zone_keys
from .errors import RuleError
from .blocks import Snippet
from .triggers import REPLACED
from .compile_stmt import Code, Ctx, StmtCompiler, _goto
from .gen_expr import ExprGen, Gen, Pool
from . import caps, card_text, resolver
from .compile_lang import holders_of
from .reads import ATTRS, FIXED_NODES, ZONES, _nodes, names_in, reads, versioned, written_names

MAX_PLAYERS_HARD = 16


@dataclass
class TriggerEntry:
    """A triggered ability and the cards that carry it (cheap index by event, then the condition)."""
    ability: A.Triggered
    code_id: int
    cond: object                # fn(m, env) -> bool, or None
    blank: object               # fn(m, env) -> bool ("text is blank unless"), or None
    cards: list                 # card ids
    label: str
    key_param: str | None = None   # `where <param> = this`: only the card named by the event can match
    card_set: frozenset = frozenset()
    extra: dict = field(default_factory=dict)   # a keyword's arguments, bound in the ability's names
    stacked: bool = False       # `stack ...: holds triggered abilities [of <its card type>]`: waits on the stack


@dataclass
class ModifierEntry:
    """A `modify <field> of <target> by <amount> while <cond>` ability and the cards carrying it."""
    ability: A.StaticMod
    target: object              # fn(m, env) -> card(s) or player(s); None: the game's attribute
    amount: object              # fn(m, env) -> number
    cond: object                # fn(m, env) -> bool, or None
    blank: object               # the card type's "text is blank unless", or None
    cards: list
    extra: dict = field(default_factory=dict)
    # the zone keys where the condition's first conjunct can hold for a card whose `$you` is its
    # zone's seat (`Program._modifier_zones`), or None: every zone; Machine._mod_table skips a
    # card lying elsewhere before building its env
    zones: frozenset | None = None
    # with `zones`: the condition after that first conjunct (None: nothing after it), which is what
    # the condition comes to for a card lying in one of `zones` (`_modifier_zones`: the conjunct is
    # then true, and evaluating it charges nothing); Machine._mod_table evaluates this instead
    rest: object = None


class Program:
    def __init__(self, game: Game):
        self.game = game
        d = game.decls
        self.decls = d
        self.zone_keys = zone_keys(d, max(game.max_players, 1))
        self.codes: list[Code] = []
        self._proc_codes: dict = {}
        self.keyword_of = {id(ab): kw for kw in d.keywords.values() for ab in kw.abilities}
        # what `modify` abilities change, by kind (`modifier_kind`): the names read through
        # Machine.modified, modified_player, modified_game instead of the stored value
        self.modified_fields: set = set()
        self.modified_player_attrs: set = set()
        self.modified_game_attrs: set = set()
        for ab, _args, type_name, _cards in self.ability_groups(A.StaticMod):
            kind = self.modifier_kind(ab, type_name)
            {"card": self.modified_fields, "player": self.modified_player_attrs,
             "game": self.modified_game_attrs}[kind].add(ab.field)
        self.modified_names = self.modified_fields | self.modified_player_attrs | self.modified_game_attrs
        self.exprs = ExprCompiler(self)
        self.pool = Pool()                  # the namespace of the generated code (interpreter/blocks.py)
        self.gen = ExprGen(self, self.pool)
        self.stmts = StmtCompiler(self, self.exprs, self.gen)
        self.card_type_names = [c.type_name for c in game.cards]
        self.card_names = [c.name for c in game.cards]
        # some card type's back shows fields (`back shows: tier`): views and logs show them
        self.backs = any(ct.back for ct in self.decls.card_types.values())
        # a part's word in the log: `parts mines "Mine": 2` -> "Mine" (interpreter/parts.py)
        self.part_labels = {pd.name: pd.label or pd.name for ct in self.decls.card_types.values() for pd in ct.parts}
        # keyword name -> the ids of the cards that carry it (`has keyword`: compile_lang.keyword_cards)
        self.keyword_holders = holders_of(self)
        # a game dealt decks (interpreter/decks.py): its setup, round, end checks and the
        # procedures they call (the prefix) are built once per rules and what they read of the
        # deal, and copied into the program of every deal that reads the same (`_prefix_key`)
        self.dealt = bool(game.decks)
        self.holders_read = False       # whether the code built so far read `keyword_holders` (keyword_cards)
        # the cards of the declared game (pool included), for a dealt game: the codes of the
        # `instead of` and triggered abilities of every one of them are built with the prefix, in
        # their order (`_rules_abilities`), and a deal's index names those of its own cards
        self.rules_cards = game._cache.get("rules_cards") if self.dealt else None
        shared = game._cache.get("prefixes") if self.dealt else None
        key = self._prefix_key() if shared is not None or self.rules_cards is not None else None
        # a prefix whose code reads the keywords' holders (`keyword_cards`: built in as constants,
        # the deal's) is never shared by deals that deal them otherwise: for such rules (and
        # `_prefix_key`) each deal builds the abilities of its own cards alone, as before. Which
        # rules they are is known once a prefix was built (`_rebuild`); the same for every deal
        # of the rules with that key, in any process
        if self.rules_cards is not None:
            flags = game._cache.setdefault("holders_read", {})
            if flags.get(key):
                self.rules_cards = None
        kept = shared.get(key) if shared is not None else None
        if kept is not None and kept[0] != self.keyword_holders_key(kept[1]):
            kept = None             # its code holds the holders of keywords this deal deals otherwise
        snap = None
        if kept is not None:
            snap = kept[2]
            self._restore(snap)
        else:
            before = set(self.__dict__)
            self.main = self._compile_main()
            self.end_checks = [(self.gen.function(ec.cond, Scope(), "as soon as"), self._code(_end_check_name(ec),
                                                                                   ec.body, Scope()), ec)
                               for ec in d.end_checks]
            if self.rules_cards is not None:
                self._rules_abilities()
            if self.rules_cards is not None and self.holders_read:
                # the rules' abilities were built for nothing: this deal's own, as every deal's
                flags[key] = True
                self._rebuild(game)
                return
            if shared is not None:
                if len(shared) >= _PREFIXES_KEPT:
                    shared.pop(next(iter(shared)))
                read = self.holders_read
                snap = self._snapshot(before)
                shared[key] = (self.keyword_holders_key(read), read, snap)
        self.check_mask = 0
        for ec in d.end_checks:
            self.check_mask |= reads(ec.cond, d)
        if self.modified_names and self.check_mask & ATTRS:
            self.check_mask |= ZONES        # a modified field changes when cards move
        self.modifiers: dict[str, list[ModifierEntry]] = {}
        self._index_modifiers()
        self.replacements: dict[str, list[TriggerEntry]] = {}
        self._index_replacements()
        self.actions = resolver.build_actions(self)
        self.action_keys: dict = {}        # (action, seat) -> the zone keys it is used from (resolver.usable)
        self.texts = card_text.build_texts(self)       # card id -> its `text:`, for `resolve`
        self.after_resolve = resolver.build_after_resolve(self)
        self.windows_after: dict[str, list[int]] = {}
        for w in d.windows:
            code_id = resolver.build_window(self, w)
            # `opens at any moment`: after every event, the engine's and the game's (docs/language.md)
            for ev in (list(BUILTIN_EVENTS) + list(d.events) if w.any_moment else w.after):
                if code_id not in self.windows_after.get(ev, ()):
                    self.windows_after.setdefault(ev, []).append(code_id)
        self.triggers: dict[str, list[TriggerEntry]] = {}
        self._index_triggers()
        self.order_keys = self._order_keys()
        self.order_by_seat_only = all(fn == "seat" for fn, _ in self.order_keys)
        self.scenarios = {s.name: self._code(f"scenario {s.name}", s.body, Scope()) for s in d.scenarios}
        # zones that discard down past their cap (interpreter/caps.py): built last, so no other id moves
        self.discards = caps.build(self)
        # how many codes (ids 0 to this) are the prefix shared with other deals (0: none)
        self.prefix_n = len(snap["codes"]) if snap is not None else 0
        if snap is not None:
            self._share_blocks(snap)

    # ------------------------------------------------------------------ the prefix, shared by deals
    def _rebuild(self, game: Game) -> None:
        """This program built again from the start (`__init__`), now that its prefix key is known
        to read the keywords' holders (the abilities of the deal's own cards, as before)."""
        self.__dict__.clear()
        self.__init__(game)

    def _prefix_key(self) -> tuple:
        """What building the prefix (setup, round, end checks and the procedures they call) reads
        of the cards dealt, besides the keywords' holders (`keyword_holders_key`): which names
        `modify` abilities change (read through the machine's `modified*`), and the fields every
        card's record holds (`ExprGen.read_field`). The rest it reads is the declarations', the
        same for every deal of these rules: their types, the player count (zone keys), every
        procedure call in them (`ExprGen.local_facts`: the cards' abilities are the
        declarations' too). tests/test_dealt_build_prefix.py holds a shared prefix equal to the
        one built for the deal itself."""
        cards = self.game.cards
        held = frozenset(set.intersection(*(set(c.values) for c in cards))) if cards else frozenset()
        return (frozenset(self.modified_fields), frozenset(self.modified_player_attrs),
                frozenset(self.modified_game_attrs), held)

    def keyword_holders_key(self, read: bool):
        """The keywords' holders when the prefix's code read them (keyword_cards: built in as
        constants), else None: a prefix that never read them fits every deal."""
        return tuple(sorted(self.keyword_holders.items())) if read else None

    _PREFIX_ATTRS = ("codes", "_proc_codes")
    _COMPILERS = ("exprs", "gen", "stmts")

    def _snapshot(self, before: set) -> dict:
        """The prefix just built, copied (the program goes on building and playing; the copy
        does not change): its codes, the compilers' and the namespace's state, and the
        program's attributes the prefix set."""
        codes = [_code_copy(c) for c in self.codes]
        pool = self.pool
        named = pool._by_id
        comp = {name: {k: _copy1(v, named) for k, v in getattr(self, name).__dict__.items()
                       if k not in _BACK_REFS} for name in self._COMPILERS}
        attrs = {k: _copy1(v, named) for k, v in self.__dict__.items()
                 if k not in before and k not in self._PREFIX_ATTRS}
        # the zone keys (the declarations' and the player count's): the prefix's names are bound
        # to these lists, which the code built after it finds there by identity (`Pool.ref`)
        return {"codes": codes, "proc_codes": dict(self._proc_codes), "compilers": comp, "zone_keys": self.zone_keys,
                "built": {},
                "pool": (pool.ns.copy(), pool._by_id.copy(), pool._n, list(pool.sources)), "attrs": attrs}

    def _restore(self, snap: dict) -> None:
        """This program's prefix from `snap` (`_snapshot` of another deal's): copies, so that
        building the rest (an ability's call opens a procedure: compile_stmt `_open_code`) and
        the blocks built as it plays change this program's alone."""
        self.codes = [_code_copy(c) for c in snap["codes"]]
        self.zone_keys = snap["zone_keys"]
        self._proc_codes = dict(snap["proc_codes"])
        ns, by_id, n, sources = snap["pool"]
        for name, state in snap["compilers"].items():
            getattr(self, name).__dict__.update({k: _copy1(v, by_id) for k, v in state.items()})
        pool = self.pool
        pool.ns, pool._by_id, pool._n, pool.sources = ns.copy(), by_id.copy(), n, list(sources)
        self.__dict__.update({k: _copy1(v, by_id) for k, v in snap["attrs"].items()})

    def _blocks_key(self, n: int) -> tuple:
        """What the fused blocks of the prefix's `n` codes read of this program when they are built
        (interpreter/blocks.py): their instructions' snippets (the prefix's own objects: which of a
        call's two an ability's call left: compile_stmt `_open_code`), what stops a block (the end
        checks' reads), the events windows open after, what is replaced, the zones that discard
        down, and which procedures run without a frame (`blocks.flat`, which alone reads which
        events triggers listen to: the triggers differ from deal to deal, what `flat` makes of
        them seldom). A block built must read nothing else of the program (tests/
        test_dealt_build_prefix.py builds the deal's own and compares)."""
        from .blocks import flat
        return (tuple(tuple(map(id, c.srcs)) for c in self.codes[:n]),
                self.check_mask if self.end_checks else None,
                frozenset(self.windows_after), frozenset(self.replacements), frozenset(self.discards),
                tuple(flat(self, c.id) for c in self.codes[:n]))

    def _share_blocks(self, snap: dict) -> None:
        """The prefix's fused blocks, built as any deal with the same `_blocks_key` plays, are
        this program's too: its prefix codes share their lists of blocks and sizes (and the
        chains' lengths) with those deals'. A block names only the prefix's objects (its
        instructions, the prefix's blocks and procedures) and reads the deal through `m`; each
        program keeps its own pasted lines (`_bodies`: they name its namespace's objects)."""
        n = len(snap["codes"])
        built = snap["built"]
        key = self._blocks_key(n)
        lists = built.get(key)
        if lists is None:
            if len(built) >= _PREFIXES_KEPT:
                built.pop(next(iter(built)))
            built[key] = lists = [(c.fast, c.sizes, c.__dict__.setdefault("_chain", {})) for c in self.codes[:n]]
        for code, (fast, sizes, chain) in zip(self.codes, lists):
            code.fast, code.sizes = fast, sizes
            code.__dict__["_chain"] = chain

    # ------------------------------------------------------------------ code building
    def new_code(self, name: str) -> Code:
        code = Code(len(self.codes), name)
        self.codes.append(code)
        return code

    def _code(self, name: str, body, sc: Scope) -> int:
        code = self.new_code(name)
        self.stmts.block(body, Ctx(code, sc))
        return code.id

    def _compile_main(self) -> int:
        """setup, then the round repeated until the game ends. Setup and the round are codes of
        their own so that scenarios can play them too."""
        d = self.decls
        self.setup_code = self._code("setup", d.setup.body, Scope()) if d.setup is not None else None
        self.round_code = None
        if d.rounds:
            rnd = d.rounds[0]
            code = self.new_code(f"round {rnd.name}")
            name, span = rnd.name, rnd.span
            def begin(m, fr, name=name, span=span, code=code):
                began = m.begin_round(name, span)
                if began == REPLACED:       # `instead of round_started`: the replacement runs in its place
                    fr.pc = len(code.ops)
                    return True
                return began
            end = [0]
            ks = self.pool.ref(span)
            code.emit(begin, span, ("begin_round", f'"{name}"; replaced → the end of the round'),
                      # nothing logged and nobody listening or replacing (`listened` holds the
                      # replaced events too): the round begins here, without begin_round's call
                      Snippet((f"if m.log.on or {ROUND_STARTED!r} in m.listened:",
                               f"    _w = m.begin_round({name!r}, {ks})", f"    if _w == {REPLACED}:",
                               ("gotow", end, "        "),
                               "else:", "    m.st.round += 1", f"    m.reset_memory('round', {ks})", "    _w = None",
                               ("watch", "_w", "")), effect=(ATTRS, (ROUND_STARTED,))))
            self.stmts.block(rnd.body, Ctx(code, Scope()))
            end[0] = code.here()
            self.round_code = code.id
        main = self.new_code("game")
        setup, rnd = self.setup_code, self.round_code
        gspan = d.game.span
        if setup is not None:
            main.emit(lambda m, fr: m.push(setup, {}), gspan, ("push", "setup"),
                      Snippet((("enter", setup, ""),)))
        if rnd is not None:
            head = main.here()
            main.emit(lambda m, fr: m.push(rnd, {}), gspan, ("push", f"round {d.rounds[0].name}"),
                      Snippet((("enter", rnd, ""),)))

            def again(m, fr):
                fr.pc = head
            main.emit(again, gspan, ("jump", [head]), _goto([head]))
        return main.id

    def procedure_code(self, name: str, arg_types: tuple) -> int:
        """The code of procedure `name`, compiled once per tuple of argument types."""
        key = (name, arg_types)
        if key not in self._proc_codes:
            proc = self.decls.procedures[name]
            code = self.new_code(f"procedure {name}")
            self._proc_codes[key] = code.id
            sc = Scope(dict(zip(proc.params, arg_types)), instance=("procedure", name, arg_types))
            self.stmts.block(proc.body, Ctx(code, sc))
        return self._proc_codes[key]

    # ------------------------------------------------------------------ abilities
    def ability_groups(self, kind, cards=None):
        """[(ability, keyword args, card type, [card ids])] for every ability of class `kind` that
        some card has, in the order the cards first show them (never dict-of-set order); of
        `cards` when given, else the game's."""
        groups: dict = {}
        for card in (self.game.cards if cards is None else cards):
            for ab, args in card.bound:
                if isinstance(ab, kind):
                    groups.setdefault((id(ab), args, card.type_name), (ab, args, card.type_name, []))[3].append(card.id)
        return list(groups.values())

    def ability_scope(self, ab, type_name: str) -> Scope:
        """Names inside an ability: a card type's own fields by bare name; a keyword's parameters."""
        kw = self.keyword_of.get(id(ab))
        if kw is None:
            return Scope(this_type=type_name, in_ability=True)
        return Scope({p.name: ref_type(self.decls, p.type) for p in kw.params},
                     in_ability=True)

    def blank_of(self, type_name: str):
        ct = self.decls.card_types[type_name]
        if ct.blank_unless is None:
            return None
        cache = self.__dict__.setdefault("_blanks", {})
        if type_name not in cache:
            cache[type_name] = self.gen.function(ct.blank_unless, Scope(this_type=ct.name, in_ability=True),
                                                 "text is blank unless")
        return cache[type_name]

    # ------------------------------------------------------------------ the rules' abilities (dealt games)
    def _rules_abilities(self) -> None:
        """The codes of every `instead of` and triggered ability a card of the rules has (the
        declared game's cards, the pool's included), in the order they would be built for a game
        of all of them, kept by (kind, ability, keyword arguments, card type): what a deal's
        index names (`_index_replacements`, `_index_triggers`). Their code, condition and label
        read nothing of the deal the prefix does not (the label names a card only for its own
        ability, which its copies share), so they are part of what deals share."""
        built: dict = {}
        for ab, args, type_name, cards in self.ability_groups(A.Replacement, self.rules_cards):
            built[("instead", id(ab), args, type_name)] = self._replacement_code(ab, type_name)
        for ab, args, type_name, cards in self.ability_groups(A.Triggered, self.rules_cards):
            built[("when", id(ab), args, type_name)] = self._triggered_code(ab, type_name, self.rules_cards[cards[0]])
        self._ability_codes = built

    def _triggered_code(self, ab, type_name: str, first) -> tuple:
        """(code id, condition, label) of a triggered ability of `type_name` cards (`first`: the
        first card that carries it)."""
        d = self.decls
        sc = self.ability_scope(ab, type_name)
        sc.event_params = self._event_params(ab.event)
        cond = self.gen.function(ab.cond, sc, "a condition") if ab.cond is not None else None
        kw = self.keyword_of.get(id(ab))
        owner = (f"keyword {kw.name}" if kw is not None else type_name
                 if ab in d.card_types[type_name].abilities else first.name)
        label = f"{owner}: when {ab.event}"
        code_id = self._trigger_code(label, ab, cond, sc.child())
        self.blank_of(type_name)
        return code_id, cond, label

    # ------------------------------------------------------------------ triggers
    def _index_triggers(self) -> None:
        d = self.decls
        held = [st.holds for st in d.stacks if st.holds is not None]
        held_all = any(not h for h in held)
        held_types = {name for h in held for name in h}
        built = self.__dict__.get("_ability_codes")
        for ab, args, type_name, cards in self.ability_groups(A.Triggered):
            if built is not None:
                code_id, cond, label = built[("when", id(ab), args, type_name)]
            else:
                code_id, cond, label = self._triggered_code(ab, type_name, self.game.cards[cards[0]])
            entry = TriggerEntry(ab, code_id, cond, self.blank_of(type_name), cards, label, extra=dict(args),
                                 stacked=not ab.at_once and (held_all or type_name in held_types))
            self.triggers.setdefault(ab.event, []).append(entry)
        for entries in self.triggers.values():
            for entry in entries:
                entry.card_set = frozenset(entry.cards)
                entry.key_param = self._key_param(entry.ability.cond, self._event_params(entry.ability.event))
        self.stacked_triggers = any(e.stacked for entries in self.triggers.values() for e in entries)

    @staticmethod
    def _key_param(cond, params: dict) -> str | None:
        """The event parameter a trigger's condition pins to `this` (`where card = this and ...`), if any."""
        parts = cond.items if isinstance(cond, A.AndChain) else (cond,) if cond is not None else ()
        for part in parts:
            if isinstance(part, A.Compare) and part.op == "=":
                for a, b in ((part.left, part.right), (part.right, part.left)):
                    if isinstance(a, A.Name) and a.name in params and params[a.name] == CARD and isinstance(b, A.This):
                        return a.name
        return None

    def _index_replacements(self) -> None:
        """`instead of <procedure or event> where <cond>:` abilities, indexed by what they replace."""
        built = self.__dict__.get("_ability_codes")
        for ab, args, type_name, cards in self.ability_groups(A.Replacement):
            if built is not None:
                code_id, cond, params = built[("instead", id(ab), args, type_name)]
            else:
                code_id, cond, params = self._replacement_code(ab, type_name)
            entry = TriggerEntry(ab, code_id, cond, self.blank_of(type_name), cards,
                                 f"instead of {ab.event}", extra=dict(args))
            entry.card_set = frozenset(cards)
            # `where card = this`: only the card named can be replaced by its own ability (the
            # machine asks only about moves and flips of those cards: triggers.replaceable)
            entry.key_param = self._key_param(ab.cond, params)
            self.replacements.setdefault(ab.event, []).append(entry)

    def _replacement_code(self, ab, type_name: str) -> tuple:
        """(code id, condition, the parameters it sees) of an `instead of` ability of `type_name` cards."""
        sc = self.ability_scope(ab, type_name)
        proc = self.decls.procedures.get(ab.event)
        if proc is not None and ab.event not in self.decls.events:
            # the procedure's parameters, typed as every call of it in the game types them (settled
            # by the checker), not by whichever call happened to be compiled first
            types = self.decls.param_types.get(ab.event, (ANY,) * len(proc.params))
            sc.event_params = dict(zip(proc.params, types))
        else:
            sc.event_params = self._event_params(ab.event)
        cond = self.gen.function(ab.cond, sc, "a condition") if ab.cond is not None else None
        code = self.new_code(f"instead of {ab.event} (line {ab.span.line})")
        self.stmts.block(ab.body, Ctx(code, sc.child()))
        self.blank_of(type_name)
        return code.id, cond, sc.event_params

    def modifier_kind(self, ab: A.StaticMod, type_name: str) -> str:
        """What a `modify` ability changes: "game" (no target), "player" (its target's recorded
        type is a player or players) or "card"."""
        if ab.target is None:
            return "game"
        t = self.decls.typing.type_of(ab.target, self.ability_scope(ab, type_name).instance)
        return "player" if t == PLAYER or t == list_of(PLAYER) else "card"

    def _index_modifiers(self) -> None:
        """`modifiers`: a card field's by its name, a player attribute's by ("player", name), a
        game attribute's by ("game", name) — the keys Machine.modified, modified_player and
        modified_game look up (and `tabled_mods` holds)."""
        untabled = set()
        names: dict = {}
        same: dict = {}     # equal card lists shared, so the machine filters each once (_active_modifiers)
        for ab, args, type_name, cards in self.ability_groups(A.StaticMod):
            sc = self.ability_scope(ab, type_name)
            conds = () if ab.cond is None else ab.cond.items if isinstance(ab.cond, A.AndChain) else (ab.cond,)
            if self.blank_of(type_name) is None:
                kept = self._fixed_filter(ab, sc, dict(args), cards)
                if kept is not cards:
                    # the filter ran: each card kept has every fixed leading conjunct true, which
                    # evaluating again could neither change nor fail nor charge: the condition
                    # the machine evaluates starts after them (none left: no condition)
                    n = 0
                    while n < len(conds) and self._fixed(conds[n], sc, dict(args)):
                        n += 1
                    conds = conds[n:]
                cards = kept
            cards = same.setdefault(tuple(cards), cards)
            kind = self.modifier_kind(ab, type_name)
            key = ab.field if kind == "card" else (kind, ab.field)
            # the machine calls these with `$this` a card in a player's zone and `$you` its
            # player's seat (Machine._mod_table, _active_modifiers): never none
            known = ("env['$this']", "env['$you']")
            zones = self._modifier_zones(conds[0]) if conds and self.blank_of(type_name) is None else None
            entry = ModifierEntry(ab, self.gen.function(ab.target, sc, "modify", known) if ab.target is not None else None,
                                  self.gen.function(ab.amount, sc, "modify", known),
                                  self.gen.conjunction(conds, sc, "modify", known) if conds else None,
                                  self.blank_of(type_name), cards, extra=dict(args), zones=zones,
                                  rest=self.gen.conjunction(conds[1:], sc, "modify", known)
                                  if zones is not None and len(conds) > 1 else None)
            self.modifiers.setdefault(key, []).append(entry)
            read = (ab.target, ab.amount, ab.cond, self.decls.card_types[type_name].blank_unless)
            names.setdefault(key, set()).update(names_in(read, self.decls))
            if not versioned(read, self.decls) or names[key] & self.modified_names:
                untabled.add(key)
        # fields whose modifiers the machine may evaluate once per state version (`Machine.ver`,
        # `Machine._from_table`): every modifier of them, and the text-is-blank rule of its card
        # type, reads only state the version follows (no flow, no random pick, no stack) and no
        # modified field (whose value would depend on which card is being computed)
        self.tabled_mods = frozenset(self.modifiers) - untabled
        # setting an attribute of one of these names moves the version (Machine.assign); others do not
        self.tabled_reads = frozenset(n for f in self.tabled_mods for n in names[f])

    def _modifier_zones(self, first) -> frozenset | None:
        """The zone keys z for which a modifier's first conjunct `first` can hold for a card lying
        in z with `$you` the seat owning z (as Machine._mod_table calls it), when `first` is
        `zone of this is in E` or `this is in E`, E a zone of `you` (`your Z`, `you's Z`), a list
        of such zones, or a call of a define whose body is one with `you` as its arguments
        (`_you_zones`): the generated test is then a plain membership (no work charged, no error
        possible: `$you` is a seat), false for any other zone, and `and` evaluates nothing after
        it. None (no filter) for any other form."""
        if not isinstance(first, A.IsIn) or first.negated:
            return None
        item = first.item
        if isinstance(item, A.FieldOf) and item.name == "zone" and isinstance(item.obj, A.This):
            if any(f.name == "zone" for ct in self.decls.card_types.values() for f in ct.fields):
                return None
            if isinstance(first.coll, (A.Your, A.Possessive)):
                return None         # a zone of cards, not a list of zones
        elif not isinstance(item, A.This) or not isinstance(first.coll, (A.Your, A.Possessive)):
            return None
        keep = set()
        for seat in range(max(self.game.max_players, 1)):
            names = self._you_zones(first.coll, {}, 0)
            if names is None:
                return None
            keep.update(self.zone_keys[n][seat] for n in names)
        return frozenset(keep)

    def _you_zones(self, e, params: dict, depth: int) -> list | None:
        """The names of the per-player zones E means, each of `you` (for `_modifier_zones`): `your
        Z`, `P's Z` with P `you` or a define's parameter given `you`, a list of those, a define
        called with `you` only; None for anything else."""
        zones = self.decls.zones

        def per_player(name):
            zd = zones.get(name)
            return zd is not None and zd.per_player and getattr(zd, "per_entity", None) is None
        if isinstance(e, A.Your):
            return [e.name] if per_player(e.name) else None
        if isinstance(e, A.Possessive):
            o = e.owner
            if not (isinstance(o, A.You) or (isinstance(o, A.Name) and params.get(o.name) is True)):
                return None
            return [e.name] if per_player(e.name) else None
        if isinstance(e, A.ListExpr):
            out = []
            for i in e.items:
                got = self._you_zones(i, params, depth)
                if got is None:
                    return None
                out += got
            return out
        if isinstance(e, A.Call) and depth < 4 and e.name in self.decls.defines:
            from cardsmith.dsl.registry import BUILTIN_FUNCTIONS
            d = self.decls.defines[e.name]
            if e.name in BUILTIN_FUNCTIONS or len(d.params) != len(e.args):
                return None
            inner = {}
            for name, a in zip(d.params, e.args):
                if not (isinstance(a, A.You) or (isinstance(a, A.Name) and params.get(a.name) is True)):
                    return None
                inner[name] = True
            return self._you_zones(d.expr, inner, depth + 1)
        return None

    def _fixed_filter(self, ab: A.StaticMod, sc: Scope, extra: dict, cards: list) -> list:
        """The cards of `cards` whose `while` can hold: of the condition's leading conjuncts, those
        that read only constants, the ability's keyword arguments and fields of `this` that no
        statement of the game writes and no `modify` changes (`_fixed`) have the same value all
        game, so a card for which they are false never counts and is left out of the entry (the
        machine skips it as the condition would, without evaluating anything: the first conjunct
        false, `and` evaluates nothing after it). Evaluated here against the printed fields
        alone (a stand-in machine with nothing but the cards' fields: a read of anything else
        fails, and then no card is left out). Only for a card type with no `text is blank
        unless` (evaluated before the condition)."""
        cond = ab.cond
        if cond is None:
            return cards
        items = cond.items if isinstance(cond, A.AndChain) else (cond,)
        prefix = []
        for item in items:
            if not self._fixed(item, sc, extra):
                break
            prefix.append(item)
        if not prefix:
            return cards
        kept = self.printed_pass(prefix, sc, extra, cards)
        return cards if kept is None else kept

    def printed_pass(self, items: list, sc: Scope, extra: dict, cards: list) -> list | None:
        """The cards of `cards` for which every expression of `items` (each `_fixed`) is true,
        evaluated once, now, against the printed fields alone (a stand-in machine with nothing but
        the cards' fields); None when one of them reads what the printed fields cannot answer (the
        stand-in has no zones, players or attributes, its env no other names) or raises a rule's
        own error: then no card may be left out, and the machine evaluates the whole condition as
        it plays. Used by `_fixed_filter` (modifiers, triggers) and `resolver._fixed_cards` (actions)."""
        fns = [self.exprs.compile(item, sc) for item in items]
        stand_in = _Printed([{"name": c.name, "type": c.type_name, **c.values} for c in self.game.cards])
        kept = []
        try:
            for c in cards:
                env = {"$this": c, "$you": None, **extra}
                if all(fn(stand_in, env) for fn in fns):
                    kept.append(c)
        except (AttributeError, KeyError, TypeError, RuleError):
            return None
        return kept

    def _fixed(self, e, sc: Scope, extra: dict) -> bool:
        """Whether `e` has the same value for a card all game (see `_fixed_filter`)."""
        written = self.__dict__.get("_written")
        if written is None:
            written = self._written = written_names(self.decls, self.game.cards)
        fields = {f.name for ct in self.decls.card_types.values() for f in ct.fields}
        for node in _nodes(e):
            if type(node) not in FIXED_NODES:
                return False
            if isinstance(node, A.FieldAccess):
                if not isinstance(node.obj, A.This):
                    return False
                name = node.name
            elif isinstance(node, A.Name):
                kind = self.exprs.kind_of(node, sc)
                if kind == "member" or (kind == "param" and node.name in extra):
                    continue
                if kind != "this_field":
                    return False
                name = node.name
            else:
                continue
            if (name not in fields or name in written or name in self.modified_names
                    or name in self.part_labels or self.exprs._card_reader(name) is not None):
                return False
        return True

    def _trigger_code(self, label: str, ab: A.Triggered, cond, sc: Scope) -> int:
        """A trigger's body, led by a re-check of its condition: a trigger whose condition no
        longer holds when it comes to resolve does nothing (e.g. a round already called off)."""
        code = self.new_code(label)
        end = [0]           # for the listing only: the op jumps to len(code.ops), the end
        if cond is not None:
            def recheck(m, fr):
                if not cond(m, fr.env):
                    m.log.emit(m, "fizzle", ab.span, {"card": m.card_label(fr.env["$this"])},
                               [m.log.card(m, fr.env["$this"]), ": the condition no longer holds"]) if m.log.on else None
                    fr.pc = len(code.ops)
            src = Snippet((f"if not ({self.gen.test(ab.cond, sc, Gen())}):",
                           f"    if m.log.on: {self.pool.ref(fizzle)}(m, env, {self.pool.ref(ab.span)})",
                           ("goto", end, "    ")), pc=False)
            code.emit(recheck, ab.span, ("jump_if_not", ab.cond, " (the condition, again) → ", end), src)
        self.stmts.block(ab.body, Ctx(code, sc))
        end[0] = code.here()
        return code.id

    def event_types(self, event: str) -> dict:
        cache = self.__dict__.setdefault("_event_type_cache", {})
        if event not in cache:
            cache[event] = self._event_params(event)
        return cache[event]

    def _event_params(self, event: str) -> dict:
        d = self.decls
        if event in d.events:
            return {p.name: ref_type(self.decls, p.type) for p in d.events[event].params}
        return dict(BUILTIN_EVENTS.get(event, ()))

    def _order_keys(self):
        """[(fn(m, env) -> number, highest_first) | ("seat", False)] from the game's declaration."""
        decl = self.decls.trigger_order
        keys = []
        if decl is not None:
            for k in decl.keys:
                if k.expr is None:
                    keys.append(("seat", False))
                else:
                    keys.append((self.gen.function(k.expr, Scope(it_type=CARD, in_ability=True), "trigger order"),
                                 k.highest_first))
        return keys


_PREFIXES_KEPT = 8          # prefixes kept per declared game (one per different `_prefix_key`)
_BACK_REFS = frozenset(("p", "x", "g", "d", "pool", "typing"))     # a compiler's links to its program


def _copy1(v, named: dict):
    """`v` with its containers copied two levels down (the compilers' state: dicts of tuples,
    tuples of dicts and sets), every other object shared, and so is a container the generated
    code names (in `named`, the namespace's `Pool._by_id`: a constant, found again by identity)."""
    if v.__class__ in (dict, list, set):
        return v if id(v) in named and named[id(v)][1] is v else v.copy()
    if v.__class__ is tuple:
        return tuple(x.copy() if x.__class__ in (dict, list, set) and not (id(x) in named and named[id(x)][1] is x)
                     else x for x in v)
    return v


def _code_copy(c: Code) -> Code:
    """A code's instructions copied, without the blocks built from them (built again as the
    deal plays: what they read of the program, e.g. which events something listens to, is the
    deal's)."""
    out = copy.copy(c)
    out.ops, out.spans, out.descs, out.srcs = list(c.ops), list(c.spans), list(c.descs), list(c.srcs)
    out.fast, out.sizes = [None] * len(c.ops), [0] * len(c.ops)
    return out


class _Printed:
    """A stand-in machine for `Program._fixed_filter`: the cards' printed fields, nothing else."""
    __slots__ = ("cards",)

    def __init__(self, cards):
        self.cards = cards


def fizzle(m, env, span) -> None:
    """Log that a trigger does nothing: its condition no longer holds when it comes to resolve."""
    m.log.emit(m, "fizzle", span, {"card": m.card_label(env["$this"])},
               [m.log.card(m, env["$this"]), ": the condition no longer holds"])


def program_for(game: Game) -> Program:
    prog = game._cache.get("program")
    if prog is None:
        prog = game._cache["program"] = Program(game)
    return prog


__all__ = ["Program", "program_for", "TriggerEntry", "ANY", "PLAYER"]


def _end_check_name(ec) -> str:
    """The code name of an `as soon as`: its name where it has one (`named "..."`), and its line."""
    return f'as soon as "{ec.name}" (line {ec.span.line})' if ec.name else f"as soon as (line {ec.span.line})"
