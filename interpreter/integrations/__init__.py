"""cardsmith games for the AI research tools: OpenSpiel (`openspiel`) and PettingZoo (`pettingzoo`).

Each module needs its optional extra (`pip install 'cardsmith[openspiel]'`,
`pip install 'cardsmith[pettingzoo]'`) and is imported by name; this package imports neither,
so cardsmith runs without them. See docs/agents.md.
"""
