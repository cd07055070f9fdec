"""The ``cardsmith`` command: a thin shell over the front end and the interpreter.

    cardsmith check FILE...                    errors with file:line:col, source line, caret, hint
    cardsmith play FILE --players N --seed S   one game, explained event by event
    cardsmith simulate FILE -n N --jobs J      many games: win rates with 95% CIs, game length
    cardsmith compare BASE VARIANT -n N        both on the same seeds: every metric, its difference, p-value
    cardsmith test FILE...                     the scenarios: rules tests written in the language
    cardsmith demo                             an excerpt of a seeded game of Space War, then 200 simulated
    cardsmith rulebook FILE -o DIR             the printable rulebook (html, pdf or md)
    cardsmith cards FILE -o cards.pdf          print-and-play card sheets, nine cards to an A4 page
    cardsmith diagram FILE -o OUT.svg          the phase diagram, or the zones' card flow
    cardsmith explain FILE RULE | --list       a rule's compiled instructions beside its source lines
    cardsmith fmt FILE... [--check]            the canonical layout of .cards files (- : stdin to stdout)
    cardsmith lsp                              the language server for editors, on stdio
    cardsmith deck check GAME DECK...          every way a deck file breaks the game's deck rules
    cardsmith deck build GAME --seed S         a random legal deck from the game's pool, as a deck file

Exit codes: 0 done; 1 the input has errors (diagnostics are printed, never a traceback);
2 a game ran past its step bound, or the command line is malformed; 3 an internal error
(``--debug`` shows its traceback); 130 interrupted (143 by SIGTERM). ``simulate``: 3 when a
game crashed, 1 when no game finished normally, 130/143 after printing what was played.
"""
from __future__ import annotations

import argparse
import io
import json
import os
import random
import sys
from pathlib import Path
from typing import TextIO

from cardsmith.dsl import cache as _cache

_cache.fast_dataclasses()       # first: the dataclasses' compiled methods from the cache folder

from cardsmith.dsl.diagnostics import CardsmithError  # noqa: E402
from .memory import memory_bound  # noqa: E402

EXIT_OK, EXIT_ERRORS, EXIT_ABORTED, EXIT_INTERNAL, EXIT_INTERRUPTED = 0, 1, 2, 3, 130
DEMO_FILE = Path("games") / "space_war_in_space.cards"


class UsageError(Exception):
    """A request the command cannot carry out as asked (bad seat, missing demo file, ...)."""


def main(argv: list[str] | None = None) -> int:
    parser = build_parser()
    try:
        args = parser.parse_args(argv)
    except SystemExit as stop:      # --help, --version, or a malformed command line
        return stop.code if isinstance(stop.code, int) else EXIT_ERRORS
    debug = args.debug or bool(os.environ.get("CARDSMITH_DEBUG"))
    try:
        try:
            return args.run(args)
        except ValueError as err:   # play's PlayerCountError; play is imported only by the commands that play
            play = sys.modules.get("cardsmith.interpreter.play")
            if play is not None and isinstance(err, play.PlayerCountError):
                raise UsageError(str(err)) from err
            raise
    except CardsmithError as err:
        _report(err)
        return EXIT_ABORTED if _is_aborted(err) else EXIT_ERRORS
    except UsageError as err:
        print(f"cardsmith: {_safe(err)}", file=sys.stderr)
        return EXIT_ERRORS
    except BrokenPipeError:         # `cardsmith play ... | head`
        try:
            os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
        except (OSError, ValueError, io.UnsupportedOperation):
            pass
        return EXIT_ERRORS
    except OSError as err:
        if debug:
            raise
        name = f"{err.filename}: " if err.filename else ""
        print(f"cardsmith: {name}{err.strerror or err}", file=sys.stderr)
        return EXIT_ERRORS
    except KeyboardInterrupt:
        print("\ncardsmith: interrupted", file=sys.stderr)
        return EXIT_INTERRUPTED
    except Exception as err:  # noqa: BLE001 - the CLI never shows a traceback unless asked
        if debug:
            raise
        print(f"cardsmith: internal error: {type(err).__name__}: {_safe(err)}\n"
              "(run with --debug to see the traceback)", file=sys.stderr)
        return EXIT_INTERNAL


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="cardsmith", description="A declarative rules language for card games.")
    parser.add_argument("--version", action=_VersionAction)
    parser.add_argument("--debug", action="store_true",
                        help="show Python tracebacks for internal errors")
    commands = parser.add_subparsers(dest="command", metavar="COMMAND", required=True)

    check = commands.add_parser("check", help="check .cards files for errors")
    check.add_argument("files", nargs="+", metavar="FILE")
    _root_option(check)
    check.set_defaults(run=cmd_check)

    play = commands.add_parser("play", help="play one game with bots or a person")
    play.add_argument("file", metavar="FILE")
    play.add_argument("--players", type=_positive, help="number of players (default: the game's minimum)")
    play.add_argument("--seed", type=int, help="random seed (default: a new one, printed)")
    play.add_argument("--agent", default="random", metavar="AGENT", type=_agent_names,
                      help="random, greedy, ismcts[:N or :Nms] plays every seat; human: one seat "
                           "(--human-seat) is played at this terminal, the others at random")
    play.add_argument("--agents", metavar="A,B,...", type=_agent_names,
                      help="one agent per seat, e.g. human,ismcts (docs/agents.md)")
    play.add_argument("--human-seat", type=int, default=1, metavar="K",
                      help="the seat the person plays, from 1 (default 1)")
    play.add_argument("--log", metavar="FILE.jsonl", help="write the events as JSON lines")
    _deck_option(play)
    _root_option(play)
    play.add_argument("--quiet", action="store_true", help="print only the result")
    _max_steps_option(play)
    play.set_defaults(run=cmd_play)

    sim = commands.add_parser("simulate", help="simulate many games with random bots")
    sim.add_argument("file", metavar="FILE")
    sim.add_argument("-n", "--games", type=_positive, default=1000, help="number of games (default 1000)")
    sim.add_argument("--players", type=_positive, help="number of players (default: the game's minimum)")
    sim.add_argument("--jobs", "-j", type=int, default=0,
                     help="worker processes (default: one per core; 1: no workers)")
    sim.add_argument("--seed", type=int, default=1, help="seed of the first game (default 1)")
    sim.add_argument("--agents", metavar="A,B,...", type=_agent_names,
                     help="one agent per seat (random, greedy, ismcts[:N or :Nms]), or one for every "
                          "seat (default: random)")
    sim.add_argument("--json", action="store_true", help="print the statistics as JSON")
    _deck_option(sim)
    _root_option(sim)
    sim.add_argument("--report", metavar="OUT.html", type=_html_name,
                     help="also write an HTML report with plots: win rates, game lengths, cards")
    sim.add_argument("--no-progress", action="store_true", help="no progress bar")
    sim.add_argument("--force-jobs", action="store_true",
                     help="start as many workers as --jobs says, even more than the cores allow")
    sim.add_argument("--scheduler", metavar="tcp://HOST:PORT",
                     help="play the games on the Dask cluster of this scheduler instead of local "
                          "workers (the same results as --jobs; docs/simulate.md)")
    _max_steps_option(sim)
    sim.set_defaults(run=cmd_simulate)

    compare = commands.add_parser("compare", help="simulate a game and a variant on the same seeds: every "
                                  "metric side by side, with the difference and whether it is significant")
    compare.add_argument("base", metavar="BASE")
    compare.add_argument("variant", metavar="VARIANT")
    compare.add_argument("-n", "--games", type=_positive, default=1000, help="games of each (default 1000)")
    compare.add_argument("--players", type=_positive, help="number of players (default: the base's minimum)")
    compare.add_argument("--jobs", "-j", type=int, default=0,
                         help="worker processes (default: one per core; 1: no workers)")
    compare.add_argument("--seed", type=int, default=1, help="seed of the first game of both (default 1)")
    compare.add_argument("--agents", metavar="A,B,...", type=_agent_names,
                         help="one agent per seat, or one for every seat (default: random)")
    compare.add_argument("--json", action="store_true", help="print the comparison as JSON (docs/simulate.md)")
    compare.add_argument("--report", metavar="OUT.html", type=_html_name,
                         help="also write an HTML report with plots of both, side by side")
    compare.add_argument("--no-progress", action="store_true", help="no progress bar")
    compare.add_argument("--force-jobs", action="store_true",
                         help="start as many workers as --jobs says, even more than the cores allow")
    compare.add_argument("--scheduler", metavar="tcp://HOST:PORT",
                         help="play the games on the Dask cluster of this scheduler (docs/simulate.md)")
    _root_option(compare)
    _max_steps_option(compare)
    compare.set_defaults(run=cmd_compare)

    test = commands.add_parser("test", help="run the scenarios (rules tests written in the language)")
    test.add_argument("files", nargs="+", metavar="FILE")
    test.add_argument("--seed", type=int, default=0,
                      help="random seed of every scenario (default 0); one declared 'with seed N' keeps its own")
    test.add_argument("-v", "--verbose", action="store_true", help="print each failing scenario's log")
    _root_option(test)
    _max_steps_option(test)
    test.set_defaults(run=cmd_test)

    demo = commands.add_parser("demo", help="a seeded game of Space War: in Space!, then 200 more")
    demo.add_argument("--file", help=f"the game to show (default: {DEMO_FILE})")
    demo.add_argument("--players", type=_positive, default=4)
    demo.add_argument("--seed", type=int, default=1)
    demo.add_argument("-n", "--games", type=_positive, default=200)
    demo.add_argument("--jobs", "-j", type=int, default=0)
    demo.add_argument("--full", action="store_true",
                      help="print the whole log of the game, not an excerpt")
    demo.set_defaults(run=cmd_demo)

    book = commands.add_parser("rulebook", help="write the printable rulebook (HTML, PDF or Markdown)")
    book.add_argument("file", metavar="FILE", nargs="?")
    book.add_argument("-o", "--output", metavar="DIR", help="folder to write the rulebook into")
    book.add_argument("--format", choices=("html", "pdf", "md"), default="html", help="default: html")
    book.add_argument("--templates", metavar="DIR", help="your own Jinja templates (any of book.html.j2, "
                      "book.md.j2, style.css, cards.html.j2, cards.css), used before the built-in ones")
    book.add_argument("--print-templates", metavar="DIR", help="copy the built-in templates into DIR to change "
                      "them (files already there are left as they are), then stop")
    _root_option(book)
    book.set_defaults(run=cmd_rulebook)

    cards = commands.add_parser("cards", help="print-and-play: every card, nine to an A4 page, with crop marks")
    cards.add_argument("file", metavar="FILE")
    cards.add_argument("-o", "--output", required=True, metavar="OUT.pdf",
                       help="the PDF to write (a name ending in .html writes the page instead)")
    cards.add_argument("--templates", metavar="DIR", help="your own templates (cards.html.j2, cards.css), "
                       "used before the built-in ones")
    _root_option(cards)
    cards.set_defaults(run=cmd_cards)

    diagram = commands.add_parser("diagram", help="draw the phase diagram or the zone diagram (SVG)")
    diagram.add_argument("file", metavar="FILE")
    diagram.add_argument("-o", "--output", required=True, metavar="OUT.svg",
                         help="the SVG to write (a name ending in .dot writes the Graphviz source only)")
    diagram.add_argument("--kind", choices=("phases", "zones", "board"), default="phases",
                         help="default: phases; board: a board's places and links (--board NAME, default the first)")
    diagram.add_argument("--board", metavar="NAME", help="with --kind board: which board to draw")
    _root_option(diagram)
    diagram.set_defaults(run=cmd_diagram)

    explain = commands.add_parser("explain", help="show a rule's compiled instructions beside its source lines")
    explain.add_argument("file", metavar="FILE")
    explain.add_argument("rule", nargs="?", metavar="RULE",
                         help='a procedure, round, phase or step, setup, "Card Name" or "Card Name".2')
    explain.add_argument("--list", action="store_true", help="list the rules RULE may name")
    explain.add_argument("--python", action="store_true",
                         help="show the Python the machine runs for the rule (its fused blocks)")
    _root_option(explain)
    explain.set_defaults(run=cmd_explain)

    fmt = commands.add_parser("fmt", help="lay out .cards files the one canonical way, keeping comments")
    fmt.add_argument("files", nargs="+", metavar="FILE", help="files to rewrite in place; - reads "
                     "standard input and writes the result to standard output")
    fmt.add_argument("--check", action="store_true",
                     help="change nothing; exit 1 if a file is not laid out canonically (for CI)")
    fmt.set_defaults(run=cmd_fmt)

    lsp = commands.add_parser("lsp", help="the language server for editors (VS Code, Neovim, ...), on stdio")
    lsp.set_defaults(run=cmd_lsp)

    deck = commands.add_parser("deck", help="decks for a game with deck rules: check a deck file, build one")
    deck_do = deck.add_subparsers(dest="deck_command", metavar="ACTION", required=True)
    deck_check = deck_do.add_parser("check", help="every way each deck file breaks the game's deck rules")
    deck_check.add_argument("game", metavar="GAME")
    deck_check.add_argument("decks", nargs="+", metavar="DECK")
    _root_option(deck_check)
    deck_check.set_defaults(run=cmd_deck_check)
    deck_build = deck_do.add_parser("build", help="a random legal deck from the game's pool, as a deck file")
    deck_build.add_argument("game", metavar="GAME")
    deck_build.add_argument("--seed", type=int, default=1, help="random seed (default 1)")
    deck_build.add_argument("--seat", type=_positive, default=1, help="the seat it is built for, as "
                            "play and simulate build it (default 1)")
    _root_option(deck_build)
    deck_build.set_defaults(run=cmd_deck_build)
    cache = commands.add_parser("cache", help="where cardsmith keeps what it builds once (the parser's tables, "
                                "each file's parse, compiled methods)")
    cache.add_argument("--clear", action="store_true", help="remove everything in it")
    cache.set_defaults(run=cmd_cache)
    return parser


def _root_option(command: argparse.ArgumentParser) -> None:
    """`--root DIR`, one meaning on every command that reads a game: the folder whose `.cards`
    files the game may extend or import (dsl/loader.py, E0905), so a game that `check --root`
    accepts plays, simulates and publishes the same way."""
    command.add_argument("--root", metavar="DIR", default=None,
                         help="the project's folder: the game may extend or import any .cards file below it "
                              "(by default only in its own folder or below)")


def _deck_option(command: argparse.ArgumentParser) -> None:
    command.add_argument("--deck", action="append", default=[], metavar="SEAT=FILE",
                         help="the deck file seat SEAT plays with (repeat for more seats); a seat "
                              "without one gets a random legal deck from the game's pool")


def _max_steps_option(command: argparse.ArgumentParser) -> None:
    from cardsmith.dsl.bounds import MAX_STEPS

    command.add_argument("--max-steps", type=_positive, default=None, metavar="N",
                         help=f"stop a game after N instructions (default {MAX_STEPS:,}, the bound MAX_STEPS)")


def _agent_names(text: str) -> str:
    """`--agent` / `--agents`: every name one cardsmith knows (the count per seat is checked later)."""
    from .agents import AgentSpecError, parse_agent
    try:
        for spec in text.split(","):
            parse_agent(spec)
    except AgentSpecError as err:
        raise argparse.ArgumentTypeError(str(err)) from None
    return text


def _positive(text: str) -> int:
    try:
        value = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"not a whole number: {text!r}") from None
    if value < 1:
        raise argparse.ArgumentTypeError(f"must be at least 1, not {value}")
    return value


# ---------------------------------------------------------------- check


def cmd_check(args: argparse.Namespace) -> int:
    failed = False
    color = _is_terminal(sys.stdout)
    for path in args.files:
        if _cache.checked_ok(path, args.root):      # the same files checked clean before: no parse, no import
            print(f"{path}: ok")
            continue
        from cardsmith.dsl.loader import check_file
        from cardsmith.dsl.render import render_all

        diagnostics, sources = check_file(path, root=args.root)
        if diagnostics:
            _write(sys.stdout, render_all(diagnostics, sources, color=color))
        errors = sum(d.severity == "error" for d in diagnostics)
        warnings = len(diagnostics) - errors
        if errors:
            failed = True
        else:
            note = f" ({warnings} warning{'s' * (warnings != 1)})" if warnings else ""
            print(f"{path}: ok{note}")
    return EXIT_ERRORS if failed else EXIT_OK


# ---------------------------------------------------------------- fmt and lsp


def cmd_fmt(args: argparse.Namespace) -> int:
    from cardsmith.dsl.fmt import format_file, format_text
    from cardsmith.dsl.render import render_all

    failed = False
    color = _is_terminal(sys.stdout)
    for path in args.files:
        if path == "-":
            text = sys.stdin.read()
            try:
                formatted = format_text(text, "<stdin>")
            except CardsmithError as err:
                _write(sys.stderr, render_all(err.diagnostics, err.sources))
                failed = True
                continue
            if args.check:
                failed |= formatted != text
            else:
                sys.stdout.write(formatted)
            continue
        text, formatted, diagnostics, sources = format_file(path)
        if formatted is None:
            _write(sys.stdout, render_all(diagnostics, sources, color=color))
            failed = True
        elif formatted == text:
            print(f"{_safe(path)}: already formatted")
        elif args.check:
            print(f"{_safe(path)}: would be reformatted")
            failed = True
        else:
            Path(path).write_text(formatted, encoding="utf-8", newline="\n")
            print(f"{_safe(path)}: formatted")
    return EXIT_ERRORS if failed else EXIT_OK


def cmd_lsp(args: argparse.Namespace) -> int:
    from cardsmith.dsl.lsp.server import serve

    serve()
    return EXIT_OK


# ---------------------------------------------------------------- play


def cmd_cache(args: argparse.Namespace) -> int:
    from cardsmith.dsl import cache
    if args.clear:
        folder, removed = cache.clear()
        print(f"{folder}: {removed} entr{'y' if removed == 1 else 'ies'} removed" if folder is not None
              else "no cache folder (CARDSMITH_CACHE_DIR=off, or none made yet)")
        return 0
    folder = cache.cache_dir(create=False)
    print(folder if folder is not None else "no cache folder (CARDSMITH_CACHE_DIR=off, or none made yet)")
    return 0


def cmd_play(args: argparse.Namespace) -> int:
    from cardsmith.dsl.loader import load_game

    from .agents import HumanAgent
    from .play import check_player_count

    game = load_game(args.file, root=args.root)
    players = args.players if args.players is not None else game.min_players
    check_player_count(game, players)
    decks = _given_decks(game, args.deck, players)
    if decks is None:
        return EXIT_ERRORS
    seed = args.seed if args.seed is not None else random.SystemRandom().randrange(1, 1_000_000)
    human = None
    specs = _agent_specs(args.agents, players) if args.agents else None
    if specs is None and args.agent.strip().lower() != "human":
        specs = _agent_specs(args.agent, players)
    if specs is not None:
        humans = [seat for seat, spec in enumerate(specs) if spec.strip().lower() == "human"]
        if len(humans) > 1:
            raise UsageError("--agents: one seat at most is played at this terminal (human)")
        human = humans[0] if humans else None
    elif args.agent.strip().lower() == "human":
        if not 1 <= args.human_seat <= players:
            raise UsageError(f"--human-seat must be a seat from 1 to {players}, not {args.human_seat}")
        human = args.human_seat - 1
    seeded = "" if args.seed is not None else f" (replay with --seed {seed})"
    if args.log:
        _refuse_to_overwrite_an_input(args.log, game)
    print(_safe(f"{game.title}: {players} players, seed {seed}{seeded}"))
    if game.decls.deck_rules is not None and not args.quiet:
        random_seats = [seat for seat in range(players) if seat not in decks]
        if random_seats:        # which decks were dealt, and how to see them
            print(_safe(f"random legal decks for seat{'s' * (len(random_seats) > 1)} "
                        f"{', '.join(str(s + 1) for s in random_seats)} (cardsmith deck build {args.file} "
                        f"--seed {seed} --seat K shows seat K's)"))
    if specs is not None:
        from .agents import seat_agents
        agents = dict(enumerate(seat_agents(specs, seed)))
    else:
        agents = {human: HumanAgent()} if human is not None else {}
    return _play(game, players, seed, agents, log_path=args.log, quiet=args.quiet, viewer=human,
                 max_steps=args.max_steps, decks=decks)


def _refuse_to_overwrite_an_input(log_path: str, game) -> None:
    """`--log` must not name the game file or a file it includes: that would overwrite it."""
    target = Path(log_path)
    for source in game.sources:
        try:
            same = target.resolve() == Path(source).resolve() or (
                target.exists() and Path(source).exists() and os.path.samefile(target, source))
        except (OSError, ValueError):
            same = False
        if same:
            raise UsageError(f"--log {log_path} is the game file {source}: writing the log would overwrite "
                             "it; give the log a name of its own, for example game.jsonl")


def _play(game, players: int, seed: int, agents: dict, *, log_path: str | None,
          quiet: bool, viewer: int | None, max_steps: int | None = None, decks: dict | None = None) -> int:
    """Play one game, printing its explained log; return the exit code. The `--log` file gets
    every event that was logged, whatever happens, and a game that aborts ends with the abort."""
    from .agents import AgentError, InputEnded
    from .engine import GameAborted
    from .play import check_player_count, default_agents, run_game

    check_player_count(game, players)
    seats = default_agents(players, seed)
    for seat, agent in agents.items():
        seats[seat] = agent
    log_file = open(log_path, "w", encoding="utf-8") if log_path else None
    printer = _EventPrinter(sys.stdout, quiet=quiet, viewer=viewer, log_file=log_file)
    try:
        with memory_bound():
            eng = run_game(game, players, seed, seats, log=True, observe=printer, max_steps=max_steps,
                           **({"decks": decks} if decks else {}))
        printer.flush()
    except GameAborted as err:
        printer.flush(getattr(err, "event_log", None))     # aborted before the first decision too
        _report(err)
        return EXIT_ABORTED
    except AgentError as err:
        printer.flush()
        message = f"cardsmith: {_safe(err)}"
        if isinstance(err, InputEnded):
            message += " (the game is left unfinished)"
        print(message, file=sys.stderr)
        return EXIT_ERRORS
    finally:
        if log_file is not None:
            log_file.close()
    print(describe_result(eng))
    return EXIT_OK


class _EventPrinter:
    """Observes the engine: prints each new event's explained line and writes it to the log file.

    With a `viewer` (the seat a person plays), what is printed is that player's log
    (`EventLog.seen_by`, the engine's visibility rule), never the referee's; the file keeps
    every event whole."""

    def __init__(self, out: TextIO, *, quiet: bool, viewer: int | None, log_file: TextIO | None):
        self.out = out
        self.quiet = quiet
        self.viewer = viewer
        self.log_file = log_file
        self.log = None             # the engine's EventLog
        self.seen = 0
        self.color = _is_terminal(out)

    def __call__(self, engine) -> None:
        self.log = engine.event_log
        self.flush()

    def flush(self, log=None) -> None:
        """Print and write the events not yet handled; `log`: the EventLog of a game that
        aborted before the printer saw its engine."""
        log = log if log is not None else self.log
        if log is None:
            return
        events = log.events
        if self.log_file is not None:       # one JSON object a line, sorted keys (EventLog.to_jsonl)
            self.log_file.write(log.to_jsonl(self.seen))
            self.log_file.flush()
        if not self.quiet:
            shown = events[self.seen:] if self.viewer is None else log.seen_by(self.viewer, self.seen)
            for event in shown:
                self.out.write(format_event(event, color=self.color) + "\n")
        self.seen = max(self.seen, len(events))
        self.out.flush()


def format_event(event: dict, color: bool = False) -> str:
    """``   12  Player 1 reveals Blue Flame.  (signal_fires.cards:120:9)``"""
    number = event.get("n", "")
    text = _safe(event.get("text") or event.get("event", ""))
    rule = _safe(event.get("rule") or "")
    where = f"  ({rule})" if rule else ""
    if color:
        return f"\x1b[2m{number:>5}\x1b[0m  {text}\x1b[2m{where}\x1b[0m"
    return f"{number:>5}  {text}{where}"


def describe_result(eng) -> str:
    """``Player 3 (colour red) wins after 57 rounds (1234 steps).``"""
    result = eng.result
    names = eng.player_names
    groups = eng.groupings()
    length = f"after {result['rounds']} rounds ({result['steps']} steps)"
    if result["draw"] or not result["winners"]:
        return f"The game is a draw {length}."

    def who(seat: int) -> str:
        values = groups.get(seat) or {}
        extra = ", ".join(f"{k} {v}" for k, v in values.items())
        return f"{names[seat]} ({extra})" if extra else names[seat]

    winners = [who(seat) for seat in result["winners"]]
    verb = "wins" if len(winners) == 1 else "win"
    listed = winners[0] if len(winners) == 1 else ", ".join(winners[:-1]) + " and " + winners[-1]
    return _safe(f"{listed} {verb} {length}.")


def _agent_specs(text: str, players: int) -> list[str]:
    """`--agent` / `--agents` → one agent name per seat; a name cardsmith does not know is a usage error."""
    from .agents import AgentSpecError, parse_agents
    try:
        return parse_agents(text, players)
    except AgentSpecError as err:
        raise UsageError(str(err)) from None


# ---------------------------------------------------------------- simulate


def _given_decks(game, specs: list[str], players: int) -> dict | None:
    """`--deck SEAT=FILE` options: the decks by seat (from 0); None when a deck file has errors or
    breaks the deck rules (every diagnostic printed, as `cardsmith deck check` prints them)."""
    if not specs:
        return {}
    from cardsmith.dsl.render import render_all

    from .decks import load_decks
    try:
        decks, diags, sources = load_decks(game, specs, players)
    except ValueError as err:
        raise UsageError(str(err)) from None
    if diags:
        _write(sys.stdout, render_all(diags, {**game.sources, **sources}, color=_is_terminal(sys.stdout)))
        return None
    return decks


# ---------------------------------------------------------------- deck


def cmd_deck_check(args: argparse.Namespace) -> int:
    """`cardsmith deck check GAME DECK...`: every violation of every deck, located in its file."""
    from cardsmith.dsl.decks import deck_diagnostics, read_deck
    from cardsmith.dsl.loader import load_game
    from cardsmith.dsl.render import render_all

    game = load_game(args.game, root=args.root)
    if game.decls.deck_rules is None:
        raise UsageError(f"{args.game} declares no deck rules ('decks from <pool> into <zone>:')")
    failed = False
    color = _is_terminal(sys.stdout)
    for path in args.decks:
        deck, diags, sources = read_deck(path)
        if deck is not None:
            diags = deck_diagnostics(game, deck, diags)
        if diags:
            _write(sys.stdout, render_all(diags, {**game.sources, **sources}, color=color))
            failed = True
        else:
            cards = len(deck.names())
            print(_safe(f"{path}: ok ({cards} card{'s' * (cards != 1)}"
                        + (f", \u201c{deck.title}\u201d)" if deck.title else ")")))
    return EXIT_ERRORS if failed else EXIT_OK


def cmd_deck_build(args: argparse.Namespace) -> int:
    """`cardsmith deck build GAME --seed S --seat K`: the random legal deck play and simulate would
    give seat K with seed S, written as a deck file."""
    from cardsmith.dsl.loader import load_game

    from .decks import NoLegalDeck, random_deck

    game = load_game(args.game, root=args.root)
    if game.decls.deck_rules is None:
        raise UsageError(f"{args.game} declares no deck rules ('decks from <pool> into <zone>:')")
    if args.seat > game.max_players:
        raise UsageError(f"--seat must be from 1 to {game.max_players}, not {args.seat}")
    try:
        names = random_deck(game, args.seed, args.seat - 1)
    except NoLegalDeck as why:
        print(_safe(f"cardsmith: no legal deck can be built from the pool: {why}"), file=sys.stderr)
        return EXIT_ERRORS
    counts: dict[str, int] = {}
    for name in names:
        counts[name] = counts.get(name, 0) + 1
    lines = [f"title: {game.title}, seed {args.seed}, seat {args.seat}"]
    lines += [f'{n} "{name}"' for name, n in sorted(counts.items())]
    _write(sys.stdout, "\n".join(lines) + "\n")
    return EXIT_OK


def cmd_simulate(args: argparse.Namespace) -> int:
    from cardsmith.dsl.loader import load_game

    players = args.players
    decks = None
    if players is None or args.deck:
        game = load_game(args.file, root=args.root)
        players = game.min_players if players is None else players
        if args.deck:
            from .play import check_player_count
            check_player_count(game, players)
            decks = _given_decks(game, args.deck, players)
            if decks is None:
                return EXIT_ERRORS
            if args.scheduler is not None:
                raise UsageError("--deck and --scheduler: a cluster is sent the game's text alone; "
                                 "simulate with local workers (--jobs) to play given decks")
    agents = _agent_specs(args.agents, players) if args.agents else None
    if agents is not None and "human" in (a.strip().lower() for a in agents):
        raise UsageError("simulate plays without a person: --agents takes random, greedy or ismcts")
    return _simulate(args.file, args.games, players, args.jobs, args.seed,
                     as_json=args.json, progress=not args.no_progress,
                     force_jobs=args.force_jobs, max_steps=args.max_steps, agents=agents,
                     scheduler=args.scheduler, report=args.report, decks=decks, root=args.root)


def _simulate(path: str, games: int, players: int, jobs: int, seed: int, *,
              as_json: bool, progress: bool, force_jobs: bool = False,
              max_steps: int | None = None, agents: list[str] | None = None,
              scheduler: str | None = None, report: str | None = None, decks: dict | None = None,
              root: str | None = None) -> int:
    """Run the simulation and print its summary; the exit status says how it went.

    130 (143) when ^C (SIGTERM) stopped it, after the summary of the games finished so far;
    3 when a game crashed; 1 when no game finished normally (all aborted); else 0.
    """
    import signal
    import threading

    from .simulate import SimulationInterrupted, plan_jobs, simulate

    jobs, note = plan_jobs(jobs, force_jobs)
    if note and scheduler is None:
        print(f"cardsmith: {note}", file=sys.stderr)
    try:
        # the bar only where someone watches: not with --json, not into a file or a pipe
        shown = progress and not as_json and _is_terminal(sys.stderr) and _is_terminal(sys.stdout)
        stats = simulate(path, games, players, jobs, seed, progress=shown,
                         max_steps=max_steps, force_jobs=force_jobs, agents=agents, scheduler=scheduler,
                         root=root, **({"decks": decks} if decks else {}))
        status = EXIT_OK
    except SimulationInterrupted as stop:
        # the workers are dead, nothing is left to clean up: a second ^C ends the process at
        # once, even while the summary is printed or Python shuts down (no hang, no traceback)
        if threading.current_thread() is threading.main_thread():
            signal.signal(signal.SIGINT, signal.SIG_DFL)
        stats = stop.summary
        status = 128 + stop.signum
        print(f"\ncardsmith: interrupted ({stats['stopped_by']}) after {stats['games']} of "
              f"{stats['games_requested']} games; the summary counts those", file=sys.stderr)
    if as_json:
        print(json.dumps(stats, indent=2, ensure_ascii=False))
    else:
        render_summary(stats, _console(sys.stdout))
    if report:
        _write_html_report(stats, report)
    if status != EXIT_OK:
        return status
    if stats["crashed"]:
        return EXIT_INTERNAL
    if not stats["finished"]:
        print(f"cardsmith: no game finished normally ({stats['aborted']} aborted, "
              f"{stats['crashed']} crashed)", file=sys.stderr)
        return EXIT_ERRORS
    return EXIT_OK


def cmd_compare(args: argparse.Namespace) -> int:
    """`cardsmith compare BASE VARIANT`: both simulated on the same seeds, then side by side.

    130 (143) when ^C (SIGTERM) stopped it (no comparison of half a run); 3 when a game
    crashed in either; 1 when no game of one of them finished normally; else 0."""
    from cardsmith.dsl.loader import load_game

    from .report import compare
    from .report_text import render_comparison
    from .simulate import SimulationInterrupted, plan_jobs

    players = args.players
    if players is None:
        players = load_game(args.base, root=args.root).min_players
    agents = _agent_specs(args.agents, players) if args.agents else None
    if agents is not None and "human" in (a.strip().lower() for a in agents):
        raise UsageError("compare plays without a person: --agents takes random, greedy or ismcts")
    jobs, note = plan_jobs(args.jobs, args.force_jobs)
    if note and args.scheduler is None:
        print(f"cardsmith: {note}", file=sys.stderr)
    shown = not args.no_progress and not args.json and _is_terminal(sys.stderr) and _is_terminal(sys.stdout)
    try:
        result = compare(args.base, args.variant, args.games, players, jobs, args.seed, progress=shown,
                         agents=agents, max_steps=args.max_steps, force_jobs=args.force_jobs,
                         scheduler=args.scheduler, root=args.root)
    except SimulationInterrupted as stop:
        print(f"\ncardsmith: interrupted ({stop.summary['stopped_by']}): no comparison of a part of a run",
              file=sys.stderr)
        return 128 + stop.signum
    if args.json:
        print(result.to_json())
    else:
        render_comparison(_safe_values(result), _console(sys.stdout))
    if args.report:
        _write_html_report(result, args.report)
    runs = (result["base"], result["variant"])
    if any(r["crashed"] for r in runs):
        return EXIT_INTERNAL
    if any(not r["finished"] for r in runs):
        print("cardsmith: no game of " + " and ".join(r["file"] for r in runs if not r["finished"])
              + " finished normally", file=sys.stderr)
        return EXIT_ERRORS
    return EXIT_OK


def _html_name(text: str) -> str:
    """`--report`: the name of the page to write; an .html name, so it can never be a game file."""
    if Path(text).suffix.lower() not in (".html", ".htm"):
        raise argparse.ArgumentTypeError(f"the report is an HTML page: give a name ending in .html, not {text!r}")
    return text


def _write_html_report(report: dict, path: str) -> None:
    """Write the HTML report with plots (interpreter/html_report.py) and say where, on stderr."""
    from .html_report import write_report

    written = write_report(report, path)
    print(_safe(f"cardsmith: the report with plots is in {written}"), file=sys.stderr)


def render_summary(stats: dict, console) -> None:
    """Print the simulation summary as rich tables on ``console``."""
    from rich.markup import escape
    from rich.table import Table

    stats = _safe_values(stats)     # the title, seat and attribute names are the game file's
    asked = stats.get("games_requested", stats["games"])
    last = stats["seed"] + asked - 1
    played = f"{stats['games']} of {asked} games (interrupted)" if stats.get("interrupted") \
        else f"{stats['games']} games"
    agents = stats.get("agents") or []
    who = f", agents {', '.join(agents)}" if any(a != "random" for a in agents) else ""
    console.print(f"[bold]{escape(stats['title'])}[/bold]: {played}, "
                  f"{stats['players']} players, seeds {stats['seed']} to {last}{escape(who)}")

    even = f"an even share is {_pct(1 / stats['players'])}" if stats["players"] else ""
    seats = Table(title="Wins by seat", title_justify="left", caption=even, caption_justify="left")
    scored = any(seat.get("score") for seat in stats["seats"])      # a game with `score for p as ...`
    for heading in ("Seat", "Wins", "Win rate", "95% CI") + (("Mean score", "Mean return") if scored else ()):
        seats.add_column(heading, justify="left" if heading == "Seat" else "right")
    for seat in stats["seats"]:
        extra = (_num((seat.get("score") or {}).get("mean"), 2), _num((seat.get("return") or {}).get("mean"), 3)) \
            if scored else ()
        seats.add_row(escape(seat["name"]), str(seat["wins"]), _pct(seat["win_rate"]), _ci(seat["ci95"]), *extra)
    console.print(seats)

    from .report_text import render_groups, render_measures_and_cards
    render_groups(stats, console)

    length = Table(title="Game length", title_justify="left")
    for heading in ("", "Mean", "Median", "p95", "Min", "Max"):
        length.add_column(heading, justify="right" if heading else "left")
    rows = [("Rounds", stats["rounds"]), ("Steps", stats["steps"])]
    if "decisions" in stats:        # counted by the engine: asked of a player, and forced (one option)
        rows += [("Decisions asked", stats["decisions"]["real"]), ("Decisions forced", stats["decisions"]["forced"])]
    for label, d in rows:
        length.add_row(label, _num(d["mean"], 1), _num(d["median"], 1),
                       _num(d["p95"], 1), _num(d["min"]), _num(d["max"]))
    console.print(length)
    render_measures_and_cards(stats, console)

    draws = stats["draws"]
    console.print(f"Draws: {draws['count']} ({_pct(draws['rate'])}, 95% CI {_ci(draws['ci95'])})"
                  f"   Aborted: {stats['aborted']}   Crashed: {stats['crashed']}")
    for example in stats.get("aborted_examples", [])[:3]:
        console.print(f"  aborted, seed {example['seed']}: {escape(example['error'])}")
    for example in stats.get("crash_examples", [])[:3]:
        console.print(f"  [red]crashed[/red], seed {example['seed']}: {escape(example['error'])}")
    if len(stats.get("crashed_seeds", ())) > 3:
        console.print(f"  crashed seeds: {_seeds(stats['crashed_seeds'])}")
    if stats.get("crash_examples"):
        seed = stats["crash_examples"][0]["seed"]
        console.print(f"  replay: cardsmith --debug play {escape(stats['file'])} "
                      f"--players {stats['players']} --seed {seed}")
    if stats["games"] and not stats["finished"]:
        console.print(f"[bold red]No game finished normally[/bold red]: {stats['aborted']} aborted, "
                      f"{stats['crashed']} crashed")
    if stats.get("workers_lost"):
        lost = stats["workers_lost"]
        console.print(f"{lost} worker process{'es' * (lost != 1)} died during the run: the game "
                      f"{'each' if lost != 1 else 'it'} was playing counts as crashed")
    rate = stats.get("games_per_second")
    speed = f"{rate:,.1f} games/s" if rate else "n/a"
    console.print(f"{stats['games']} games in {stats['elapsed_seconds']:.2f} s: {speed} "
                  f"on {stats['jobs']} worker{'s' * (stats['jobs'] != 1)}")
    if stats.get("interrupted"):
        console.print(f"[bold]Interrupted[/bold] ({stats.get('stopped_by') or 'SIGINT'}) after "
                      f"{stats['games']} of {asked} games: the figures above count those only")


def _seeds(seeds: list[int], most: int = 20) -> str:
    shown = ", ".join(str(s) for s in seeds[:most])
    return shown + (f" and {len(seeds) - most} more" if len(seeds) > most else "")


def _pct(value: float | None) -> str:
    return "n/a" if value is None else f"{100 * value:.1f}%"


def _ci(bounds: list[float]) -> str:
    return f"{100 * bounds[0]:.1f}% to {100 * bounds[1]:.1f}%"


def _num(value: float | None, digits: int = 0) -> str:
    if value is None:
        return "n/a"
    return f"{value:.{digits}f}" if digits else f"{value:g}"


# ---------------------------------------------------------------- test


def cmd_test(args: argparse.Namespace) -> int:
    from cardsmith.dsl.loader import load_game

    from .scenario import run_scenarios

    passed = failed = broken = 0
    for path in args.files:
        try:
            game = load_game(path, root=args.root)
        except CardsmithError as err:
            # its errors, located, on stderr (after what stdout said so far), and a line of its own
            # on stdout, so that the two read apart however they are put together
            sys.stdout.flush()
            _report(err)
            sys.stderr.flush()
            print(_safe(f"ERROR {path}: it has errors, so its scenarios were not run"), flush=True)
            broken += 1
            continue
        with memory_bound():
            results = run_scenarios(game, seed=args.seed, max_steps=args.max_steps)
        if not results:
            print(_safe(f"{path}: no scenarios"))
        for result in results:
            if result.ok:
                passed += 1
                print(_safe(f"PASS  {path}: {result.name}"))
                continue
            failed += 1
            print(_safe(f"FAIL  {path}: {result.name}"))
            for failure in result.failures:     # a failure's reasons come on lines of their own
                for line in failure.split("\n"):
                    print(f"      {_safe(line)}")
            if args.verbose:
                for event in result.log:
                    print("    " + format_event(event))
    print(f"{passed} passed, {failed} failed"
          + (f", {broken} file{'s' if broken > 1 else ''} with errors" if broken else ""), flush=True)
    return EXIT_ERRORS if failed or broken else EXIT_OK


# ---------------------------------------------------------------- demo


def cmd_demo(args: argparse.Namespace) -> int:
    from cardsmith.dsl.loader import load_game

    path = _demo_file(args.file)
    game = load_game(str(path))
    replay = f"cardsmith play {path} --players {args.players} --seed {args.seed}"
    print(_safe(f"{game.title}: {args.players} players, seed {args.seed}"))
    if args.full:
        print(_safe(f"(the same game again: {replay})"))
        print()
        code = _play(game, args.players, args.seed, {}, log_path=None, quiet=False, viewer=None)
    else:
        code = _demo_excerpt(game, args.players, args.seed, replay)
    if code != EXIT_OK:
        return code
    print()
    print(f"Now {args.games} games with random players (seeds {args.seed} onwards):")
    return _simulate(str(path), args.games, args.players, args.jobs, args.seed,
                     as_json=False, progress=True)


def _demo_excerpt(game, players: int, seed: int, replay: str) -> int:
    """Play the game and print an excerpt of its log chosen by its structure (interpreter/excerpt.py):
    the setup, the first rounds, the first round of each rare kind, the end; then how to see it all."""
    from .engine import GameAborted
    from .play import check_player_count, default_agents, run_game

    check_player_count(game, players)
    engines: list = []
    aborted = None
    try:
        with memory_bound():
            eng = run_game(game, players, seed, default_agents(players, seed), log=True,
                           observe=lambda e: engines.append(e) if not engines else None)
    except GameAborted as err:
        aborted = err
        log = getattr(err, "event_log", None) or (engines[0].event_log if engines else None)
        events = log.events if log is not None else []
    else:
        events = eng.event_log.events
    color = _is_terminal(sys.stdout)
    print_excerpt(events, sys.stdout, color=color)
    print()
    if aborted is None:
        print(describe_result(eng))
    print(_safe(f"The whole game ({len(events):,} events): {replay}"))
    print("  (add --log game.jsonl for every event as JSON; cardsmith demo --full prints it here)")
    if aborted is not None:
        _report(aborted)
        return EXIT_ABORTED
    return EXIT_OK


def print_excerpt(events: list[dict], out: TextIO, *, color: bool = False) -> None:
    """The excerpt of a game's log (interpreter/excerpt.py) as text: each part's heading and why
    it is shown, its events as `play` prints them, and what was left out between them."""
    from .excerpt import choose

    excerpt = choose(events)
    plural = {"round": "rounds", "turn": "turns", "event": "events"}
    print(f"An excerpt of the game ({excerpt.total_events:,} events"
          + (f", {excerpt.total_units:,} {plural[excerpt.unit]}" if excerpt.total_units else "") + "):",
          file=out)
    for part in excerpt.parts:
        if part.skipped_before or part.events_before:
            units = (f"{part.skipped_before:,} {plural[excerpt.unit] if part.skipped_before != 1 else excerpt.unit}, "
                     if part.skipped_before else "")
            print(f"      ... {units}{part.events_before:,} events left out ...", file=out)
        heading = f"{part.heading}  ({part.reason})" if part.reason else part.heading
        print(file=out)
        print(_safe(f"-- {heading}"), file=out)
        gaps = sum(1 for event in part.shown if event is None)
        for event in part.shown:
            if event is None:
                left = f"{part.cut:,} events" if gaps == 1 else "some events"
                print(f"      ... {left} of this part left out ...", file=out)
            else:
                print(format_event(event, color=color), file=out)


def _demo_file(given: str | None) -> Path:
    if given:
        return Path(given)
    here = Path.cwd() / DEMO_FILE
    if here.is_file():
        return DEMO_FILE
    beside = Path(__file__).resolve().parent.parent / DEMO_FILE   # a source checkout
    if beside.is_file():
        return beside
    raise UsageError(f"cannot find {DEMO_FILE}: run the demo from the cardsmith folder "
                     "or pass --file")


# ---------------------------------------------------------------- rulebook and diagram


def cmd_rulebook(args: argparse.Namespace) -> int:
    from cardsmith.dsl.loader import load_game
    from cardsmith.dsl.publish.browser import BrowserMissing
    from cardsmith.dsl.publish.rulebook import write_rulebook

    if args.print_templates:
        from cardsmith.dsl.publish.templating import copy_defaults

        for path, copied in copy_defaults(Path(args.print_templates)):
            print(f"wrote {path}" if copied else f"kept {path} (it was there already)")
        return EXIT_OK
    if not args.file or not args.output:
        raise UsageError("cardsmith rulebook needs a FILE and -o DIR (or --print-templates DIR)")
    if args.templates and not Path(args.templates).is_dir():
        raise UsageError(f"--templates {args.templates}: no such folder")
    game = load_game(args.file, root=args.root)
    try:
        # a template, the rules or the browser failing is a located CardsmithError (E10xx)
        files, warnings = write_rulebook(game, args.output, args.format, args.templates)
    except BrowserMissing as err:
        raise UsageError(str(err)) from err
    for warning in warnings:
        print(f"cardsmith: {warning}", file=sys.stderr)
    for path in files:
        print(f"wrote {path}")
    return EXIT_OK


def cmd_cards(args: argparse.Namespace) -> int:
    from cardsmith.dsl.loader import load_game
    from cardsmith.dsl.publish.browser import BrowserMissing
    from cardsmith.dsl.publish.cards import write_cards

    if args.templates and not Path(args.templates).is_dir():
        raise UsageError(f"--templates {args.templates}: no such folder")
    game = load_game(args.file, root=args.root)
    try:
        out = write_cards(game, args.output, args.templates)        # E10xx errors, located
    except BrowserMissing as err:
        raise UsageError(str(err)) from err
    print(f"wrote {out}")
    return EXIT_OK


def cmd_diagram(args: argparse.Namespace) -> int:
    from cardsmith.dsl.loader import load_game
    from cardsmith.dsl.publish.diagrams import draw

    game = load_game(args.file, root=args.root)
    out = Path(args.output)
    out.parent.mkdir(parents=True, exist_ok=True)
    kind = args.kind
    if kind == "board":         # a board of the game (docs/language.md, "board")
        boards = list(game.decls.boards)
        name = args.board or (boards[0] if boards else None)
        if name not in game.decls.boards:
            print(f"cardsmith: {args.file} has no board {name!r}" if name else
                  f"cardsmith: {args.file} declares no board", file=sys.stderr)
            if boards:
                print(f"its boards are {', '.join(boards)}", file=sys.stderr)
            return EXIT_ERRORS
        kind = f"board:{name}"
    source, svg = draw(game, kind, svg=out.suffix != ".dot")   # E10xx errors, located
    if out.suffix == ".dot":
        out.write_text(source, encoding="utf-8")
        print(f"wrote {out}")
        return EXIT_OK
    if svg is None:
        dot_path = out.with_suffix(".dot")
        dot_path.write_text(source, encoding="utf-8")
        print(f"cardsmith: Graphviz is not installed (no 'dot' program), so {out} was not drawn; "
              f"its DOT source is in {dot_path}. Install the Debian package 'graphviz', or draw it "
              f"elsewhere with: dot -Tsvg {dot_path} -o {out}", file=sys.stderr)
        return EXIT_ERRORS
    out.write_text(svg, encoding="utf-8")
    print(f"wrote {out}")
    return EXIT_OK


# ---------------------------------------------------------------- output helpers


def _report(err: CardsmithError) -> None:
    """Render a CardsmithError's diagnostics on stderr (colored on a terminal)."""
    if err.diagnostics:
        from cardsmith.dsl.render import render_all

        _write(sys.stderr, render_all(err.diagnostics, err.sources, color=_is_terminal(sys.stderr)))
    else:
        print(f"cardsmith: {_safe(err)}", file=sys.stderr)


# ---------------------------------------------------------------- explain


def cmd_explain(args: argparse.Namespace) -> int:
    from cardsmith.dsl.loader import load_game

    from .explain import UnknownRule, explain, rule_list

    if args.list == (args.rule is not None):
        raise UsageError("explain needs one RULE, or --list to see the rules it may name")
    game = load_game(args.file, root=args.root)
    if args.list:
        _write(sys.stdout, rule_list(game))          # sanitised line by line in explain.py
        return EXIT_OK
    try:
        text = explain(game, args.rule, python=args.python)
    except UnknownRule as err:
        raise UsageError(str(err)) from None
    _write(sys.stdout, text)
    return EXIT_OK


def _safe(text) -> str:
    """Game text on its way to a terminal: through the one sanitiser (dsl/terminal.py)."""
    from cardsmith.dsl.terminal import for_terminal

    return for_terminal(text)


def _safe_values(value):
    """`value` (JSON-like) with every text in it sanitised for the terminal."""
    if isinstance(value, str):
        return _safe(value)
    if isinstance(value, dict):
        return {_safe_values(k): _safe_values(v) for k, v in value.items()}
    if isinstance(value, list):
        return [_safe_values(v) for v in value]
    return value


def _is_aborted(err: CardsmithError) -> bool:
    try:
        from .engine import GameAborted
    except ImportError:
        return False
    return isinstance(err, GameAborted)


def _write(stream: TextIO, text: str) -> None:
    stream.write(text if text.endswith("\n") else text + "\n")
    stream.flush()


def _is_terminal(stream: TextIO) -> bool:
    try:
        return bool(stream.isatty())
    except (AttributeError, ValueError):
        return False


def _console(stream: TextIO):
    from rich.console import Console

    terminal = _is_terminal(stream)
    return Console(file=stream, highlight=False, width=None if terminal else 100,
                   no_color=not terminal)


class _VersionAction(argparse.Action):
    """`--version`: the installed version, looked up (importlib.metadata, ~0.1 s of imports) only
    when asked for, not by every command's start."""

    def __init__(self, option_strings, dest=argparse.SUPPRESS, default=argparse.SUPPRESS, help=None):
        super().__init__(option_strings=option_strings, dest=dest, default=default, nargs=0,
                         help=help or "show program's version number and exit")

    def __call__(self, parser, namespace, values, option_string=None):
        parser._print_message(f"cardsmith {_version()}\n", sys.stdout)
        parser.exit()


def _version() -> str:
    try:
        from importlib.metadata import version

        return version("cardsmith")
    except ImportError:  # PackageNotFoundError: not installed, running from a checkout
        return "0+unknown"


if __name__ == "__main__":
    sys.exit(main())
