"""The entity statements compiled (docs/language.md, "entity"): `create a ship for p as s` and
`destroy s`, bound as StmtCompiler methods. What they do while playing is interpreter/entities.py."""
from __future__ import annotations

from cardsmith.dsl import ast as A
from cardsmith.dsl.types import entity_of

from . import entities as _entities


def s_CreateStmt(self, s, ctx):
    player, kind, name, span = self.cx(s.player, ctx), s.kind, s.name, s.span
    who = s.player.name if isinstance(s.player, A.Name) else None       # the designer's name, for hints
    if name is not None:
        ctx.sc.locals[name] = entity_of(kind)

        def create_as(m, fr):
            env = fr.env
            env[name] = _entities.create(m, kind, player(m, env), span, who)
            return True
        ctx.code.emit(create_as, span, ("create", f"a {kind} for ", s.player, f" as {name}"))
        return

    def create(m, fr):
        _entities.create(m, kind, player(m, fr.env), span, who)
        return True
    ctx.code.emit(create, span, ("create", f"a {kind} for ", s.player))


def s_DestroyStmt(self, s, ctx):
    target, span = self.cx(s.target, ctx), s.span
    who = s.target.name if isinstance(s.target, A.Name) else None     # the designer's name, for hints
    ctx.code.emit(lambda m, fr: _entities.destroy(m, target(m, fr.env), span, who), span, ("destroy", s.target))


def setter(owner, name: str, span, decls, kind: str | None, owner_expr=None):
    """`_setter`'s triple for `s's distance`: (getter, (kind, owner, name), its declaration).
    `owner_expr`: the owner as written; a name (`boat`) is the one the hints use."""
    fd = None
    for e in ([decls.entities[kind]] if kind in decls.entities else decls.entities.values()):
        fd = fd or next((f for f in e.fields if f.name == name), None)
    if isinstance(owner_expr, A.Name):      # a destroyed one is reported by the name the rule gives it
        who, read_owner = owner_expr.name, owner

        def owner(m, env):
            ref = read_owner(m, env)
            _entities.record(m, ref, span, who)
            return ref
    return _entities.reader(owner, name, span), ("entity", owner, name), fd
