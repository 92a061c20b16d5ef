"""The `playground` command: thin over the engine. Each module here registers one group of subcommands.

Handlers import heavy libraries (torch, faiss, llama.cpp) inside the handler, so `playground --help` stays fast.
"""

from __future__ import annotations

import argparse
import contextlib
import importlib
import sqlite3
import sys
from typing import Iterator, Optional, Sequence

from playground import PlaygroundError, __version__

COMMAND_MODULES = [
    "data",
    "retrieval",
    "demo",
    "prompts",
    "models",
    "runs",
    "compare",
    "power",
    "optimize",
    "score",
    "sessions",
    "judge",
    "rate",
    "experiments",
    "evaluate",
    "gate",
    "questions",
    "plugins",
    "workspace",
]


def common_options() -> argparse.ArgumentParser:
    """Options every subcommand accepts after its name too; SUPPRESS keeps the top-level value when absent."""
    common = argparse.ArgumentParser(add_help=False)
    common.add_argument(
        "--db", default=argparse.SUPPRESS, help="workspace file (default $PLAYGROUND_DB or sessions/playground.db)"
    )
    common.add_argument(
        "--json", action="store_true", default=argparse.SUPPRESS, help="print machine-readable JSON on stdout"
    )
    common.add_argument(
        "--device",
        default=argparse.SUPPRESS,
        metavar="DEVICE",
        help="embed on cpu, cuda, cuda:N or mps (default $PLAYGROUND_DEVICE, else the best present)",
    )
    return common


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="playground", description="Prompt-engineering workbench for retrieval-augmented QA"
    )
    parser.add_argument("--version", action="version", version=f"playground {__version__}")
    parser.add_argument("--db", default=None, help="workspace file (default $PLAYGROUND_DB or sessions/playground.db)")
    parser.add_argument("--json", action="store_true", default=False, help="print machine-readable JSON on stdout")
    parser.add_argument(
        "--device",
        default=None,
        metavar="DEVICE",
        help="embed on cpu, cuda, cuda:N or mps (default $PLAYGROUND_DEVICE, else the best present)",
    )
    subparsers = parser.add_subparsers(dest="command", metavar="COMMAND")
    common = common_options()
    for name in COMMAND_MODULES:
        importlib.import_module(f"playground.cli.{name}").register(subparsers, common)
    return parser


_built: Optional[tuple[tuple, argparse.ArgumentParser]] = None  # (what it was built from, the parser)


def parser_of_this_process() -> argparse.ArgumentParser:
    """build_parser's parser, built again only when the plugin registry or the command modules changed: it lists
    every registered program, judge and metric, and building its hundred subcommands costs tens of milliseconds that
    a program calling main() many times (the test suite, a script) would otherwise pay on every call."""
    global _built
    from playground.plugins import registry

    source = (registry(), tuple(COMMAND_MODULES))
    if _built is None or _built[0][0] is not source[0] or _built[0][1] != source[1]:
        _built = (source, build_parser())
    return _built[1]


def main(argv: Optional[Sequence[str]] = None) -> int:
    from playground.redaction import install_log_redaction
    from playground.terminal_log import install_terminal_logging

    install_log_redaction()
    install_terminal_logging()
    with _ctrl_c_noted():
        parser = parser_of_this_process()
        try:
            args = parser.parse_args(argv)
        except PlaygroundError as error:  # a flag's value out of range (playground.bounds): one line, nothing run
            from playground.terminal_text import ERROR_LINE_CHARS, shorten

            print(f"error: {shorten(str(error), ERROR_LINE_CHARS)}", file=sys.stderr)
            return USAGE_EXITS.get(_command_word(parser, argv), 1)
        if getattr(args, "handler", None) is None:
            parser.print_help()
            return 2
        return run_command(args)


# Commands whose refused input exits other than 1: the gate's 1 means a regression, so its usage errors exit 2.
USAGE_EXITS = {"gate": 2}


def _command_word(parser: argparse.ArgumentParser, argv: Optional[Sequence[str]]) -> Optional[str]:
    """The subcommand named in argv (the first word that is a command), or None."""
    names = {
        name for action in parser._actions if isinstance(action, argparse._SubParsersAction) for name in action.choices
    }
    words = sys.argv[1:] if argv is None else argv
    return next((word for word in words if word in names), None)


@contextlib.contextmanager
def _ctrl_c_noted() -> Iterator[None]:
    """Ctrl-C raises KeyboardInterrupt as always, and is noted first, so that the plugin boundary tells the user's
    interrupt (which stops the command) from a plugin raising KeyboardInterrupt itself (a plugin error)."""
    import signal
    import threading

    from playground.plugins.exits import forget_user_interrupt, note_user_interrupt

    def on_ctrl_c(signum, frame):
        note_user_interrupt()
        raise KeyboardInterrupt

    ours = threading.current_thread() is threading.main_thread() and (
        signal.getsignal(signal.SIGINT) is signal.default_int_handler
    )
    if ours:
        signal.signal(signal.SIGINT, on_ctrl_c)
    try:
        yield
    finally:
        if ours:
            signal.signal(signal.SIGINT, signal.default_int_handler)
        forget_user_interrupt()


def run_command(args: argparse.Namespace) -> int:
    """Run the parsed command's handler: the project's errors as one `error:` line, anything else as one
    `internal error:` line naming a file with the traceback (exit 70), or the traceback with $PLAYGROUND_DEBUG=1."""
    from playground.terminal_text import one_line

    try:
        _check_text_arguments(args)
        if args.device:  # the embedders read it (retrieval/embedders.py), wherever a command embeds
            import os

            from playground.retrieval.embedders import DEVICE_ENV, check_device

            os.environ[DEVICE_ENV] = check_device(args.device, "--device")
        return int(args.handler(args) or 0)
    except PlaygroundError as error:
        from playground.redaction import redact
        from playground.terminal_text import ERROR_LINE_CHARS, shorten

        print(f"error: {shorten(redact(str(error)), ERROR_LINE_CHARS)}", file=sys.stderr)
        return USAGE_EXITS.get(getattr(args, "command", None) or "", 1)
    except sqlite3.OperationalError as error:  # e.g. another program held the database past the busy timeout
        print(
            f"error: the workspace database refused the command ({one_line(error)}); nothing stored was lost, "
            "try again when the other writer has finished",
            file=sys.stderr,
        )
        return 1
    except sqlite3.DatabaseError as error:  # "database disk image is malformed", wherever a read meets a damaged page
        from playground.config import workspace_path
        from playground.store.integrity import damaged, is_damage

        if not is_damage(error):  # a constraint, a misuse: a bug of playground, said as one
            return _internal_error(error, args)
        print(
            f"error: {one_line(str(damaged(workspace_path(getattr(args, 'db', None)), str(error))))}", file=sys.stderr
        )
        return 1
    except BrokenPipeError:  # output piped into `head` and closed early
        import os

        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
        return 0
    except KeyboardInterrupt:
        print("interrupted", file=sys.stderr)
        return 130
    except Exception as error:  # noqa: BLE001 - the last resort: one line, the traceback kept in a file
        return _internal_error(error, args)


# Arguments that name files: a name with bytes that are not UTF-8 is a real file's name (Python's surrogateescape).
_PATH_ARGUMENTS = {"db", "file", "path", "output", "template_file"}


def _check_text_arguments(args: argparse.Namespace) -> None:
    """Text that is stored, looked up or sent must be Unicode: an argument holding bytes that are not UTF-8 (they
    arrive as lone surrogates) is refused here, once for every command, naming the argument."""
    import re

    from playground.terminal_text import one_line

    for name, value in vars(args).items():
        if name in _PATH_ARGUMENTS or name == "handler":
            continue
        for item in value if isinstance(value, list) else [value]:
            found = re.search("[\ud800-\udfff]", item) if isinstance(item, str) else None
            if found:
                raise PlaygroundError(
                    f"{name.replace('_', '-')} {one_line(ascii(item[:60]))} holds bytes that are not "
                    f"UTF-8 text (character {found.start() + 1}); give it as UTF-8"
                )


def _internal_error(error: Exception, args: argparse.Namespace) -> int:
    import traceback

    from playground.crash_reports import (
        EXIT_INTERNAL_ERROR,
        debug_requested,
        internal_error_line,
        save_traceback,
    )

    if debug_requested():
        traceback.print_exception(type(error), error, error.__traceback__, file=sys.stderr)
        return EXIT_INTERNAL_ERROR
    print(internal_error_line(error, save_traceback(error, _workspace_folder(args))), file=sys.stderr)
    return EXIT_INTERNAL_ERROR


def _workspace_folder(args: argparse.Namespace) -> Optional[str]:
    """The folder of the command's workspace when it exists (the traceback goes beside it), else None."""
    try:
        from playground.config import workspace_path

        folder = workspace_path(getattr(args, "db", None)).parent
        return str(folder) if folder.is_dir() else None
    except Exception:  # noqa: BLE001 - a bad --db must not hide the error being reported
        return None


if __name__ == "__main__":
    sys.exit(main())
