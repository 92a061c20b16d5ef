"""Context precision sets its verdicts against the gold retrieval evaluation scores (span_gold.gold_among), so a
question evaluation leaves unscored (gold spans on a corpus that is not a documents corpus, no gold ids) is not
counted "against gold" with nothing gold in it."""

from __future__ import annotations

import json

from playground.data.records import Dataset, Passage, Question
from playground.evaluation.judges.context_precision import gold_of
from playground.evaluation.span_gold import SpanGold
from playground.store.datasets import save_dataset
from playground.store.run_record import run_record

SPAN = {"document": "guide.md", "start": 0, "end": 40}
PASSAGES = [
    Passage("p1", "Guide", "Kellerby lighthouse was built by Marta Voss.", metadata={**SPAN, "end": 44}),
    Passage("p2", "Guide", "The keepers rang the fog bell in storms.", metadata={**SPAN, "start": 44, "end": 84}),
]
QUESTIONS = [
    Question("spans", "Who built the lighthouse?", ["Marta Voss"], [], metadata={"gold_spans": [SPAN]}),
    Question("ids", "What did the keepers ring?", ["the fog bell"], ["p2"]),
]


def test_gold_is_what_retrieval_evaluation_scores_on_a_corpus_that_is_not_a_documents_corpus(workspace):
    save_dataset(workspace, "plain", Dataset(format="jsonl", source="test", passages=PASSAGES, questions=QUESTIONS))
    run = run_record({"id": "r1", "config": json.dumps({"dataset": "plain"})})
    shown = [{"id": "p1"}, {"id": "p2"}]
    spans, ids = QUESTIONS
    assert not SpanGold(workspace, "plain").has_gold(spans)  # eval-retrieval leaves it out: no documents corpus
    assert gold_of(workspace, run, spans, shown) is None
    assert gold_of(workspace, run, ids, shown) == [False, True]
