"""The entity statements compiled (docs/language.md, "entity"): `create a ship for p as s` and
`destroy s`, bound as StmtCompiler methods. What they do while playing is interpreter/entities.py."""
from __future__ import annotations

from cardsmith.dsl.types import entity_of

from . import entities as _entities


def s_CreateStmt(self, s, ctx):
    player, kind, name, span = self.cx(s.player, ctx), s.kind, s.name, s.span
    if name is not None:
        ctx.sc.locals[name] = entity_of(kind)

        def create_as(m, fr):
            env = fr.env
            env[name] = _entities.create(m, kind, player(m, env), span)
            return True
        ctx.code.emit(create_as, span, ("create", f"a {kind} for ", s.player, f" as {name}"))
        return

    def create(m, fr):
        _entities.create(m, kind, player(m, fr.env), span)
        return True
    ctx.code.emit(create, span, ("create", f"a {kind} for ", s.player))


def s_DestroyStmt(self, s, ctx):
    target, span = self.cx(s.target, ctx), s.span
    ctx.code.emit(lambda m, fr: _entities.destroy(m, target(m, fr.env), span), span, ("destroy", s.target))


def setter(owner, name: str, span, decls, kind: str | None):
    """`_setter`'s triple for `s's distance`: (getter, (kind, owner, name), its declaration)."""
    fd = None
    for e in ([decls.entities[kind]] if kind in decls.entities else decls.entities.values()):
        fd = fd or next((f for f in e.fields if f.name == name), None)
    return _entities.reader(owner, name, span), ("entity", owner, name), fd
