"""Settings tables show the stop that applies (a short-answer template stops at a newline though the model's stop
list is empty), never `[]`; an empty answer's cell says "(empty answer)"."""

from __future__ import annotations

from playground.app.screens.ab.data import chosen_settings, settings_rows
from playground.app.screens.side_by_side.grid_rows import cell
from playground.runs.stops import run_answer_format
from playground.prompts.library import load_template


def test_a_short_answer_runs_stop_is_the_newline_its_template_adds():
    config = {"dataset": "tiny", "program": "rag", "params": {"stop": []}}
    assert chosen_settings(config, "short")["stop"] == '"\\n" (short-answer template)'
    assert chosen_settings(config, "long")["stop"] == "none"
    assert chosen_settings(config)["stop"] == "none"  # the template unknown: the model's own, never "[]"
    off = {**config, "options": {"stop_at_newline": False}}
    assert chosen_settings(off, "short")["stop"] == "none"
    rows = settings_rows(config, {**config, "params": {"stop": ["###"]}}, ("short", "short"))
    [stop] = [row for row in rows if row["setting"] == "stop"]
    assert stop["A"] == '"\\n" (short-answer template)' and stop["B"] == '"###", "\\n" (short-answer template)'


def test_the_answer_format_is_read_from_the_runs_prompt_version(tiny_workspace):
    from playground.store.prompts import save_prompt_version

    version = save_prompt_version(tiny_workspace, load_template("rag-short-answer"))
    assert run_answer_format(tiny_workspace, {"prompt_versions": {"main": version}}) == "short"
    assert run_answer_format(tiny_workspace, {"prompt_versions": {}}) is None


def test_the_side_by_side_variant_settings_show_the_stop_that_applies():
    from playground.runs.variants import ModelChoice, RetrieverChoice, Variant
    from playground.models.base import GenerationParams

    variant = Variant(
        load_template("rag-short-answer"), RetrieverChoice("bm25", 3), ModelChoice("local:smollm2", GenerationParams())
    )
    assert variant.settings()["stop"] == '"\\n" (short-answer template)'


def test_an_empty_answer_says_so_in_its_cell():
    assert cell({"question_id": "q", "prediction": ""}, "em")["answer"] == "(empty answer)"
    assert cell({"question_id": "q", "prediction": "  "}, "em")["answer"] == "(empty answer)"
    assert cell({"question_id": "q", "prediction": "Paris"}, "em")["answer"] == "Paris"
    assert cell(None, "em")["answer"] is None
