"""`playground render` and `playground templates` in process, on the tiny workspace."""

import json

from playground.cli import main
from playground.prompts.library import load_template
from playground.store.datasets import get_question
from playground.store.prompts import save_prompt_version


def _run(capsys, *argv):
    code = main(list(argv))
    captured = capsys.readouterr()
    return code, captured.out, captured.err


def test_render_text(tiny_workspace, capsys):
    code, out, _ = _run(
        capsys,
        "render",
        "--db",
        str(tiny_workspace.path),
        "--template",
        "direct-short-answer",
        "--dataset",
        "tiny",
        "--question",
        "q1",
    )
    assert code == 0
    assert "--- system ---" in out and "--- user ---" in out
    assert f"Question: {get_question(tiny_workspace, 'tiny', 'q1').text}" in out
    assert out.index("--- system ---") < out.index("--- user ---")


def test_render_json_without_retriever_has_no_passages(tiny_workspace, capsys):
    code, out, _ = _run(
        capsys,
        "render",
        "--db",
        str(tiny_workspace.path),
        "--template",
        "rag-short-answer",
        "--dataset",
        "tiny",
        "--question",
        "q2",
        "--json",
    )
    assert code == 0
    payload = json.loads(out)
    assert payload["template"] == "rag-short-answer"
    assert payload["variables_needed"] == ["passages", "question"]
    assert [m["role"] for m in payload["messages"]] == ["system", "user"]
    assert "[1]" not in payload["messages"][1]["content"]
    assert "What is the capital of Germany?" in payload["messages"][1]["content"]


def test_render_multiple_choice_shows_choices(tiny_workspace, capsys):
    code, out, _ = _run(
        capsys,
        "render",
        "--db",
        str(tiny_workspace.path),
        "--json",
        "--template",
        "multiple-choice",
        "--dataset",
        "tiny",
        "--question",
        "q6",
    )
    assert code == 0
    user = json.loads(out)["messages"][1]["content"]
    assert "A) Paris\nB) Madrid\nC) Berlin\nD) Rome" in user


def test_render_few_shot_takes_examples_from_other_questions(tiny_workspace, capsys):
    code, out, _ = _run(
        capsys,
        "render",
        "--db",
        str(tiny_workspace.path),
        "--json",
        "--template",
        "few-shot",
        "--dataset",
        "tiny",
        "--question",
        "q1",
        "--shots",
        "2",
    )
    assert code == 0
    user = json.loads(out)["messages"][1]["content"]
    assert user.count("Answer:") == 3
    assert "Answer: Berlin" in user and get_question(tiny_workspace, "tiny", "q1").text in user
    assert "Answer: Paris" not in user  # the question itself is never its own example


def test_render_with_bm25_retriever(tiny_workspace, capsys):
    code, out, _ = _run(
        capsys,
        "render",
        "--db",
        str(tiny_workspace.path),
        "--json",
        "--template",
        "rag-short-answer",
        "--dataset",
        "tiny",
        "--question",
        "q3",
        "--retriever",
        "bm25",
        "-k",
        "2",
    )
    assert code == 0
    user = json.loads(out)["messages"][1]["content"]
    assert "[1] " in user and "[2] " in user and "[3] " not in user
    assert "Seine: The Seine is a river" in user


def test_render_template_file_and_saved_version(tiny_workspace, capsys, tmp_path):
    path = tmp_path / "mine.jinja"
    path.write_text("### system\nBe terse.\n### user\nQ={{ question }}\n")
    code, out, _ = _run(
        capsys,
        "render",
        "--db",
        str(tiny_workspace.path),
        "--json",
        "--template-file",
        str(path),
        "--dataset",
        "tiny",
        "--question",
        "q4",
    )
    assert code == 0
    assert json.loads(out)["messages"][1]["content"] == "Q=Who created the Python programming language?"

    edited = load_template("direct-short-answer").with_changes(system="Only the name.")
    version = save_prompt_version(tiny_workspace, edited)
    code, out, _ = _run(
        capsys,
        "render",
        "--db",
        str(tiny_workspace.path),
        "--json",
        "--template",
        f"direct-short-answer@{version[:7]}",
        "--dataset",
        "tiny",
        "--question",
        "q4",
    )
    assert code == 0
    assert json.loads(out)["messages"][0]["content"] == "Only the name."


def test_template_error_exits_1_with_one_line(tiny_workspace, capsys, tmp_path):
    path = tmp_path / "broken.jinja"
    path.write_text("{#\nname: broken\n#}\n### system\nok\n### user\nQ: {{ question }}\n{{ pasages }}\n")
    code, out, err = _run(
        capsys,
        "render",
        "--db",
        str(tiny_workspace.path),
        "--template-file",
        str(path),
        "--dataset",
        "tiny",
        "--question",
        "q1",
    )
    assert code == 1
    assert out == ""
    assert err.strip() == "error: template 'broken', user part, line 2 (file line 8), column 4: 'pasages' is undefined"


def test_unknown_question_and_template_are_user_errors(tiny_workspace, capsys):
    code, _, err = _run(
        capsys,
        "render",
        "--db",
        str(tiny_workspace.path),
        "--template",
        "rag-short-answer",
        "--dataset",
        "tiny",
        "--question",
        "nope",
    )
    assert code == 1 and "no question with id 'nope'" in err
    code, _, err = _run(
        capsys,
        "render",
        "--db",
        str(tiny_workspace.path),
        "--template",
        "missing",
        "--dataset",
        "tiny",
        "--question",
        "q1",
    )
    assert code == 1 and "no template named 'missing'" in err


def test_templates_list(capsys):
    code, out, _ = _run(capsys, "templates", "list", "--json")
    assert code == 0
    rows = {row["name"]: row for row in json.loads(out)}
    assert rows["multiple-choice"]["answer_format"] == "letter"
    assert rows["rag-cot"]["variables"] == ["passages", "question"]
    code, out, _ = _run(capsys, "templates", "list")
    assert code == 0 and "rag-citations" in out


def test_templates_versions(tiny_workspace, capsys):
    base = load_template("rag-cot")
    first = save_prompt_version(tiny_workspace, base, message="start")
    second = save_prompt_version(tiny_workspace, base.with_changes(system="Think, then answer."))
    save_prompt_version(tiny_workspace, load_template("persona"))
    code, out, _ = _run(capsys, "templates", "versions", "rag-cot", "--db", str(tiny_workspace.path), "--json")
    assert code == 0
    rows = json.loads(out)
    assert [row["id"] for row in rows] == [second, first]
    assert rows[0]["parent"] == first and rows[1]["message"] == "start"
    code, out, _ = _run(capsys, "templates", "versions", "--db", str(tiny_workspace.path))
    assert code == 0 and len(out.strip().splitlines()) == 3


def test_a_template_name_too_long_for_a_file_name_is_one_line(tiny_workspace, capsys):
    name = "a" * 310  # the file system refuses names over 255 bytes ("File name too long")
    code, _, err = _run(
        capsys, "render", "--db", str(tiny_workspace.path), "--template", name, "--dataset", "tiny", "--question", "q1"
    )
    assert code == 1 and err.count("\n") == 1
    assert err.startswith("error: template name of 310 characters is too long (at most 200)")
    long_path = "/tmp/" + "b" * 300 + ".jinja"
    code, _, err = _run(
        capsys,
        "render",
        "--db",
        str(tiny_workspace.path),
        "--template",
        long_path,
        "--dataset",
        "tiny",
        "--question",
        "q1",
    )
    assert code == 1 and err.startswith("error: template ") and "File name too long" in err
