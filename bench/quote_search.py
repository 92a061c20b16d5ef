"""Finding an imported question's quote in its document (`data import questions`): exact, and fuzzy with and
without the anchored window starts that playground.questions.imported uses for quotes over 12 words.

    .venv/bin/python bench/quote_search.py [--words 16000] [--quote-words 30] [--seed 0]

A seeded document of random words, a quote cut from its middle, and the same quote with one letter changed.
Printed: seconds for each search, and whether each found the quote's own place.
"""

from __future__ import annotations

import argparse
import random
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from playground.questions.checks import find_answer  # noqa: E402
from playground.questions.imported import _anchored_starts, find_quote  # noqa: E402


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--words", type=int, default=16000)
    parser.add_argument("--quote-words", type=int, default=30)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--skip-full-scan", action="store_true", help="leave out the unanchored scan (minutes)")
    args = parser.parse_args()
    rng = random.Random(args.seed)
    words = ["".join(rng.choice("abcdefghijklmnop") for _ in range(rng.randint(2, 9))) for _ in range(args.words)]
    text = " ".join(words)
    middle = args.words // 2
    quote = " ".join(words[middle : middle + args.quote_words])
    typo = quote[:20] + ("x" if quote[20] != "x" else "y") + quote[21:]
    print(f"document: {len(text):,} characters, {args.words:,} words; quote: {args.quote_words} words")
    searches = [
        ("exact quote", lambda: find_quote(quote, text)),
        ("fuzzy quote, anchored", lambda: find_quote(typo, text)),
    ]
    if not args.skip_full_scan:
        searches.append(("fuzzy quote, every window", lambda: find_answer(typo, text, max_words=None)))
    for name, search in searches:
        started = time.perf_counter()
        found = search()
        seconds = time.perf_counter() - started
        right = found is not None and text[found[0] : found[1]] == quote
        print(f"{name:<28} {seconds:8.3f} s  found its place: {right}")
    print(f"anchored window starts tried: {len(_anchored_starts(typo, text)):,} of {args.words:,}")


if __name__ == "__main__":
    import figures

    sys.exit(figures.run("quote_search", main))
