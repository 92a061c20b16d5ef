"""How much the answer scoring rule matters on Chinese: SQuAD's (what every run used before languages) against
MLQA's and CMRC 2018's, on crafted predictions from XQuAD's Chinese file.

    .venv/bin/python bench/languages_scores.py [--n 200] [--seed 0]

Each of `--n` questions (a seeded sample) gets one prediction made from its first gold answer and its context:
the answer itself, the answer cut short by one to three characters, the answer with the one to four characters
that follow it in the context, or the answer in Chinese quotation marks with a full stop. Printed: mean EM and F1
under each rule, and the share of predictions each rule gives partial credit (0 < F1 < 1).
Needs ../shared/datasets/xquad/xquad.zh.json.
"""

from __future__ import annotations

import argparse
import json
import random
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from playground.evaluation.answer_rules import AnswerRule  # noqa: E402

XQUAD_ZH = ROOT.parent / "shared" / "datasets" / "xquad" / "xquad.zh.json"  # ../shared beside the clone
RULES = (AnswerRule("squad", "en"), AnswerRule("mlqa", "zh"), AnswerRule("cmrc", "zh"))


def crafted_predictions(path: Path, n: int, seed: int) -> list[tuple[str, list[str]]]:
    """(prediction, gold answers) for `n` seeded questions of an XQuAD file."""
    data = json.loads(path.read_text(encoding="utf-8"))["data"]
    questions = [
        (paragraph["context"], qa)
        for article in data
        for paragraph in article["paragraphs"]
        for qa in paragraph["qas"]
        if qa["answers"]
    ]
    rng = random.Random(seed)
    crafted = []
    for context, qa in rng.sample(questions, min(n, len(questions))):
        answer = qa["answers"][0]
        text, start = answer["text"], answer["answer_start"]
        kind = rng.choice(("exact", "short", "long", "quoted"))
        if kind == "short" and len(text) > 1:
            prediction = text[: max(1, len(text) - rng.randint(1, 3))]
        elif kind == "long":
            prediction = context[start : start + len(text) + rng.randint(1, 4)]
        elif kind == "quoted":
            prediction = f"「{text}」。"
        else:
            prediction = text
        crafted.append((prediction, [a["text"] for a in qa["answers"]]))
    return crafted


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--n", type=int, default=200)
    parser.add_argument("--seed", type=int, default=0)
    args = parser.parse_args()
    if not XQUAD_ZH.exists():
        print(f"skipped: {XQUAD_ZH} is absent")
        return 0
    crafted = crafted_predictions(XQUAD_ZH, args.n, args.seed)
    print(f"{len(crafted)} crafted Chinese predictions from {XQUAD_ZH.name} (seed {args.seed})")
    print(f"{'rule':<10} {'EM':>6} {'F1':>6} {'partial':>8}  signature")
    for rule in RULES:
        f1s = [rule.f1(prediction, answers) for prediction, answers in crafted]
        ems = [rule.exact_match(prediction, answers) for prediction, answers in crafted]
        partial = sum(0 < f1 < 1 for f1 in f1s) / len(f1s)
        print(
            f"{rule.name:<10} {sum(ems) / len(ems):>6.3f} {sum(f1s) / len(f1s):>6.3f} {partial:>8.1%}  {rule.signature}"
        )
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
