"""Which settings two run configs differ in, grouped the way a person compares runs."""

from __future__ import annotations

import copy

from playground.evaluation.config_diff import confound_warning, diff_configs, differing_settings
from playground.runs.config import RunConfig


def base() -> dict:
    config = RunConfig(
        dataset="tiny", program="rag", templates={"main": "rag-short-answer"}, retriever="bm25", k=5, sample=50, seed=1
    ).to_dict()
    config.update(
        prompt_versions={"main": "aaaaaaaaaaaa"},
        template_names={"main": "rag-short-answer"},
        retriever_manifest={"kind": "bm25", "fingerprint": "f1", "built_at": "t1", "path": "/a"},
        question_ids=["q1", "q2"],
        versions={"playground": "0.1.0"},
    )
    return config


def changed(**updates) -> dict:
    config = copy.deepcopy(base())
    for key, value in updates.items():
        config[key] = value
    return config


def test_identical_configs_differ_in_nothing():
    assert diff_configs(base(), base()) == []
    assert confound_warning(base(), base()) is None


def test_template_change_is_one_setting_with_its_paths():
    other = changed(prompt_versions={"main": "bbbbbbbbbbbb"}, templates={"main": "rag-short-answer@bbbbbbbb"})
    diff = diff_configs(base(), other)
    assert [d["setting"] for d in diff] == ["template"]
    assert diff[0]["changes"] == [{"path": "prompt_versions.main", "a": "aaaaaaaaaaaa", "b": "bbbbbbbbbbbb"}]
    assert confound_warning(base(), other) is None


def test_build_details_versions_and_cache_use_are_ignored():
    other = changed(
        versions={"playground": "0.2.0"},
        use_cache=False,
        retriever_manifest={"kind": "bm25", "fingerprint": "f1", "built_at": "t2", "path": "/b"},
    )
    assert differing_settings(base(), other) == []
    rebuilt_on_other_corpus = changed(retriever_manifest={"kind": "bm25", "fingerprint": "f2"})
    assert differing_settings(base(), rebuilt_on_other_corpus) == ["retriever"]


def test_k_matters_only_with_a_retriever():
    assert differing_settings(base(), changed(k=3)) == ["k"]
    assert differing_settings(changed(retriever=None, k=5), changed(retriever=None, k=3)) == []


def test_several_settings_give_a_warning_naming_them():
    params = dict(base()["params"], temperature=0.7)
    other = changed(model="local:/m.gguf", params=params, seed=2, question_ids=["q3", "q4"])
    assert differing_settings(base(), other) == ["model", "params", "sample"]
    warning = confound_warning(base(), other)
    assert "3 settings (model, params, sample)" in warning


def test_unknown_keys_count_as_their_own_setting():
    assert differing_settings(base(), changed(judge={"model": "x"})) == ["judge"]
