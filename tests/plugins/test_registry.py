"""The plugin registry: the built-ins register through the hooks, loading it imports nothing heavy, everything that
used to be a hand-kept list is derived from it, and a bad plugin is named and left out without breaking the rest."""

from __future__ import annotations

import json
import os
import subprocess
import sys

import pytest

from playground import PlaygroundError
from playground.plugins import (
    Metric,
    ModelProvider,
    Option,
    ProgramKind,
    RetrieverKind,
    add_plugin,
    hookimpl,
    registry,
    remove_plugin,
)
from tests.plugins.distributions import REPO
from tests.plugins.helpers import registered

HEAVY = (
    "torch",
    "faiss",
    "sentence_transformers",
    "rouge_score",
    "nltk",
    "scipy",
    "sacrebleu",
    "annoy",
    "bm25s",
    "llama_cpp",
    "transformers",
    "pandas",
    "pymilvus",
    "milvus_lite",
)


def test_the_built_ins_register_through_the_hooks_with_their_origin():
    loaded = registry()
    assert list(loaded.of("retrievers")) == [
        "bm25",
        "bm25-rank",
        "dense",
        "faiss-hnsw",
        "faiss-ivfpq",
        "annoy",
        "milvus",
        "hybrid",
        "http-search",
    ]
    assert list(loaded.of("providers")) == ["local", "openai", "hf", "cohere"]
    assert {"em", "f1", "cover_em", "accuracy", "rougeL", "retrieval_recall"} <= set(loaded.of("metrics"))
    assert list(loaded.of("judges")) == [
        "pointwise",
        "reference",
        "pairwise",
        "faithfulness",
        "context-precision",
        "answer-relevance",
        "citations",
    ]
    assert list(loaded.of("document_parsers")) == ["markdown", "rst", "text", "html", "pdf"]
    assert list(loaded.of("chunkers")) == ["tokens", "sentences", "markdown"]
    origin = loaded.origin("retrievers", "bm25")
    assert origin.builtin and origin.distribution == "playground" and origin.plugin == "playground.retrieval.plugin"
    assert loaded.problems == []


def test_loading_the_registry_imports_no_heavy_library():
    probe = (
        "import json, sys\nfrom playground.plugins import registry\nloaded = registry()\n"
        "print(json.dumps({'kinds': {k: len(v) for k, v in loaded.entries.items()},"
        " 'heavy': sorted({m.split('.')[0] for m in sys.modules} & set(%r))}))" % (HEAVY,)
    )
    done = subprocess.run(
        [sys.executable, "-c", probe],
        capture_output=True,
        text=True,
        timeout=120,
        env={**os.environ, "PYTHONPATH": str(REPO)},
    )
    assert done.returncode == 0, done.stderr
    result = json.loads(done.stdout)
    assert result["kinds"]["retrievers"] == 9 and result["kinds"]["metrics"] >= 6
    assert result["heavy"] == []


class Broken:
    @hookimpl
    def register_retrievers(self, register):
        register(RetrieverKind("half", "no.such.module:Nothing"))
        raise RuntimeError("the plugin's own bug")

    @hookimpl
    def register_metrics(self, register):
        register(Metric("em", "x:y"))  # taken by the built-in
        register(RetrieverKind("wrong-hook", "x:y"))  # a retriever through the metrics hook

    @hookimpl
    def register_widgets(self, register):  # no such hook
        register(None)


def test_a_broken_plugin_is_named_and_left_out_while_the_rest_works():
    add_plugin(Broken(), "broken")
    try:
        loaded = registry()
        problems = "\n".join(loaded.problems)
        assert (
            "plugin 'broken' (in-process) failed in register_retrievers: RuntimeError: the plugin's own bug" in problems
        )
        assert "registers metrics 'em', already registered by plugin 'playground.evaluation.plugin'" in problems
        assert "register_metrics registers Metric records, not RetrieverKind" in problems
        assert "implements register_widgets, which is no hook of playground" in problems
        assert loaded.origin("metrics", "em").builtin  # the first one is kept
        assert "half" in loaded.of("retrievers") and "bm25" in loaded.of("retrievers")
        from playground.retrieval.registry import implementation

        with pytest.raises(PlaygroundError, match="retriever 'half': cannot load 'no.such.module:Nothing'"):
            implementation("half")
    finally:
        remove_plugin("broken")
    assert registry().problems == [] and "half" not in registry().of("retrievers")


def test_a_program_registers_as_itself_or_by_reference():
    from playground.programs.direct import direct
    from playground.programs.registry import get_program, program_names

    with registered(ProgramKind("direct-again", "playground.programs.direct:direct"), name="p"):
        assert get_program("direct-again") is direct and "direct-again" in program_names()
    assert "direct-again" not in program_names()


def test_the_apps_key_fields_and_redaction_come_from_the_providers(monkeypatch):
    from playground.redaction import app_key_vars, redact, secret_env_vars

    assert app_key_vars() == ("OPENAI_API_KEY", "HF_TOKEN", "CO_API_KEY")
    assert {"HUGGING_FACE_HUB_TOKEN", "COHERE_API_KEY"} <= set(secret_env_vars())
    monkeypatch.setenv("ACME_ACCESS", "zq9x5")  # a name and a length nothing else would take for a secret
    assert redact("sent zq9x5") == "sent zq9x5"
    acme = ModelProvider("acme", "x:y", "acme:MODEL", "acme:m", secret_env_vars=("ACME_ACCESS", "ACME_OLD"))
    with registered(acme, name="acme"):
        assert app_key_vars() == ("OPENAI_API_KEY", "HF_TOKEN", "CO_API_KEY", "ACME_ACCESS")
        assert redact("sent zq9x5") == "sent [redacted]"
    assert "ACME_ACCESS" not in app_key_vars()


def test_a_provider_plugin_parses_its_own_specs_or_gets_model_at_url():
    from playground.models.errors import ModelSpecError
    from playground.models.registry import parse_spec

    plain = ModelProvider("plain", "x:y", "plain:MODEL[@URL]", "plain:m")
    with registered(plain, name="plain"):
        assert parse_spec("plain:m@http://127.0.0.1:9/v1").base_url == "http://127.0.0.1:9/v1"
        assert parse_spec("plain:m").model == "m"
        with pytest.raises(ModelSpecError, match="known providers: local, openai, hf, cohere, plain"):
            parse_spec("nope:m")


def test_every_page_picks_the_same_default_metric_from_the_registry():
    from playground.app.screens.side_by_side import grid_rows as grid
    from playground.app.components import run_labels
    from playground.evaluation.scoring import default_metric, summary_metrics

    results = {"A": [{"question_id": "q1", "scores": {"bleu": 0.2, "rougeL": 0.5, "chrf": 0.4}}]}
    assert grid.main_metric(results) == default_metric(["bleu", "rougeL", "chrf"]) == "rougeL"
    assert run_labels.default_threshold("rougeL") == 0.5 and run_labels.default_threshold("em") == 1.0
    assert "rougeL" in summary_metrics()


def test_a_lower_is_better_metric_counts_wins_and_correct_answers_its_way():
    from playground.app.screens.runs.data import outcome
    from playground.evaluation.stats import compare_paired

    with registered(Metric("words", "x:y", higher_is_better=False, judges_answer=False), name="words"):
        compared = compare_paired(
            {"q1": {"words": 5.0, "em": 0.0}, "q2": {"words": 2.0, "em": 1.0}},
            {"q1": {"words": 3.0, "em": 1.0}, "q2": {"words": 2.0, "em": 1.0}},
        )["metrics"]
        assert (compared["words"]["wins"], compared["words"]["losses"]) == (1, 0)  # fewer words is a win
        assert compared["words"]["flipped"]["improved"] == ["q1"] and compared["em"]["wins"] == 1
        assert outcome({"scores": {"words": 0.2}}, "words", 0.5) == "correct"
        assert outcome({"scores": {"words": 0.9}}, "words", 0.5) == "wrong"


def test_a_plugin_metric_is_scored_and_a_failing_one_is_named():
    from playground.evaluation.scoring import score_prediction

    with registered(Metric("shout", lambda item: float(item.prediction.isupper())), name="shout"):
        assert score_prediction("PARIS", ["Paris"])["shout"] == 1.0
        assert score_prediction("PARIS", []) == {}  # needs a reference
    with registered(Metric("oops", lambda item: 1 / 0), name="oops"):
        with pytest.raises(
            PlaygroundError, match=r"metric 'oops' of plugin 'oops' \(in-process\): score failed: ZeroDivisionError"
        ):
            score_prediction("Paris", ["Paris"])


def test_options_are_typed_and_bounded_by_their_own_record():
    option = Option("depth", 10, "how deep", minimum=1, maximum=50)
    assert option.coerce("12", "x") == 12
    with pytest.raises(PlaygroundError, match=r"x 'depth'=0 is outside \[1, 50\]"):
        option.coerce(0, "x")
    with pytest.raises(PlaygroundError, match="not a valid int"):
        option.coerce("deep", "x")
