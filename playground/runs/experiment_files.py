"""Experiment files (`playground eval experiment.toml`): one benchmark sample, named variants and the comparisons to
report, read into RunConfigs the run command would build. A malformed file is one line naming the file, the line and
the key, so a typo in a CI file is found without reading a traceback.

    benchmark = "demo"
    sample = 20
    seed = 0
    metrics = ["em", "f1"]              # compared and guarded (default: all the runs scored)
    judges = ["faithfulness"]           # optional, with judge_model = "SPEC"

    [variants.baseline]
    template = "rag-short-answer@3f2a" # the same strings `playground run --template` takes
    program = "rag"
    options = { hops = 2 }
    retriever = "bm25"
    k = 5
    model = "openai:gpt-4o-mini"
    params = { temperature = 0.0, max_tokens = 64 }

    [[comparisons]]
    baseline = "baseline"
    candidate = "shorter"
"""

from __future__ import annotations

import copy
import dataclasses
import hashlib
import re
import sys
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Optional

from playground import PlaygroundError
from playground.runs.config import RunConfig

if sys.version_info >= (3, 11):
    import tomllib
else:  # pragma: no cover - Python 3.10 reads TOML with tomli, the library tomllib was taken from
    import tomli as tomllib

TOP_KEYS = {
    "benchmark": str,
    "sample": int,
    "seed": int,
    "repeats": int,
    "metrics": list,
    "judges": list,
    "judge_model": str,
    "description": str,
    "variants": dict,
    "comparisons": list,
}
VARIANT_KEYS = {
    "template": str,
    "program": str,
    "options": dict,
    "retriever": str,
    "k": int,
    "model": str,
    "params": dict,
    "demos": str,
    "description": str,
}
COMPARISON_KEYS = {"baseline": str, "candidate": str}
_TYPE_WORDS = {str: "text", int: "a whole number", list: "a list", dict: "a table"}


class ExperimentFileError(PlaygroundError):
    """A malformed experiment file: the message is one line, FILE:LINE: key: what is wrong."""


@dataclass(frozen=True)
class Variant:
    name: str
    config: RunConfig
    line: int

    def fresh_config(self) -> RunConfig:
        """A copy to run or resolve: resolving a plan fills a config in place."""
        return copy.deepcopy(self.config)


@dataclass(frozen=True)
class Experiment:
    path: Path
    digest: str
    benchmark: str
    variants: dict[str, Variant]
    comparisons: list[tuple[str, str]]
    metrics: Optional[list[str]] = None
    judges: tuple[str, ...] = ()
    judge_model: Optional[str] = None

    def variant(self, name: str) -> Variant:
        if name not in self.variants:
            raise PlaygroundError(f"{self.path.name}: no variant {name!r} (variants: {', '.join(self.variants)})")
        return self.variants[name]


def _key_path(line: str) -> Optional[tuple[bool, list[str]]]:
    """(is a table header, the dotted key) of one TOML line, or None for a line naming no key."""
    stripped = line.strip()
    header = re.match(r"^\[\[?\s*([^\]]+?)\s*\]\]?\s*(#.*)?$", stripped)
    if header:
        return True, _split_dotted(header.group(1))
    assignment = re.match(r"^((?:\"[^\"]*\"|'[^']*'|[^=\"'#\[])+?)\s*=", stripped)
    if assignment:
        return False, _split_dotted(assignment.group(1))
    return None


def _split_dotted(text: str) -> list[str]:
    parts = re.findall(r"\"([^\"]*)\"|'([^']*)'|([^.\s\"']+)", text)
    return [next(piece for piece in part if piece) if any(part) else "" for part in parts]


def key_line(text: str, path: tuple[str, ...]) -> int:
    """The line (from 1) that defines `path`, or the deepest table or key above it that the file writes (a key
    inside an inline table is on its table's line); 1 when nothing matches."""
    table: list[str] = []
    best, best_depth = 1, -1
    target = [str(part) for part in path]
    for number, line in enumerate(text.splitlines(), start=1):
        found = _key_path(line)
        if found is None:
            continue
        is_header, dotted = found
        if is_header:
            table = dotted
            full = dotted
        else:
            full = table + dotted
        depth = len(full)
        if target[:depth] == full and depth > best_depth:
            best, best_depth = number, depth
            if depth == len(target):
                break
    return best


def _syntax_error(source: Path, text: str, message: str) -> ExperimentFileError:
    """tomllib's message ("Invalid value (at line 12, column 5)") as FILE:LINE: KEY: what, the key read from the line."""
    found = re.search(r"\s*\(at line (\d+), column (\d+)\)$", message)
    if not found:
        return ExperimentFileError(f"{source}: {message}")
    number = int(found.group(1))
    lines = text.splitlines()
    named = _key_path(lines[number - 1]) if number <= len(lines) else None
    key = f" {'.'.join(named[1])}:" if named and named[1] else ""
    return ExperimentFileError(f"{source}:{number}:{key} {message[: found.start()]} (column {found.group(2)})")


def _fail(experiment_path: Path, text: str, path: tuple, message: str) -> ExperimentFileError:
    key = ".".join(str(p) for p in path)
    return ExperimentFileError(f"{experiment_path}:{key_line(text, path)}: {key}: {message}")


def _check_keys(source: Path, text: str, table: dict, allowed: dict, where: tuple) -> None:
    for key, value in table.items():
        if key not in allowed:
            raise _fail(source, text, (*where, key), f"unknown key (known: {', '.join(allowed)})")
        wanted = allowed[key]
        if not isinstance(value, wanted) or (wanted is int and isinstance(value, bool)):
            raise _fail(source, text, (*where, key), f"must be {_TYPE_WORDS[wanted]}, not {type(value).__name__}")


def _names(source: Path, text: str, value: list, where: tuple) -> list[str]:
    if not all(isinstance(item, str) and item.strip() for item in value):
        raise _fail(source, text, where, "must be a list of names")
    return [item.strip() for item in value]


def read_experiment(path) -> Experiment:
    """The experiment `path` describes, its variants as RunConfigs; every error one line with the file's line."""
    source = Path(path)
    try:
        raw = source.read_bytes()
    except OSError as error:
        raise PlaygroundError(f"cannot read experiment file {source}: {error.strerror or error}") from None
    try:
        text = raw.decode("utf-8")
        data = tomllib.loads(text)
    except UnicodeDecodeError as error:
        raise ExperimentFileError(f"{source}: byte {error.start + 1} is not UTF-8 text") from None
    except tomllib.TOMLDecodeError as error:
        raise _syntax_error(source, text, str(error)) from None
    _check_keys(source, text, data, TOP_KEYS, ())
    if "benchmark" not in data:
        raise _fail(source, text, ("benchmark",), "missing: name the benchmark the variants run on")
    variants_table = data.get("variants") or {}
    if not variants_table:
        raise _fail(source, text, ("variants",), "no variant: add a table [variants.NAME] for each")
    metrics = _names(source, text, data["metrics"], ("metrics",)) if "metrics" in data else None
    judges = _judges(source, text, data)
    variants = {name: _variant(source, text, data, name, table) for name, table in variants_table.items()}
    comparisons = _comparisons(source, text, data.get("comparisons"), list(variants))
    return Experiment(
        path=source,
        digest=hashlib.sha256(raw).hexdigest(),
        benchmark=data["benchmark"],
        variants=variants,
        comparisons=comparisons,
        metrics=metrics,
        judges=judges,
        judge_model=data.get("judge_model"),
    )


def _judges(source: Path, text: str, data: dict) -> tuple[str, ...]:
    """The judges named (each a judge of a run's answers) and their model spec, checked before anything runs."""
    from playground.evaluation.judges.registry import answer_judges
    from playground.models.registry import parse_spec

    names = tuple(_names(source, text, data.get("judges", []), ("judges",)))
    unknown = [name for name in names if name not in answer_judges()]
    if unknown:
        raise _fail(source, text, ("judges",), f"no judge {unknown[0]!r} (known: {', '.join(answer_judges())})")
    if "judge_model" in data:
        try:
            parse_spec(data["judge_model"])
        except PlaygroundError as error:
            raise _fail(source, text, ("judge_model",), str(error)) from None
    return names


def _variant(source: Path, text: str, data: dict, name: str, table: Any) -> Variant:
    from playground.models.base import GenerationParams
    from playground.models.registry import DEFAULT_MODEL_SPEC, parse_spec

    where: tuple[str, ...] = ("variants", name)
    if not isinstance(table, dict):
        raise _fail(source, text, where, f"must be a table [variants.{name}], not {type(table).__name__}")
    _check_keys(source, text, table, VARIANT_KEYS, where)
    params_keys = [f.name for f in dataclasses.fields(GenerationParams)]
    _check_keys(source, text, table.get("params", {}), {key: object for key in params_keys}, (*where, "params"))
    model = table.get("model", DEFAULT_MODEL_SPEC)
    try:
        parse_spec(model)
    except PlaygroundError as error:
        raise _fail(source, text, (*where, "model"), str(error)) from None
    options = dict(table.get("options", {}))
    if table.get("demos"):
        options.setdefault("demonstrations", table["demos"])
    key = where
    try:
        key = (*where, "params")
        params = GenerationParams.from_dict(dict(table.get("params", {})))
        key = where
        config = RunConfig(
            dataset=data["benchmark"],
            program=table.get("program", "direct"),
            templates={"main": table["template"]} if table.get("template") else {},
            retriever=table.get("retriever"),
            k=table.get("k", 5),
            model=model.strip(),
            params=params,
            sample=data.get("sample"),
            seed=data.get("seed", 0),
            repeats=data.get("repeats", 1),
            options=options,
        )
    except (PlaygroundError, TypeError, ValueError) as error:
        named = str(error).split(" ", 1)[0]
        if key == where and named in VARIANT_KEYS:
            key = (*where, named)
        elif key == where and named in TOP_KEYS:
            key = (named,)
        raise _fail(source, text, key, str(error)) from None
    return Variant(name=name, config=config, line=key_line(text, where))


def _comparisons(source: Path, text: str, value: Optional[list], names: list[str]) -> list[tuple[str, str]]:
    """The pairs to report: as written, else each variant against the first."""
    if value is None:
        return [(names[0], other) for other in names[1:]]
    pairs = []
    for entry in value:
        if not isinstance(entry, dict):
            raise _fail(source, text, ("comparisons",), "each comparison is a table {baseline = A, candidate = B}")
        _check_keys(source, text, entry, COMPARISON_KEYS, ("comparisons",))
        for role in ("baseline", "candidate"):
            if entry.get(role) not in names:
                raise _fail(
                    source,
                    text,
                    ("comparisons", role),
                    f"{entry.get(role)!r} is no variant (variants: {', '.join(names)})",
                )
        pairs.append((entry["baseline"], entry["candidate"]))
    return pairs
