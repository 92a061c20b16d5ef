"""`playground score FILE.jsonl`: score predictions against reference answers, per line and on average."""

from __future__ import annotations

from pathlib import Path
from typing import Any, Iterator

from playground import PlaygroundError
from playground.cli.output import emit, text_table

_JSON_TYPES = {
    dict: "an object",
    list: "a list",
    str: "a string",
    int: "a number",
    float: "a number",
    bool: "a boolean",
    type(None): "null",
}


def register(subparsers, common) -> None:
    parser = subparsers.add_parser(
        "score",
        parents=[common],
        help="score a JSONL file of predictions (EM, F1, cover-EM, BLEU, chrF, ROUGE-L, accuracy)",
        description='Each line: {"prediction": str, "answers": [str, ...] or str, optional "choices" '
        '(texts, or {"label", "text"} objects; answers then hold the correct label), optional "id"}. '
        "Besides the per-line means: corpus BLEU and chrF (sacrebleu) with their signatures.",
    )
    parser.add_argument("file", metavar="FILE.jsonl", help="the predictions to score")
    parser.add_argument(
        "--benchmark",
        choices=("squad", "hotpotqa", "obqa", "cmrc"),
        default=None,
        help="score EM/F1 by this benchmark's official rule (hotpotqa: yes/no/noanswer get no "
        "partial F1; cmrc: CMRC 2018's Chinese rule); default SQuAD's",
    )
    parser.add_argument(
        "--language",
        default=None,
        metavar="CODE",
        help="score EM/F1 by this language's definition (ISO 639-1): MLQA's in en, es, hi, vi, de, ar, zh "
        "(Unicode punctuation, the language's articles, mixed segmentation for zh), a script-aware default "
        "elsewhere",
    )
    parser.set_defaults(handler=score_command)


def _kind(value: Any) -> str:
    return _JSON_TYPES.get(type(value), type(value).__name__)


def _text_list(value: Any, field: str, where: str) -> list[str]:
    if isinstance(value, str):
        return [value]
    if not isinstance(value, list):
        raise PlaygroundError(f'{where}: "{field}" must be a string or a list of strings, got {_kind(value)}')
    for index, item in enumerate(value):
        if not isinstance(item, str):
            raise PlaygroundError(f'{where}: "{field}"[{index}] must be a string, got {_kind(item)}')
    return value


def _choices(value: Any, where: str) -> list:
    if value is None:
        return []
    if not isinstance(value, list):
        raise PlaygroundError(f'{where}: "choices" must be a list, got {_kind(value)}')
    for index, choice in enumerate(value):
        if isinstance(choice, dict):
            if not isinstance(choice.get("label"), str) or not isinstance(choice.get("text"), str):
                raise PlaygroundError(f'{where}: "choices"[{index}] needs string "label" and "text"')
        elif not isinstance(choice, str):
            raise PlaygroundError(
                f'{where}: "choices"[{index}] must be a string or a {{"label", "text"}} object, got {_kind(choice)}'
            )
    return value


def _raw_lines(path: Path, limits) -> Iterator[tuple[int, bytes]]:
    """(1-based number, bytes) of each line, read one at a time within the importers' caps on file and line size
    (playground.input_files: a regular file only), so a file of one 200 MB line is refused after the cap."""
    from playground.input_files import iter_raw_lines

    return iter_raw_lines(
        path,
        limits.max_file_bytes,
        limits.max_line_bytes,
        "PLAYGROUND_IMPORT_MAX_FILE_MB, PLAYGROUND_IMPORT_MAX_LINE_MB",
    )


def read_predictions(path: str | Path) -> list[dict]:
    """The file's records as {"line", "id", "prediction", "answers", "choices"}; a bad line raises with its place.

    Read with the dataset importers' limits (file and line size, nesting depth, integer size, valid Unicode)."""
    from playground.data.importers.reading import InputLimits, parse_json
    from playground.data.records import DatasetFormatError

    from playground.input_files import shown_path

    path = Path(path)
    limits = InputLimits.from_env()
    records = []
    for number, raw in _raw_lines(path, limits):
        where = f"{shown_path(path)}, line {number}"
        try:
            line = raw.decode("utf-8-sig" if number == 1 else "utf-8")
        except UnicodeDecodeError as error:
            raise PlaygroundError(f"{where}, byte {error.start + 1}: not UTF-8 text") from None
        if not line.strip():
            continue
        try:
            record = parse_json(line, path, number, limits)
        except DatasetFormatError as error:
            raise PlaygroundError(f"{where}: {error.problem}") from None
        if not isinstance(record, dict):
            raise PlaygroundError(f"{where}: expected a JSON object, got {_kind(record)}")
        if "prediction" not in record:
            raise PlaygroundError(f'{where}: missing "prediction"')
        prediction = record["prediction"]
        if prediction is not None and not isinstance(prediction, str):
            raise PlaygroundError(f'{where}: "prediction" must be a string, got {_kind(prediction)}')
        if "answers" not in record:
            raise PlaygroundError(f'{where}: missing "answers"')
        question_id = record.get("id")
        if question_id is not None and (isinstance(question_id, bool) or not isinstance(question_id, (str, int))):
            raise PlaygroundError(f'{where}: "id" must be a string or an integer, got {_kind(question_id)}')
        records.append(
            {
                "line": number,
                "id": question_id,
                "prediction": prediction or "",
                "answers": _text_list(record["answers"], "answers", where),
                "choices": _choices(record.get("choices"), where),
            }
        )
    return records


def scoring_rule(benchmark: str | None = None, language: str | None = None):
    """The answer rule `score` uses: CMRC 2018's for --benchmark cmrc, the language's for --language (MLQA's in its
    languages, English included), else SQuAD's (hotpotqa and obqa read English answers as SQuAD does)."""
    from playground.evaluation.answer_rules import AnswerRule, language_code, rule_for_language

    code = language_code(language)
    if benchmark == "cmrc":
        if code not in (None, "zh"):
            raise PlaygroundError(f"--benchmark cmrc scores Chinese answers; --language {code} does not apply")
        return AnswerRule("cmrc", "zh")
    if code is None:
        return AnswerRule("squad", "en")
    if benchmark in ("squad", "hotpotqa"):
        raise PlaygroundError(
            f"--benchmark {benchmark} scores by its own English definition; leave out --language {code} "
            "(or leave out --benchmark to score by the language's)"
        )
    return rule_for_language(code)


def score_file(path: str | Path, benchmark: str | None = None, language: str | None = None) -> dict:
    """{"n", "mean": {metric: mean}, "corpus": {bleu, chrf, signatures}, "items": [{"line", "id", "scores"}],
    "answer_rule": {"name", "language", "description", "signatures"}}."""
    from playground.evaluation.answer_rules import answer_signatures, bleu_tokenizer, describe
    from playground.evaluation.metrics import mean_scores
    from playground.evaluation.scoring import score_prediction
    from playground.evaluation.text_metrics import corpus_text_scores

    rule = scoring_rule(benchmark, language)
    records = read_predictions(path)
    items = [
        {
            "line": record["line"],
            "id": record["id"],
            "scores": score_prediction(
                record["prediction"],
                record["answers"],
                record["choices"] or None,
                benchmark_format=benchmark,
                answer_rule=rule.spec,
            ),
        }
        for record in records
    ]
    referenced = [record for record in records if record["answers"]]
    corpus = corpus_text_scores(
        [r["prediction"] for r in referenced], [r["answers"] for r in referenced], bleu_tokenizer(rule)
    )
    signatures = answer_signatures(rule, benchmark)
    return {
        "n": len(items),
        "mean": mean_scores(item["scores"] for item in items),
        "corpus": corpus,
        "items": items,
        "answer_rule": {
            "name": rule.name,
            "language": rule.language,
            "description": describe(rule),
            "signatures": signatures,
        },
    }


def _format_table(report: dict) -> str:
    from playground.evaluation.scoring import metric_order

    metrics = metric_order(report["mean"])
    headers = ["line", "id"] + metrics
    rows = [
        [str(item["line"]), "" if item["id"] is None else str(item["id"])]
        + [f"{item['scores'][m]:.3f}" if m in item["scores"] else "-" for m in metrics]
        for item in report["items"]
    ]
    rows.append(["mean", f"n={report['n']}"] + [f"{report['mean'][m]:.3f}" for m in metrics])
    lines = [text_table(headers, rows)]
    rule = report.get("answer_rule") or {}
    by_signature: dict[str, list[str]] = {}
    for name, signature in (rule.get("signatures") or {}).items():
        if name in report["mean"]:
            by_signature.setdefault(signature, []).append(name)
    if by_signature:
        lines.append(f"scored by the {rule['description']}")
    for signature, names in by_signature.items():
        lines.append(f"{', '.join(names)}: {signature}")
    corpus = report.get("corpus") or {}
    for name in ("bleu", "chrf"):
        if corpus.get(name) is not None:
            lines.append(f"corpus {name} {corpus[name]:.4f}  ({corpus['signatures'][name]})")
    unscored = sum(1 for item in report["items"] if not item["scores"])
    if unscored:
        lines.append(f"{unscored} line(s) without reference answers are left out of the means")
    return "\n".join(lines)


def score_command(args) -> int:
    report = score_file(args.file, args.benchmark, args.language)
    emit(args, report, _format_table(report))
    return 0
