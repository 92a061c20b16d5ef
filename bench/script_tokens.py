"""Counting words in any script (playground.data.scripts), as the question generator does for every chunk it
might ask about and answer scoring does for every answer: text with no unspaced script, and Chinese text.

    .venv/bin/python bench/script_tokens.py [--paragraphs 2000]

The paragraphs are the Python language reference's (pydoc_data, real English text); the Chinese ones are the same
paragraphs with each ASCII letter replaced by a CJK ideograph. Printed: microseconds per paragraph for word_count
and script_token_spans.
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from playground.data.scripts import script_token_spans, word_count  # noqa: E402


def paragraphs(count: int) -> list[str]:
    from pydoc_data.topics import topics

    found = [part for _, text in sorted(topics.items()) for part in text.split("\n\n") if len(part.split()) >= 8]
    return (found * (count // len(found) + 1))[:count]


def per_paragraph_us(function, texts: list[str]) -> float:
    started = time.perf_counter()
    for text in texts:
        function(text)
    return (time.perf_counter() - started) / len(texts) * 1e6


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--paragraphs", type=int, default=2000)
    args = parser.parse_args()
    english = paragraphs(args.paragraphs)
    chinese = [
        text.translate({letter: 0x4E00 + letter for letter in range(ord("A"), ord("z") + 1)}) for text in english
    ]
    chars = sum(len(text) for text in english) / len(english)
    print(f"{len(english):,} paragraphs of {chars:,.0f} characters on average")
    for name, texts in (("English", english), ("Chinese", chinese)):
        for function in (word_count, script_token_spans):
            print(f"{name:<8} {function.__name__:<20} {per_paragraph_us(function, texts):9.1f} us per paragraph")


if __name__ == "__main__":
    import figures

    sys.exit(figures.run("script_tokens", main))
