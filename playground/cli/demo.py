"""Subcommands: not yet written."""


def register(subparsers, common) -> None:
    pass
