"""Publishing: the rulebook (Markdown, HTML, PDF) and the diagrams, straight from a game's file.

    english.py    the rules in English, one describer per AST node
    rulebook.py   the book's model from a `Game`, rendered with the Jinja templates in templates/
    diagrams.py   the phase diagram and the zone diagram (Graphviz DOT, SVG when `dot` is installed)
    browser.py    a headless Chromium: HTML to PDF, and page checks for the tests
"""
