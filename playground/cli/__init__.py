"""The `playground` command: thin over the engine. Each module here registers one group of subcommands.

Handlers import heavy libraries (torch, faiss, llama.cpp) inside the handler, so `playground --help` stays fast.
"""

from __future__ import annotations

import argparse
import importlib
import sqlite3
import sys
from typing import Optional, Sequence

from playground import PlaygroundError, __version__

COMMAND_MODULES = ["data", "retrieval", "demo", "prompts", "models", "runs", "compare", "power", "score", "sessions", "judge", "experiments", "workspace"]


def common_options() -> argparse.ArgumentParser:
    """Options every subcommand accepts after its name too; SUPPRESS keeps the top-level value when absent."""
    common = argparse.ArgumentParser(add_help=False)
    common.add_argument("--db", default=argparse.SUPPRESS, help="workspace file (default $PLAYGROUND_DB or sessions/playground.db)")
    common.add_argument("--json", action="store_true", default=argparse.SUPPRESS, help="print machine-readable JSON on stdout")
    common.add_argument("--device", default=argparse.SUPPRESS, metavar="DEVICE",
                        help="embed on cpu, cuda, cuda:N or mps (default $PLAYGROUND_DEVICE, else the best present)")
    return common


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="playground", description="Prompt-engineering workbench for retrieval-augmented QA")
    parser.add_argument("--version", action="version", version=f"playground {__version__}")
    parser.add_argument("--db", default=None, help="workspace file (default $PLAYGROUND_DB or sessions/playground.db)")
    parser.add_argument("--json", action="store_true", default=False, help="print machine-readable JSON on stdout")
    parser.add_argument("--device", default=None, metavar="DEVICE",
                        help="embed on cpu, cuda, cuda:N or mps (default $PLAYGROUND_DEVICE, else the best present)")
    subparsers = parser.add_subparsers(dest="command", metavar="COMMAND")
    common = common_options()
    for name in COMMAND_MODULES:
        importlib.import_module(f"playground.cli.{name}").register(subparsers, common)
    return parser


def main(argv: Optional[Sequence[str]] = None) -> int:
    from playground.redaction import install_log_redaction

    install_log_redaction()
    parser = build_parser()
    args = parser.parse_args(argv)
    handler = getattr(args, "handler", None)
    if handler is None:
        parser.print_help()
        return 2
    try:
        if args.device:  # the embedders read it (retrieval/embedders.py), wherever a command embeds
            import os

            from playground.retrieval.embedders import DEVICE_ENV, check_device

            os.environ[DEVICE_ENV] = check_device(args.device, "--device")
        return int(handler(args) or 0)
    except PlaygroundError as error:
        from playground.redaction import redact

        print(f"error: {redact(str(error))}", file=sys.stderr)
        return 1
    except sqlite3.OperationalError as error:  # e.g. another program held the database past the busy timeout
        print(f"error: the workspace database refused the command ({error}); nothing stored was lost, "
              "try again when the other writer has finished", file=sys.stderr)
        return 1
    except sqlite3.DatabaseError as error:  # "database disk image is malformed", wherever a read meets a damaged page
        from playground.config import workspace_path
        from playground.store.integrity import damaged, is_damage

        if not is_damage(error):
            raise
        print(f"error: {damaged(workspace_path(getattr(args, 'db', None)), str(error))}", file=sys.stderr)
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
