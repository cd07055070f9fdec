"""cardsmith.dsl — the front end: source text → parse tree → typed AST → checks → loaded Game."""
