"""The search's parts: splits, minibatch sizes, the proposer's reply, the examples it is shown."""

from __future__ import annotations

import pytest

from playground import PlaygroundError
from playground.optimize.proposals import choose_examples, parse_proposal
from playground.optimize.search import rung_sizes
from playground.optimize.splits import parse_split, split_questions

IDS = [f"q{i}" for i in range(37)]


def test_splits_are_disjoint_cover_every_question_and_follow_the_seed():
    splits = split_questions(IDS, (30, 40, 30), seed=5)
    sizes = {name: len(ids) for name, ids in splits.items()}
    assert sizes == {"train": 11, "validation": 15, "test": 11}
    together = splits["train"] + splits["validation"] + splits["test"]
    assert sorted(together) == sorted(IDS) and len(set(together)) == len(IDS)
    assert split_questions(IDS, (30, 40, 30), seed=5) == splits
    assert split_questions(IDS, (30, 40, 30), seed=6) != splits


def test_a_tiny_benchmark_still_gets_three_splits_or_one_clear_line():
    assert all(split_questions(["a", "b", "c"], (80, 10, 10), seed=0).values())
    with pytest.raises(PlaygroundError, match="at least 3 questions"):
        split_questions(["a", "b"], (30, 40, 30), seed=0)
    with pytest.raises(PlaygroundError, match="--split '30/40'"):
        parse_split("30/40")


def test_minibatches_double_up_to_the_whole_validation_split():
    assert rung_sizes(5, 24, 4) == [4, 8, 16, 24]
    assert rung_sizes(1, 24, 4) == [24]
    assert rung_sizes(8, 10, 4) == [4, 8, 10]


SHOWN = [{"number": 1, "question_id": "q1", "question": "Q?", "output": "x", "gold": "y", "correct": False}]


def test_the_proposers_reply_is_read_from_its_first_json_object_with_an_instruction():
    proposal = parse_proposal(
        'Sure! {"note": 1} then {"instruction": " Be exact. ", "failure": 1, "reason": "r"}', SHOWN
    )
    assert proposal.instruction == "Be exact." and proposal.failure["question_id"] == "q1"
    assert proposal.note().startswith("answers failure on train question q1")
    assert parse_proposal("no json here", SHOWN) is None
    assert parse_proposal('{"instruction": ""}', SHOWN) is None
    assert parse_proposal('{"instruction": "x", "failure": 9}', SHOWN).failure is None


def test_each_proposal_is_shown_failures_first_in_a_seeded_draw():
    examples = [{"question_id": f"q{i}", "correct": i % 3 == 0} for i in range(30)]
    shown = choose_examples(examples, seed=0, index=0)
    assert [e["correct"] for e in shown] == [False] * 4 + [True] * 2
    assert [e["number"] for e in shown] == [1, 2, 3, 4, 5, 6]
    assert choose_examples(examples, seed=0, index=0) == shown
    assert choose_examples(examples, seed=0, index=1) != shown


def test_the_proposal_template_is_kept_off_the_answering_pages():
    from playground.app.components.prompt_choices import is_answer_template
    from playground.prompts.library import load_template

    assert not is_answer_template(load_template("instruction-proposal"))
    assert is_answer_template(load_template("direct-short-answer"))
