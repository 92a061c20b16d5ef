"""Acceptance: a third-party plugin, installed as a distribution, adds a retriever, a model provider and a metric.
They appear in `--help`, in `playground plugins`, in the app's selectors and in the Side by side grid, runs use them,
and no file of the project is edited. A second distribution that fails to import is named and left out."""

from __future__ import annotations

import subprocess
import sys

import pytest
from streamlit.testing.v1 import AppTest

from playground import plugins
from tests.openai_server import OpenAIServer
from tests.plugins.distributions import REPO, CliSession, install, registered, write_distribution

ACME = '''
"""Acme's playground plugin: a word-overlap retriever, the Acme model gateway, and an answer-length metric."""

import json
import os
import re

from playground.plugins import Metric, ModelProvider, Option, RetrieverKind, hookimpl

WORD = re.compile(r"\\w+")


class OverlapRetriever:
    kind = "acme-overlap"

    def __init__(self, ids, words, params):
        self.ids, self.words, self.params = ids, words, params

    @classmethod
    def build(cls, source, params, path, on_progress=None):
        passages = source.passages()
        index = {"ids": [p.id for p in passages],
                 "words": [sorted(set(WORD.findall((p.title + " " + p.text).lower()))) for p in passages]}
        (path / "overlap.json").write_text(json.dumps(index))
        return {}

    @classmethod
    def load(cls, source, params, path):
        index = json.loads((path / "overlap.json").read_text())
        return cls(index["ids"], [set(words) for words in index["words"]], params)

    @staticmethod
    def versions():
        return {}

    def search(self, query, k):
        from playground.retrieval.base import Hit

        wanted = set(WORD.findall(query.lower()))
        scores = [len(wanted & words) + self.params["c"] for words in self.words]
        best = sorted(range(len(scores)), key=lambda i: (-scores[i], i))[:k]
        return [Hit(passage_id=self.ids[i], score=float(scores[i]), rank=r) for r, i in enumerate(best, 1)]


def load_acme(parsed, spec, api_key=None, context_window=None, retry=None):
    from playground.models.openai_compat import OpenAICompatModel

    return OpenAICompatModel(parsed.model, os.environ["ACME_URL"], spec=spec,
                             api_key=api_key or os.environ.get("ACME_API_KEY") or "none", retry=retry)


def answer_chars(item):
    return float(len(item.prediction))


@hookimpl
def register_retrievers(register):
    register(RetrieverKind("acme-overlap", "playground_acme:OverlapRetriever",
                           options=(Option("c", -3, "a score offset (negative: below another kind's bounds)"),),
                           description="shared words between question and passage"))


@hookimpl
def register_model_providers(register):
    register(ModelProvider("acme", "playground_acme:load_acme", pattern="acme:MODEL", example="acme:acme-large",
                           description="the Acme gateway (ACME_URL)", secret_env_vars=("ACME_API_KEY",)))


@hookimpl
def register_metrics(register):
    register(Metric("acme_chars", "playground_acme:answer_chars", display_name="answer characters",
                    higher_is_better=False, judges_answer=False))
'''


def _project_status() -> str:
    return subprocess.run(
        ["git", "status", "--porcelain", "--untracked-files=all"], cwd=REPO, capture_output=True, text=True, check=True
    ).stdout


@pytest.fixture(scope="module")
def acme(tmp_path_factory):
    """playground-acme 1.2.0 and playground-acme-broken (its module fails to import), pip-installed into a
    target folder; the project's own files before and after."""
    before = _project_status()
    root = tmp_path_factory.mktemp("acme")
    good = write_distribution(
        root / "src", "playground-acme", {"playground_acme.py": ACME}, entry_point="acme", version="1.2.0"
    )
    broken = write_distribution(
        root / "src",
        "playground-acme-broken",
        {"playground_acme_broken.py": 'raise ImportError("acme-broken needs a library that is not installed")\n'},
    )
    target = root / "site"
    install([good, broken], target)
    server = OpenAIServer().start()
    yield {"target": target, "server": server, "before": before}
    server.close()


@pytest.mark.slow
def test_a_third_party_plugin_adds_a_retriever_a_provider_and_a_metric_everywhere(acme, tiny_workspace, monkeypatch):
    target, server, db = acme["target"], acme["server"], str(tiny_workspace.path)
    env = {"ACME_URL": server.url, "ACME_API_KEY": "acme-secret-key-5678"}

    session = CliSession(target, env=env)  # the commands in one child; the plugins load once, in the first
    try:
        listing = session("plugins")
        assert listing.returncode == 0, listing.stderr
        lines = listing.stdout.splitlines()
        for name in ("acme-overlap", "acme", "acme_chars"):
            assert any(line.split()[:3] == [name, "playground-acme", "1.2.0"] for line in lines), (name, lines)
        assert "playground-acme-broken" in listing.stdout and "acme-broken needs a library" in listing.stdout
        assert "acme-broken needs a library" in listing.stderr  # said once on stderr, the rest works

        run_help = session("run", "--help").stdout
        assert "acme-overlap" in run_help and "acme" in run_help.split("providers:")[1].split(")")[0]
        assert "acme_chars: answer characters (lower is better)" in run_help
        assert "acme-overlap" in session("eval-retrieval", "--help").stdout

        report = session.json("plugins")
        assert registered(report, "providers", "acme")["distribution"] == "playground-acme"

        # A parameter named like hybrid's `c` keeps this kind's own (open) bounds.
        hits = session.json(
            "retrieve",
            "--db",
            db,
            "--dataset",
            "tiny",
            "--retriever",
            "acme-overlap",
            "--param",
            "c=-5",
            "-k",
            "1",
            "capital of France",
        )["hits"]
        assert hits[0]["id"] == "p1" and hits[0]["score"] == -2.0  # "capital", "of", "france" shared; offset -5
        run_ids = []
        for k in ("1", "2"):
            done = session.json(
                "run",
                "--db",
                db,
                "--dataset",
                "tiny",
                "--program",
                "rag",
                "--retriever",
                "acme-overlap",
                "-k",
                k,
                "--model",
                "acme:acme-large",
                "--sample",
                "3",
                "--max-tokens",
                "8",
            )
            assert done["errors"] == 0 and "acme_chars" in done["metrics"], done
            run_ids.append(done["run_id"])
        assert "acme_chars" in session("runs", "--db", db).stdout.splitlines()[0]
    finally:
        session.close()

    # The app, in this process, with the installed plugin on its path.
    monkeypatch.syspath_prepend(str(target))
    monkeypatch.setenv("PLAYGROUND_DB", db)
    monkeypatch.setenv("HF_HUB_OFFLINE", "1")
    plugins.reset()
    try:
        _check_the_app(run_ids)
    finally:
        monkeypatch.undo()
        plugins.reset()
        for name in [m for m in sys.modules if m.startswith("playground_acme")]:
            del sys.modules[name]
    assert _project_status() == acme["before"]  # no project file was edited to add all this


def _check_the_app(run_ids: list[str]) -> None:
    from tests.app.conftest import ENTRY, page_path

    side = AppTest.from_file(page_path("side-by-side"), default_timeout=180)
    side.query_params["runs"] = f"A:{run_ids[0]},B:{run_ids[1]}"
    side.run()
    assert not side.exception, side.exception
    assert "acme-overlap" in side.selectbox(key="sbs_0_retriever_kind").options
    assert side.selectbox(key="sbs_0_retriever_kind").value == "acme-overlap"  # the stored run's own setting
    assert "acme:acme-large" in side.selectbox(key="sbs_0_model_spec").options
    assert "acme_chars" in side.selectbox(key="sbs_grid_metric").options
    means = next(t.value for t in side.dataframe if "variant" in t.value.columns)
    assert "acme_chars" in means.columns

    experiments = AppTest.from_file(page_path("experiments"), default_timeout=120).run()
    assert not experiments.exception, experiments.exception
    assert "acme_chars" in experiments.selectbox(key="experiments_metric").options

    app = AppTest.from_file(str(ENTRY), default_timeout=120).run()
    assert not app.exception, app.exception
    assert app.sidebar.text_input(key="_key_input_ACME_API_KEY").label == "ACME_API_KEY"
