"""docs/extending.md is executable: each example in it (a retriever, a provider, a program, a metric, a judge) is
built from the doc's own code blocks as a plugin distribution, pip-installed into a temporary folder, loaded through
the `playground.plugins` entry point and run through the CLI on the tiny benchmark against a real local HTTP
server. A broken copy of the doc fails, so the doc cannot drift from the code again."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from tests import openai_server
from tests.openai_server import OpenAIServer
from tests.plugins.distributions import REPO, CliSession, install, registered, write_distribution

DOC = REPO / "docs" / "extending.md"
BLOCK = re.compile(r"<!-- file: (?P<path>\S+) -->\n```[\w-]*\n(?P<body>.*?)\n```", re.S)
JUDGE_REPLY = '{"score": 1, "reason": "it says only what was asked"}'


def doc_distributions(text: str) -> dict[str, dict[str, str]]:
    """{distribution: {relative path: text}} from the code blocks the doc names a file for."""
    found: dict[str, dict[str, str]] = {}
    for block in BLOCK.finditer(text):
        distribution, _, relative = block["path"].partition("/")
        found.setdefault(distribution, {})[relative] = block["body"] + "\n"
    return found


def build_and_install(text: str, names: list[str], root: Path) -> Path:
    distributions = doc_distributions(text)
    folders = []
    for name in names:
        files = dict(distributions[name])
        pyproject = files.pop("pyproject.toml", None)  # shown once in the doc; the others are made the same way
        folders.append(write_distribution(root / "src", name, files, pyproject))
    target = root / "site"
    install(folders, target)
    return target


class Context:
    """The examples' commands, run in one CLI session with the installed examples on its path (closed by close())."""

    def __init__(self, target: Path, db: str, server: OpenAIServer):
        self.target, self.db, self.server = target, db, server
        self.env = {"GATEWAY_URL": server.url, "GATEWAY_API_KEY": "gateway-secret-key-1234"}
        self.cli = CliSession(target, env=self.env)
        self._plugins: dict | None = None

    def plugins(self) -> dict:
        """`playground plugins --json`, asked once: every example is installed before the first check runs."""
        if self._plugins is None:
            self._plugins = self.json("plugins")
        return self._plugins

    def json(self, *argv: str) -> dict:
        return self.cli.json(*argv, "--db", self.db)

    def run(self, *argv: str) -> dict:
        return self.json("run", "--dataset", "tiny", "--max-tokens", "8", *argv)


def check_retriever(ctx: Context) -> None:
    row = registered(ctx.plugins(), "retrievers", "tfidf")
    assert row["distribution"] == "playground-tfidf" and not row["builtin"]
    hits = ctx.json("retrieve", "--dataset", "tiny", "--retriever", "tfidf", "-k", "2", "capital of France")["hits"]
    assert [hit["id"] for hit in hits][:1] == ["p1"] and len(hits) == 2
    refused = ctx.cli(
        "retrieve",
        "--db",
        ctx.db,
        "--dataset",
        "tiny",
        "--retriever",
        "tfidf",
        "--param",
        "min_df=0",
        "France",
    )
    assert refused.returncode == 1 and "'min_df'=0 is outside [1" in refused.stderr


def check_provider(ctx: Context) -> None:
    row = registered(ctx.plugins(), "providers", "gateway")
    assert row["secret_env_vars"] == ["GATEWAY_API_KEY"] and row["distribution"] == "playground-gateway"
    tried = ctx.json("models", "try", "What is the capital of France?", "--model", "gateway:ok")
    assert tried["text"] == "Paris" and tried["model"]["provider"] == "gateway"
    assert tried["model"]["key_from"] == "GATEWAY_API_KEY"
    done = ctx.run("--model", "gateway:ok", "--sample", "2")
    assert done["n"] == 2 and done["errors"] == 0


def check_program(ctx: Context) -> None:
    registered(ctx.plugins(), "programs", "reread")
    done = ctx.run(
        "--program", "reread", "--retriever", "bm25", "-k", "2", "--model", ctx.server.spec(), "--option", "rounds=3"
    )
    assert done["n"] == 6 and done["errors"] == 0, done
    [run] = [r for r in ctx.json("runs") if r["id"] == done["run_id"]]
    assert run["settings"]["program"] == "reread"
    spans = ctx.json("trace", done["run_id"], "q1")["spans"]
    render = next(child for child in spans[0]["children"] if child["kind"] == "render")
    assert render["inputs"]["variables"]["question"].count("Read the question again") == 2
    bad = ctx.cli(
        "run",
        "--db",
        ctx.db,
        "--dataset",
        "tiny",
        "--program",
        "reread",
        "--model",
        ctx.server.spec(),
        "--option",
        "rounds=0",
    )
    assert bad.returncode == 1 and "rounds" in bad.stderr


def check_metric(ctx: Context) -> None:
    row = registered(ctx.plugins(), "metrics", "extra_words")
    assert row["higher_is_better"] is False
    done = ctx.run("--model", ctx.server.spec(), "--sample", "6")
    assert "extra_words" in done["metrics"], done["metrics"]
    trace = ctx.json("trace", done["run_id"], "q1")  # the server answers "Paris": no extra word
    assert trace["result"]["scores"]["extra_words"] == 0.0
    listing = ctx.cli("runs", "--db", ctx.db)
    assert "extra_words" in listing.stdout.splitlines()[0]


def check_judge(ctx: Context) -> None:
    registered(ctx.plugins(), "judges", "concise")
    done = ctx.run("--model", ctx.server.spec(), "--sample", "3")
    report = ctx.json("judge", "concise", done["run_id"], "--judge-model", ctx.server.spec("judge"))
    assert report["kind"] == "concise" and report["n_items"] == 3 and report["n_failed"] == 0, report
    assert report["score"]["mean"] == 1.0 and report["items"][0]["reasons"] == ["it says only what was asked"]
    # First-class, as a built-in judge is: `run --judge`, `runs` and `compare` read its scores as the run's metric.
    judged = ctx.run(
        "--model", ctx.server.spec(), "--sample", "3", "--judge", "concise", "--judge-model", ctx.server.spec("judge")
    )
    listing = ctx.cli("runs", "--db", ctx.db)
    assert "concise" in listing.stdout.splitlines()[0], listing.stdout
    compared = ctx.json("compare", done["run_id"], judged["run_id"])
    assert "concise" in compared["metrics"], compared["metrics"].keys()
    assert compared["metrics"]["concise"]["n"] == 3, compared["metrics"]["concise"]


EXAMPLES = {
    "playground-tfidf": check_retriever,
    "playground-gateway": check_provider,
    "playground-reread": check_program,
    "playground-extra-words": check_metric,
    "playground-concise": check_judge,
}


def failures(text: str, names: list[str], root: Path, db: str, server: OpenAIServer) -> dict[str, str]:
    """{example: what failed} for the doc `text` (empty when every example builds, loads and runs)."""
    target = build_and_install(text, names, root)
    ctx = Context(target, db, server)
    found = {}
    try:
        for name in names:
            try:
                EXAMPLES[name](ctx)
            except AssertionError as error:
                found[name] = str(error)
    finally:
        ctx.cli.close()
    return found


@pytest.fixture
def judging_server(monkeypatch):
    """The OpenAI-speaking test server; judge prompts (they ask about concision) get a JSON verdict."""
    answer = openai_server.reply_for
    monkeypatch.setattr(
        openai_server, "reply_for", lambda prompt: JUDGE_REPLY if "concise" in prompt else answer(prompt)
    )
    server = OpenAIServer().start()
    yield server
    server.close()


@pytest.mark.slow
def test_every_example_in_the_doc_installs_loads_and_runs(tiny_workspace, judging_server, tmp_path):
    text = DOC.read_text(encoding="utf-8")
    assert sorted(doc_distributions(text)) == sorted(EXAMPLES)
    assert failures(text, list(EXAMPLES), tmp_path, str(tiny_workspace.path), judging_server) == {}


@pytest.mark.slow
def test_a_broken_example_in_a_copy_of_the_doc_fails(tiny_workspace, judging_server, tmp_path):
    text = DOC.read_text(encoding="utf-8")
    broken = text.replace("/ len(words)", "/ len(word)")  # a typo in the metric example: NameError when scored
    assert broken != text
    found = failures(broken, ["playground-extra-words"], tmp_path, str(tiny_workspace.path), judging_server)
    assert "extra_words" in found["playground-extra-words"] and "NameError" in found["playground-extra-words"]
