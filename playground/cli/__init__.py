"""The `playground` command: thin over the engine. Each module here registers one group of subcommands.

Handlers import heavy libraries (torch, faiss, llama.cpp) inside the handler, so `playground --help` stays fast.
"""

from __future__ import annotations

import argparse
import importlib
import sys
from typing import Optional, Sequence

from playground import PlaygroundError, __version__

COMMAND_MODULES = ["data", "retrieval", "demo", "prompts", "models", "runs", "compare", "power", "score", "sessions", "judge", "experiments"]


def common_options() -> argparse.ArgumentParser:
    """Options every subcommand accepts after its name too; SUPPRESS keeps the top-level value when absent."""
    common = argparse.ArgumentParser(add_help=False)
    common.add_argument("--db", default=argparse.SUPPRESS, help="workspace file (default $PLAYGROUND_DB or sessions/playground.db)")
    common.add_argument("--json", action="store_true", default=argparse.SUPPRESS, help="print machine-readable JSON on stdout")
    return common


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="playground", description="Prompt-engineering workbench for retrieval-augmented QA")
    parser.add_argument("--version", action="version", version=f"playground {__version__}")
    parser.add_argument("--db", default=None, help="workspace file (default $PLAYGROUND_DB or sessions/playground.db)")
    parser.add_argument("--json", action="store_true", default=False, help="print machine-readable JSON on stdout")
    subparsers = parser.add_subparsers(dest="command", metavar="COMMAND")
    common = common_options()
    for name in COMMAND_MODULES:
        importlib.import_module(f"playground.cli.{name}").register(subparsers, common)
    return parser


def main(argv: Optional[Sequence[str]] = None) -> int:
    parser = build_parser()
    args = parser.parse_args(argv)
    handler = getattr(args, "handler", None)
    if handler is None:
        parser.print_help()
        return 2
    try:
        return int(handler(args) or 0)
    except PlaygroundError as error:
        print(f"error: {error}", file=sys.stderr)
        return 1
    except BrokenPipeError:  # output piped into `head` and closed early
        import os

        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
        return 0
    except KeyboardInterrupt:
        print("interrupted", file=sys.stderr)
        return 130


if __name__ == "__main__":
    sys.exit(main())
