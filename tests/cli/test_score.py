import json
import random
import subprocess
import sys

import pytest

from playground.cli import main
from playground.evaluation.scoring import score_prediction
from tests.conftest import shared_dataset
from tests.evaluation.test_metrics import reference_em, reference_f1


def _write_jsonl(path, records) -> str:
    path.write_text("".join(json.dumps(record, ensure_ascii=False) + "\n" for record in records), encoding="utf-8")
    return str(path)


def _score_json(capsys, path: str) -> dict:
    assert main(["score", path, "--json"]) == 0
    return json.loads(capsys.readouterr().out)


def test_score_json_per_line_and_mean(tmp_path, capsys):
    path = _write_jsonl(
        tmp_path / "predictions.jsonl",
        [
            {"id": "q1", "prediction": "The Seine.", "answers": ["Seine", "the Seine river"]},
            {"id": "q2", "prediction": "Berlin", "answers": "Paris"},
            {"prediction": "B) Madrid", "answers": ["B"], "choices": ["Paris", "Madrid"]},
            {"id": 4, "prediction": "anything", "answers": []},
        ],
    )
    report = _score_json(capsys, path)
    assert report["n"] == 4
    assert [item["line"] for item in report["items"]] == [1, 2, 3, 4]
    assert [item["id"] for item in report["items"]] == ["q1", "q2", None, 4]
    first, second, third, fourth = (item["scores"] for item in report["items"])
    assert first["em"] == 1.0 and first["f1"] == 1.0 and first["cover_em"] == 1.0
    assert second["em"] == 0.0 and second["f1"] == 0.0
    assert third["accuracy"] == 1.0
    assert fourth == {}
    assert report["mean"]["em"] == pytest.approx(1 / 3)
    assert report["mean"]["accuracy"] == 1.0
    assert set(report["mean"]) >= {"em", "f1", "cover_em", "bleu", "chrf", "rougeL"}
    assert report["corpus"]["signatures"]["bleu"].startswith("corpus/100 nrefs:")
    assert third == score_prediction("B) Madrid", ["B"], ["Paris", "Madrid"])


def test_score_text_output(tmp_path, capsys):
    path = _write_jsonl(
        tmp_path / "p.jsonl",
        [
            {"id": "a", "prediction": "Paris", "answers": ["Paris"]},
            {"id": "b", "prediction": "Rome", "answers": ["Paris"]},
        ],
    )
    assert main(["score", path]) == 0
    lines = capsys.readouterr().out.splitlines()
    assert lines[0].split()[:5] == ["line", "id", "em", "cover_em", "f1"]  # the registered metrics' order
    assert lines[1].split()[:3] == ["1", "a", "1.000"] and lines[2].split()[:3] == ["2", "b", "0.000"]
    assert lines[3].split()[:3] == ["mean", "n=2", "0.500"]


@pytest.mark.parametrize(
    "lines, where, problem",
    [
        (
            ['{"prediction": "x", "answers": ["x"]}', '{"prediction": "x", "answers": ["x"]', ""],
            "line 2: invalid JSON at column",
            "invalid JSON",
        ),
        (['{"prediction": "x", "answers": ["x"]}', "", '{"answers": ["x"]}'], "line 3", 'missing "prediction"'),
        (['{"prediction": "x"}'], "line 1", 'missing "answers"'),
        (['{"prediction": 3, "answers": "x"}'], "line 1", '"prediction" must be a string, got a number'),
        (['{"prediction": "x", "answers": ["ok", null]}'], "line 1", '"answers"[1] must be a string, got null'),
        (['{"prediction": "x", "answers": "x", "choices": "AB"}'], "line 1", '"choices" must be a list'),
        (['["x", "y"]'], "line 1", "expected a JSON object, got a list"),
    ],
)
def test_malformed_line_names_file_line_and_problem(tmp_path, capsys, lines, where, problem):
    path = tmp_path / "bad.jsonl"
    path.write_text("\n".join(lines), encoding="utf-8")
    assert main(["score", str(path)]) == 1
    error = capsys.readouterr().err
    assert f"{path}, {where}" in error and problem in error
    assert "Traceback" not in error


def test_missing_file_and_non_utf8(tmp_path, capsys):
    assert main(["score", str(tmp_path / "absent.jsonl")]) == 1
    assert "absent.jsonl: no such file" in capsys.readouterr().err
    path = tmp_path / "latin1.jsonl"
    path.write_bytes(
        '{"prediction": "x", "answers": ["x"]}\n{"prediction": "caf\xe9", "answers": ["x"]}\n'.encode("latin-1")
    )
    assert main(["score", str(path)]) == 1
    assert f"{path}, line 2, byte" in capsys.readouterr().err


@pytest.mark.slow
def test_console_command_runs_in_a_fresh_process(tmp_path):
    path = _write_jsonl(tmp_path / "p.jsonl", [{"prediction": "the Eiffel Tower", "answers": ["Eiffel Tower"]}])
    done = subprocess.run(
        [sys.executable, "-m", "playground", "score", path, "--json"], capture_output=True, text=True, check=True
    )
    assert json.loads(done.stdout)["mean"]["em"] == 1.0


def _perturbed(rng: random.Random, answer: str, other: str) -> str:
    kind = rng.randrange(8)
    if kind == 0:
        return answer
    if kind == 1:
        return "The " + answer.upper()
    if kind == 2:
        return " ".join(answer.split()[:-1])  # truncated
    if kind == 3:
        return f"I think it is {answer}."
    if kind == 4:
        return answer.lower() + " , !"
    if kind == 5:
        return other
    if kind == 6:
        return ""
    return f"an {answer} (a guess)"


def test_score_matches_independent_squad_reference_on_squad_dev(tmp_path, capsys):
    data = json.loads(shared_dataset("squad", "dev-v1.1.json").read_text(encoding="utf-8"))["data"]
    questions = [qa for article in data for paragraph in article["paragraphs"] for qa in paragraph["qas"]][::3]
    rng = random.Random(1)
    records = []
    for qa in questions:
        answers = [answer["text"] for answer in qa["answers"]]
        other = rng.choice(questions)["answers"][0]["text"]
        records.append({"id": qa["id"], "prediction": _perturbed(rng, answers[0], other), "answers": answers})
    report = _score_json(capsys, _write_jsonl(tmp_path / "squad.jsonl", records))
    assert report["n"] == len(records) > 1000  # a third of the questions, spread over every article
    for record, item in zip(records, report["items"]):
        assert item["id"] == record["id"]
        assert item["scores"]["em"] == reference_em(record["prediction"], record["answers"]), record
        assert abs(item["scores"]["f1"] - reference_f1(record["prediction"], record["answers"])) < 1e-12, record
    expected_em = sum(reference_em(r["prediction"], r["answers"]) for r in records) / len(records)
    assert report["mean"]["em"] == pytest.approx(expected_em)
    assert 0.2 < report["mean"]["em"] < 0.8  # the perturbations produce both hits and misses


def test_score_by_the_hotpotqa_rule_and_corpus_bleu_with_its_signature(tmp_path, capsys):
    import sacrebleu

    rows = [
        {"prediction": "no way", "answers": ["no"]},
        {"prediction": "the cat sat on the mat", "answers": ["the cat is on the mat"]},
    ]
    path = _write_jsonl(tmp_path / "h.jsonl", rows)
    assert _score_json(capsys, path)["items"][0]["scores"]["f1"] == pytest.approx(2 / 3)  # SQuAD's rule
    assert main(["score", path, "--benchmark", "hotpotqa", "--json"]) == 0
    report = json.loads(capsys.readouterr().out)
    assert report["items"][0]["scores"]["f1"] == 0.0  # HotpotQA's official rule
    expected = sacrebleu.corpus_bleu([r["prediction"] for r in rows], [[r["answers"][0] for r in rows]]).score / 100
    assert report["corpus"]["bleu"] == pytest.approx(expected)
    assert main(["score", path]) == 0
    assert "corpus bleu" in capsys.readouterr().out


@pytest.mark.parametrize(
    "content, problem",
    [
        ("[" * 100_000, "JSON nested deeper than 64 levels"),
        ('{"prediction": "x", "answers": "x", "id": ' + "9" * 5000 + "}", "integer of 5000 digits is too large"),
        ('{"prediction": "\\ud800", "answers": "x"}', "lone surrogate"),
        ('{"prediction": NaN, "answers": "x"}', "NaN is not a number JSON allows"),
    ],
)
def test_hostile_lines_get_the_importers_limits(tmp_path, capsys, content, problem):
    path = tmp_path / "hostile.jsonl"
    path.write_text(content + "\n", encoding="utf-8")
    assert main(["score", str(path)]) == 1
    error = capsys.readouterr().err
    assert error.startswith(f"error: {path}, line 1: ") and problem in error and error.count("\n") == 1


def test_a_line_over_the_cap_is_refused_without_reading_it_whole(tmp_path, capsys, monkeypatch):
    monkeypatch.setenv("PLAYGROUND_IMPORT_MAX_LINE_MB", "1")
    path = tmp_path / "long.jsonl"
    path.write_text('{"prediction": "x", "answers": "x"}\n{"prediction": "' + "x" * 2 * 1024**2 + '"}\n')
    assert main(["score", str(path)]) == 1
    error = capsys.readouterr().err
    assert error.startswith(f"error: {path}, line 2: longer than the limit of 1,048,576 bytes")


def _xquad_records(language: str, count: int) -> list[dict]:
    """The first `count` questions of an XQuAD file, answered by the gold answer, cut short, or run on by the
    characters after it in the context, in turn."""
    data = json.loads(shared_dataset("xquad", f"xquad.{language}.json").read_text(encoding="utf-8"))["data"]
    found = [(p["context"], qa) for article in data for p in article["paragraphs"] for qa in p["qas"]][:count]
    records = []
    for index, (context, qa) in enumerate(found):
        text, start = qa["answers"][0]["text"], qa["answers"][0]["answer_start"]
        prediction = [text, text[: max(1, len(text) - 2)], context[start : start + len(text) + 3]][index % 3]
        records.append({"id": qa["id"], "prediction": prediction, "answers": [a["text"] for a in qa["answers"]]})
    return records


def test_score_chinese_xquad_by_mlqa_and_cmrc_definitions(tmp_path, capsys):
    path = _write_jsonl(tmp_path / "zh.jsonl", _xquad_records("zh", 60))
    squad = _score_json(capsys, path)
    assert main(["score", path, "--language", "zh", "--json"]) == 0
    mlqa = json.loads(capsys.readouterr().out)
    assert mlqa["answer_rule"]["name"] == "mlqa" and mlqa["answer_rule"]["language"] == "zh"
    exact, short, long = (mlqa["items"][i]["scores"] for i in range(3))
    assert exact["em"] == 1.0 and exact["f1"] == 1.0
    assert 0 < short["f1"] < 1 and 0 < long["f1"] < 1  # partial answers get partial credit, character by character
    assert mlqa["mean"]["f1"] > squad["mean"]["f1"] + 0.2  # SQuAD's whitespace tokens give all or nothing
    assert "cmrc_f1" in mlqa["mean"] and "cmrc_f1" not in squad["mean"]
    assert main(["score", path, "--benchmark", "cmrc"]) == 0
    text = capsys.readouterr().out
    assert "scored by the CMRC 2018 definition, language zh" in text
    assert "em, f1, cover_em: cmrc2018|lang:zh|" in text and "cmrc_f1" not in text  # CMRC's own, not beside MLQA's


def test_score_german_xquad_removes_german_articles(tmp_path, capsys):
    records = [r for r in _xquad_records("de", 300) if r["answers"][0].split()[0].lower() in ("der", "die", "das")]
    assert records, "XQuAD's German answers include some that start with an article"
    stripped = [{**r, "prediction": r["answers"][0].split(maxsplit=1)[1]} for r in records]
    path = _write_jsonl(tmp_path / "de.jsonl", stripped)
    assert main(["score", path, "--language", "de", "--json"]) == 0
    assert json.loads(capsys.readouterr().out)["mean"]["em"] == 1.0
    assert _score_json(capsys, path)["mean"]["em"] < 1.0  # SQuAD's English articles leave "der" in


@pytest.mark.parametrize(
    "flags, problem",
    [
        (["--language", "chinese!"], "--language: 'chinese!' is not an ISO 639-1 language code"),
        (["--benchmark", "squad", "--language", "zh"], "--benchmark squad scores by its own English definition"),
        (["--benchmark", "cmrc", "--language", "de"], "--benchmark cmrc scores Chinese answers"),
    ],
)
def test_score_refuses_a_language_it_cannot_apply_in_one_line(tmp_path, capsys, flags, problem):
    path = _write_jsonl(tmp_path / "p.jsonl", [{"prediction": "北京", "answers": ["北京"]}])
    assert main(["score", path, *flags]) == 1
    error = capsys.readouterr().err
    assert problem in error and error.count("\n") == 1
