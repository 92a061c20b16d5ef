"""`playground templates label|labels|export` and labels beside `templates versions`, in process."""

from __future__ import annotations

import json

import playground.prompts
from playground.cli import main
from playground.prompts.library import load_template
from playground.store.prompt_labels import label_moves
from playground.store.prompts import save_prompt_version


def _run(capsys, *argv):
    code = main(list(argv))
    captured = capsys.readouterr()
    return code, captured.out, captured.err


def _versions(workspace) -> tuple[str, str]:
    original = load_template("rag-short-answer")
    return (
        save_prompt_version(workspace, original),
        save_prompt_version(workspace, original.with_changes(system="Answer in one word.")),
    )


def test_label_moves_are_kept_and_shown_beside_versions(workspace, capsys):
    first, second = _versions(workspace)
    db = str(workspace.path)
    code, out, _ = _run(capsys, "templates", "label", f"rag-short-answer@{first[:6]}", "prod", "--db", db)
    assert code == 0 and out.strip() == f"rag-short-answer@prod: (new) -> {first}"
    code, out, _ = _run(capsys, "templates", "label", f"rag-short-answer@{second}", "prod", "--by", "ci", "--db", db)
    assert code == 0 and out.strip() == f"rag-short-answer@prod: {first} -> {second}"
    code, out, _ = _run(capsys, "templates", "label", "rag-short-answer@prod", "staging", "--db", db)
    assert code == 0 and second in out
    code, out, _ = _run(capsys, "templates", "labels", "--history", "--json", "--db", db)
    moves = json.loads(out)
    assert [(m["label"], m["version"], m["previous_version"], m["moved_by"]) for m in moves] == [
        ("staging", second, None, "playground templates label"),
        ("prod", second, first, "ci"),
        ("prod", first, None, "playground templates label"),
    ]
    code, out, _ = _run(capsys, "templates", "versions", "--json", "--db", db)
    assert {v["id"]: v["labels"] for v in json.loads(out)} == {second: ["prod", "staging"], first: []}


def test_a_bad_label_is_one_line_and_moves_nothing(workspace, capsys):
    first, _ = _versions(workspace)
    for argv, said in [
        (("templates", "label", f"rag-short-answer@{first}", "beef"), "hexadecimal digits only"),
        (("templates", "label", "rag-short-answer", "prod"), "is not TEMPLATE@VERSION"),
        (("templates", "label", f"rag-cot@{first}", "prod"), "belongs to template 'rag-short-answer'"),
        (("templates", "label", "rag-short-answer@nolabel", "prod"), "has no label 'nolabel'"),
    ]:
        code, out, err = _run(capsys, *argv, "--db", str(workspace.path))
        assert code != 0 and out == "" and said in err and len(err.strip().splitlines()) == 1
    assert label_moves(workspace) == []


def test_export_writes_text_variables_version_and_render_settings(workspace, capsys, tmp_path):
    first, _ = _versions(workspace)
    db = str(workspace.path)
    _run(capsys, "templates", "label", f"rag-short-answer@{first}", "prod", "--db", db)
    target = tmp_path / "prompt.json"
    code, out, _ = _run(capsys, "templates", "export", "rag-short-answer@prod", "-o", str(target), "--db", db)
    assert code == 0 and first in out
    exported = json.loads(target.read_text(encoding="utf-8"))
    loaded = playground.prompts.load("rag-short-answer", label="prod", db=db)
    assert exported["version_id"] == first == loaded.version_id and exported["label"] == "prod"
    assert exported["text"] == loaded.text and exported["variables"] == ["passages", "question"]
    assert exported["render"]["budget"]["seconds"] > 0 and exported["render"]["passage_fields"][:3] == [
        "id",
        "title",
        "text",
    ]
    code, _, err = _run(capsys, "templates", "export", "rag-short-answer@prod", "-o", str(target), "--db", db)
    assert code != 0 and "exists" in err
