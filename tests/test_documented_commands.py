"""The docs cannot drift from the command line: every `playground ...` line in a shell block of the README and
docs/*.md parses with the CLI's own parser (flags, choices, required arguments), and the README stays short."""

from __future__ import annotations

import re
import shlex
from pathlib import Path

import pytest

from playground.cli import build_parser

ROOT = Path(__file__).resolve().parents[1]
DOCS = [ROOT / "README.md", ROOT / "CONTRIBUTING.md", *sorted((ROOT / "docs").glob("*.md"))]
README_MAX_WORDS = 800
PLACEHOLDERS = {"SPEC": "local:smollm2"}  # values the parser checks as it reads them


def shell_blocks(text: str) -> list[str]:
    return re.findall(r"```(?:bash|sh|shell|console)\n(.*?)```", text, re.S)


def command_lines(text: str) -> list[str]:
    """Each `playground ...` command in the shell blocks, continuation lines joined, comments and pipes cut."""
    found = []
    for block in shell_blocks(text):
        joined = re.sub(r"\\\n\s*", " ", block)
        for line in joined.splitlines():
            line = line.split(" #", 1)[0].strip()
            while re.search(r"\[[^\[\]]*\]", line):  # [--optional FLAG], nested too, is left out
                line = re.sub(r"\[[^\[\]]*\]", "", line)
            for part in re.split(r"&&|\|\||;|\|", line):
                part = part.strip()
                if part.startswith("playground "):
                    found.append(part)
    return found


def documented_commands() -> list[tuple[str, str]]:
    return [(path.name, line) for path in DOCS for line in command_lines(path.read_text(encoding="utf-8"))]


def test_the_docs_hold_commands_to_check():
    names = {name for name, _ in documented_commands()}
    assert {"README.md", "guide.md"} <= names


@pytest.mark.parametrize(("doc", "line"), documented_commands())
def test_a_documented_command_parses(doc, line):
    argv = shlex.split(line)[1:]
    argv = [PLACEHOLDERS.get(word, word) for word in argv]
    try:
        build_parser().parse_args(argv)
    except SystemExit as exit_:
        pytest.fail(f"{doc}: `{line}` does not parse (exit {exit_.code})")


def test_the_readme_is_short():
    words = len((ROOT / "README.md").read_text(encoding="utf-8").split())
    assert words < README_MAX_WORDS, f"README.md has {words} words; the detail belongs in docs/guide.md"


def test_every_docs_link_in_the_readme_exists():
    text = (ROOT / "README.md").read_text(encoding="utf-8")
    targets = re.findall(r"\]\(([^)#]+)\)", text)
    missing = [target for target in targets if not (ROOT / target).exists()]
    assert targets and not missing, missing
