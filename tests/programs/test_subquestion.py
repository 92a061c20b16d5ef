"""`subquestion`: split, retrieve and judge each sub-question (refining the query), synthesise from verified answers."""

from __future__ import annotations

import pytest
import json

from playground.programs.subquestion import parse_judgment, parse_subquestions, subquestion
from playground.retrieval.index import open_retriever
from playground.store.datasets import get_question
from tests.programs.scripted import ScriptedModel, children, named, program_context


def test_parse_subquestions_drops_numbering_duplicates_and_headers():
    text = "Simple questions:\n1. What is the Prado?\n2) Where is the Prado?\n- where is the prado?\n* Who built it?"
    assert parse_subquestions(text, 2) == ["What is the Prado?", "Where is the Prado?"]
    assert parse_subquestions("Question: Who built it?\n- 3. When?", 3) == ["Who built it?", "When?"]
    assert parse_subquestions("", 3) == []


def test_parse_judgment_reads_json_and_falls_back_to_yes_no():
    verdict = parse_judgment('```json\n{"judgment": false, "feedback": "Prado museum city"}\n```')
    assert verdict == {"judgment": False, "feedback": "Prado museum city", "answer": "", "json": True}
    assert parse_judgment('{"judgment": "true", "feedback": "[1]", "answer": "Madrid"}')["judgment"] is True
    assert parse_judgment("Yes, passage [1] says so.")["judgment"] is True
    assert parse_judgment("No.")["judgment"] is False


def _scripted_exam():
    """Split into two sub-questions; the first is rejected once (with a better query), the second passes at once."""
    judged = []

    def reply(prompt: str, params) -> str:
        if "Simple questions:" in prompt:
            return "1. Which museum is in Madrid?\n2. Which city is the capital of Spain?"
        if '"reasoning"' in prompt:
            return json.dumps({"reasoning": "The Prado is in Madrid, option B.", "answer": "B"})
        if "Which museum is in Madrid?" in prompt:
            judged.append(prompt)
            if len(judged) > 1:
                return json.dumps({"judgment": True, "feedback": "[1]", "answer": "the Prado"})
            return json.dumps({"judgment": False, "feedback": "largest city of France"})
        return json.dumps({"judgment": True, "feedback": "[1]", "answer": "Madrid"})

    return reply


def test_the_workflow_refines_a_rejected_query_and_synthesises_from_verified_sub_answers(tiny_workspace):
    retriever = open_retriever(tiny_workspace, "tiny", "bm25")
    model = ScriptedModel(_scripted_exam())
    context = program_context(
        tiny_workspace, model, subquestion, retriever=retriever, corpus="tiny", k=1, options={"max_rounds": 3}
    )
    question = get_question(tiny_workspace, "tiny", "q6")
    output = subquestion.run(context, question)

    spans = context.tracer.spans
    assert named(spans, "split").outputs["subquestions"] == [
        "Which museum is in Madrid?",
        "Which city is the capital of Spain?",
    ]
    first, second = named(spans, "subquestion 1"), named(spans, "subquestion 2")
    rounds = [s for s in children(spans, first) if s.kind == "step"]
    assert [r.name for r in rounds] == ["round 1", "round 2"]
    assert rounds[0].outputs["judgment"] is False and rounds[1].outputs["judgment"] is True
    assert [s.kind for s in children(spans, rounds[0])] == ["retrieve", "render", "generate", "parse"]
    assert children(spans, rounds[1])[0].inputs["query"] == "largest city of France"  # the judge's better query
    assert first.outputs["verified"] and first.outputs["rounds"] == 2 and first.outputs["answer"] == "the Prado"
    assert second.outputs["rounds"] == 1 and second.outputs["answer"] == "Madrid"

    synthesis_prompt = model.calls[-1][0]
    assert "Fact: Which museum is in Madrid? the Prado" in synthesis_prompt
    assert "Fact: Which city is the capital of Spain? Madrid" in synthesis_prompt
    assert "B) Madrid" in synthesis_prompt
    assert named(spans, "parse synthesis").outputs["answer"] == output.answer == "B"
    assert output.extra["subanswers"][0] == {
        "question": "Which museum is in Madrid?",
        "answer": "the Prado",
        "verified": True,
    }


def test_a_better_query_finding_the_same_passages_is_not_judged_again(tiny_workspace):
    retriever = open_retriever(tiny_workspace, "tiny", "bm25")
    model = ScriptedModel(
        lambda prompt, params: (
            "1. Where is the Prado?"
            if "Simple questions:" in prompt
            else '{"reasoning": "", "answer": "Madrid"}'
            if '"reasoning"' in prompt
            else '{"judgment": false, "feedback": "Prado museum"}'
        )
    )
    context = program_context(
        tiny_workspace, model, subquestion, retriever=retriever, corpus="tiny", k=1, options={"max_rounds": 3}
    )
    subquestion.run(context, get_question(tiny_workspace, "tiny", "q6"))

    spans = context.tracer.spans
    assert retriever.search("Prado museum", 1)[0].passage_id == retriever.search("Where is the Prado?", 1)[0].passage_id
    second = named(spans, "round 2")
    assert "skipped" in second.outputs and [s.kind for s in children(spans, second)] == ["retrieve"]
    assert not [s for s in spans if s.name == "round 3"]
    assert len([s for s in spans if s.name == "generate judge"]) == 1


def test_rounds_stop_at_max_rounds_and_nothing_verified_falls_back_to_all_passages(tiny_workspace):
    retriever = open_retriever(tiny_workspace, "tiny", "bm25")
    model = ScriptedModel(
        lambda prompt, params: (
            "1. Where is the Prado?"
            if "Simple questions:" in prompt
            else '{"reasoning": "", "answer": "Madrid"}'
            if '"reasoning"' in prompt
            else '{"judgment": false, "feedback": "capital of Germany"}'
        )
    )
    context = program_context(
        tiny_workspace, model, subquestion, retriever=retriever, corpus="tiny", k=1, options={"max_rounds": 2}
    )
    output = subquestion.run(context, get_question(tiny_workspace, "tiny", "q6"))

    spans = context.tracer.spans
    rounds = [s for s in children(spans, named(spans, "subquestion 1")) if s.kind == "step"]
    assert len(rounds) == 2 and not named(spans, "subquestion 1").outputs["verified"]
    synthesis = named(spans, "synthesise")
    assert synthesis.inputs["fell_back_to_all_passages"] is True and synthesis.inputs["verified"] == 0
    gathered = {h["id"] for r in rounds for h in children(spans, r)[0].outputs["hits"]}
    assert set(output.used_passage_ids) == gathered and output.extra["subanswers"] == []


@pytest.mark.slow
def test_subquestion_with_the_real_model_traces_split_judge_and_synthesis(tiny_workspace, smollm2):
    retriever = open_retriever(tiny_workspace, "tiny", "bm25")
    context = program_context(
        tiny_workspace,
        smollm2,
        subquestion,
        max_tokens=8,
        retriever=retriever,
        corpus="tiny",
        k=1,
        options={"max_subquestions": 1, "max_rounds": 1},
    )
    output = subquestion.run(context, get_question(tiny_workspace, "tiny", "q1"))

    spans = context.tracer.spans
    split = named(spans, "split")
    assert [s.kind for s in children(spans, split)] == ["render", "generate", "parse"]
    assert children(spans, split)[0].inputs["template"] == "subquestion-split"
    assert len(split.outputs["subquestions"]) == 1
    round_1 = named(spans, "round 1")
    assert round_1.parent_id == named(spans, "subquestion 1").id
    assert [s.kind for s in children(spans, round_1)] == ["retrieve", "render", "generate", "parse"]
    assert children(spans, round_1)[1].inputs["template"] == "subquestion-judge"
    assert isinstance(round_1.outputs["judgment"], bool)
    synthesis = named(spans, "synthesise")
    assert [s.kind for s in children(spans, synthesis)] == ["render", "generate", "parse"]
    assert children(spans, synthesis)[0].inputs["template"] == "subquestion-synthesise"
    assert children(spans, synthesis)[2].outputs["answer"] == output.answer
