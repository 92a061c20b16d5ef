"""(b) Session files mutated one field at a time from a real export: `session import` takes the file and every reader
can use what it stored (and the session exports again into a file that imports), or refuses it in one line and leaves
the workspace's dump as it was. The export holds every section a reader trips on: ratings, judgments and a rating
sample, a prompt search, a documents corpus's chunking."""

from __future__ import annotations

import copy
import json
import math
import shutil
from pathlib import Path

import pytest
from hypothesis import given
from hypothesis import strategies as st

from playground.store import open_workspace
from playground.store.datasets import save_dataset
from playground.sessionfile import with_digest
from playground.store.ratings import add_rating
from playground.store.sessions import new_session
from tests.conftest import tiny_dataset
from tests.fuzz.outcome import assert_well_behaved, dump, invoke
from tests.store.test_session_writer_rules import add_judged_sample, with_search_and_chunking
from tests.store.test_sessions import add_runs

# What one field becomes: each a kind of value a hand-edited or hostile file holds.
REPLACEMENTS = {
    "null": None,
    "huge integer": 10**30,
    "negative huge integer": -(10**30),
    "int64 max + 1": 2**63,
    "lone surrogate": "\ud800",
    "lone low surrogate": "x\udfff",
    "control characters": "\x1b[2J\x1b]0;pwned\x07\x00\r\nforged row",
    "NaN": math.nan,
    "Infinity": math.inf,
    "-Infinity": -math.inf,
    "empty string": "",
    "empty object": {},
    "empty list": [],
    "a list of a string": ["x"],
    "an object": {"a": 1},
    "true": True,
    "zero": 0,
    "negative": -1,
    "a float": 0.5,
    "a long string": "y" * 100_000,
}


class Short(dict):
    """A dict with a short repr, so that a failing example prints what was changed, not a whole file."""

    def __repr__(self) -> str:
        return f"<{self.get('what', 'the export and its import target')}>"


@pytest.fixture(scope="module")
def files(tmp_path_factory) -> Short:
    """A real export (`session export` of a workspace with two runs), and an import target with its SQL dump."""
    folder = tmp_path_factory.mktemp("fuzz-sessions")
    source = folder / "source.db"
    workspace = open_workspace(source)
    save_dataset(workspace, "tiny", tiny_dataset())
    run_ids = add_runs(workspace, new_session(workspace, "study")["id"])
    add_rating(workspace, run_ids[0], "q1", "metric", 0.8, note="good", metric="faithfulness")
    add_rating(workspace, run_ids[0], "q2", "pairwise", 1.0, other_run_id=run_ids[1])
    add_judged_sample(workspace)
    workspace.close()
    exported = folder / "study.json"
    outcome = invoke(["session", "export", "study", "-o", str(exported), "--db", str(source)])
    assert outcome.code == 0, outcome.describe()
    target = folder / "target.db"
    workspace = open_workspace(target)
    save_dataset(workspace, "tiny", tiny_dataset())
    workspace.close()
    payload = with_search_and_chunking(json.loads(exported.read_text(encoding="utf-8")))
    return Short(payload=payload, target=target, dump=dump(target))


def leaf_paths(value, path=()) -> list[tuple]:
    """Every place in the payload a field sits (objects' keys, lists' items), containers included."""
    found = [path] if path else []
    if isinstance(value, dict):
        for key, item in value.items():
            found += leaf_paths(item, path + (key,))
    elif isinstance(value, list):
        for index, item in enumerate(value):
            found += leaf_paths(item, path + (index,))
    return found


def _parent(payload, path):
    node = payload
    for step in path[:-1]:
        node = node[step]
    return node


def replace_field(payload: dict, path: tuple, value) -> str:
    _parent(payload, path)[path[-1]] = copy.deepcopy(value)
    return f"{path} = {value!r:.60}"


def drop_field(payload: dict, path: tuple) -> str:
    parent = _parent(payload, path)
    parent.pop(path[-1])
    return f"dropped {path}"


def duplicate_id(payload: dict, section: str, index: int) -> str:
    records = payload[section]
    records[index]["id"] = records[(index + 1) % len(records)]["id"]
    return f"{section}[{index}].id duplicated"


def span_cycle(payload: dict, index: int, length: int) -> str:
    """Parents in a loop among `length` spans of one trace (1: a span its own parent)."""
    spans = payload["spans"]
    first = spans[index % len(spans)]
    trace = [
        s
        for s in spans
        if (s["run_id"], s["question_id"], s["repeat"]) == (first["run_id"], first["question_id"], first["repeat"])
    ][:length]
    for span, parent in zip(trace, trace[1:] + trace[:1]):
        span["parent_id"] = parent["id"]
    return f"a loop of {len(trace)} spans"


# Sections a reader trips on when a value breaks the rules the tool writes it by (data list, judge estimate, a
# search's resume, a re-export), mutated more often than their share of the file's fields would give them.
CHECKED_SECTIONS = ("ratings", "rating_samples", "optimizations")


def _in_checked_section(path: tuple) -> bool:
    return path[0] in CHECKED_SECTIONS or (path[0] == "benchmarks" and "corpus_metadata" in path)


@st.composite
def mutations(draw, payload: dict):
    """A copy of the payload with one field (or one structure) changed, and what was changed."""
    mutated = copy.deepcopy(payload)
    paths = [p for p in leaf_paths(payload) if p[0] != "digest"]
    kinds = ["replace", "replace", "replace", "drop", "duplicate id", "span cycle", "unknown key", "checked section"]
    kind = draw(st.sampled_from(kinds))
    if kind == "replace":
        path = draw(st.sampled_from(paths))
        what = replace_field(mutated, path, REPLACEMENTS[draw(st.sampled_from(sorted(REPLACEMENTS)))])
    elif kind == "checked section":  # a field of a section held to the writer's rules, replaced or dropped
        path = draw(st.sampled_from([p for p in paths if _in_checked_section(p)]))
        if draw(st.booleans()) and isinstance(path[-1], str):
            what = drop_field(mutated, path)
        else:
            what = replace_field(mutated, path, REPLACEMENTS[draw(st.sampled_from(sorted(REPLACEMENTS)))])
    elif kind == "drop":
        path = draw(st.sampled_from([p for p in paths if isinstance(p[-1], str)]))
        what = drop_field(mutated, path)
    elif kind == "duplicate id":
        section = draw(st.sampled_from([s for s in ("runs", "spans", "prompt_versions") if len(payload[s]) > 1]))
        what = duplicate_id(mutated, section, draw(st.integers(0, len(payload[section]) - 1)))
    elif kind == "span cycle":
        what = span_cycle(mutated, draw(st.integers(0, len(payload["spans"]) - 1)), draw(st.integers(1, 3)))
    else:
        path = draw(st.sampled_from([p for p in paths if isinstance(_parent(payload, p), dict)] or [("session", "id")]))
        parent = _parent(mutated, path)
        parent["\x1b[31mextra"] = REPLACEMENTS[draw(st.sampled_from(sorted(REPLACEMENTS)))]
        what = f"unknown key beside {path}"
    return Short(payload=mutated, what=what)


def write_file(payload: dict, path: Path) -> None:
    """The payload with a fresh digest (the change is what the import meets, not a stale digest), as JSON with
    ASCII escapes: a lone surrogate stays valid JSON, NaN and Infinity are written as their JSON tokens."""
    try:
        payload = with_digest(payload)
    except (UnicodeEncodeError, ValueError, TypeError):
        pass  # a value the digest cannot be computed over: the file keeps its old digest, the import refuses it
    path.write_text(json.dumps(payload, ensure_ascii=True), encoding="ascii")


def readers_can_use(db: str, session_id: str, folder: Path, target: Path) -> None:
    """Every reader of an imported session: `session list`, `data list`, `runs --json`, `trace` of each result,
    `compare`, `judge estimate`; and the session exports again into a file another copy of the target imports."""
    assert_well_behaved(invoke(["session", "list", "--db", db]))
    assert_well_behaved(invoke(["data", "list", "--db", db]))
    again, other = folder / "again.json", folder / "again.db"
    exported = invoke(["session", "export", session_id, "-o", str(again), "--db", db])
    assert exported.code == 0, exported.describe()
    shutil.copyfile(target, other)
    reimported = invoke(["session", "import", str(again), "--db", str(other)])
    assert reimported.code == 0, f"the imported session's export is refused: {reimported.describe()}"
    listed = invoke(["runs", "--session", session_id, "--json", "--db", db])
    assert_well_behaved(listed)
    if listed.code != 0:
        return
    runs = json.loads(listed.out)
    runs = runs.get("runs", runs) if isinstance(runs, dict) else runs
    run_ids = [run["id"] for run in runs]
    for run_id in run_ids:
        for question_id in ("q1", "q6"):
            assert_well_behaved(invoke(["trace", run_id, question_id, "--db", db]))
    for run_id in run_ids:
        assert_well_behaved(invoke(["judge", "estimate", run_id, "--db", db]))
    if len(run_ids) >= 2:
        assert_well_behaved(invoke(["compare", *run_ids[:2], "--resamples", "200", "--db", db]))
        assert_well_behaved(invoke(["compare", *run_ids[:2], "--resamples", "200", "--json", "--db", db]))


@given(data=st.data())
def test_a_mutated_session_file_imports_usably_or_is_refused_in_one_line(files, tmp_path_factory, data):
    mutation = data.draw(mutations(files["payload"]), label="mutation")
    mutated, what = mutation["payload"], mutation["what"]
    folder = tmp_path_factory.mktemp("example")
    target = folder / "target.db"
    shutil.copyfile(files["target"], target)
    session_file = folder / "mutated.json"
    write_file(mutated, session_file)
    outcome = invoke(["session", "import", str(session_file), "--db", str(target), "--json"])
    assert_well_behaved(outcome)
    if outcome.code == 0:
        readers_can_use(str(target), json.loads(outcome.out)["session_id"], folder, files["target"])
    else:
        assert dump(target) == files["dump"], f"the workspace changed on a refusal ({what})"
    shutil.rmtree(folder, ignore_errors=True)
