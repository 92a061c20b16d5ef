"""Each concept is defined once: a text constant in one module, a default in one constant that every default follows,
a function under one name, one way of printing a table.
"""

from __future__ import annotations

import ast
import json
import subprocess
import sys
from pathlib import Path

import playground
from playground.cli.output import text_table

ROOT = Path(playground.__file__).resolve().parent


def _modules():
    for path in sorted(ROOT.rglob("*.py")):
        yield path.relative_to(ROOT.parent).as_posix(), ast.parse(path.read_text(encoding="utf-8"))


def _literal(node: ast.AST):
    try:
        return ast.literal_eval(node)
    except ValueError:
        return None


def test_each_text_constant_is_defined_in_one_module():
    """A module-level constant holding text or a tuple of texts is the one definition of its concept."""
    places: dict[str, list[str]] = {}
    for module, tree in _modules():
        for node in tree.body:
            if not isinstance(node, ast.Assign) or len(node.targets) != 1 or not isinstance(node.targets[0], ast.Name):
                continue
            name, value = node.targets[0].id, _literal(node.value)
            if not name.lstrip("_").isupper() or name.endswith("_METRICS"):  # the metric lists: the metric registry's
                continue
            if isinstance(value, str) or (
                isinstance(value, tuple) and value and all(isinstance(v, str) for v in value)
            ):
                places.setdefault(repr(value), []).append(f"{module}:{name}")
    assert {value: where for value, where in places.items() if len(where) > 1} == {}


def test_no_function_is_only_another_name_for_one():
    """A module-level function whose whole body returns another function called with its own arguments is an alias:
    callers use the one name instead. (A function that returns a new object of a class is a factory, not an alias.)"""
    aliases = []
    for module, tree in _modules():
        for node in tree.body:
            if not isinstance(node, ast.FunctionDef) or node.decorator_list:
                continue
            body = [
                n
                for n in node.body
                if not isinstance(n, (ast.Import, ast.ImportFrom))
                and not (isinstance(n, ast.Expr) and isinstance(n.value, ast.Constant))
            ]
            if len(body) != 1 or not isinstance(body[0], ast.Return) or not isinstance(body[0].value, ast.Call):
                continue
            call = body[0].value
            arguments = [a.id if isinstance(a, ast.Name) else None for a in call.args]
            if (
                isinstance(call.func, ast.Name)
                and not call.func.id[0].isupper()
                and not call.keywords
                and arguments == [a.arg for a in node.args.args]
            ):
                aliases.append(f"{module}:{node.name} -> {call.func.id}")
    assert aliases == []


DEFAULTS_FOLLOW = """
import json, sys
import playground.models.registry as registry
import playground.models.retry as retry
registry.DEFAULT_MODEL_SPEC = "local:elsewhere"
retry.DEFAULT_DEADLINE_S, retry.DEFAULT_TIMEOUT_S, retry.DEFAULT_CONNECT_TIMEOUT_S = 42.0, 7.0, 3.0
from playground.cli import build_parser
from playground.evaluation.judges.judge_config import JudgeConfig
from playground.runs.config import RunConfig
from playground.runs.plan import Execution

parser = build_parser()
run = parser.parse_args(["run", "--dataset", "tiny"])
execution = Execution()
print(json.dumps({"run": RunConfig(dataset="tiny").model, "judge": JudgeConfig().model,
                  "judge_from_file": JudgeConfig.from_dict({}).model, "cli": run.model,
                  "execution": [execution.timeout_s, execution.read_timeout_s, execution.connect_timeout_s]}))
"""


def test_every_default_model_and_timeout_follows_its_one_constant():
    """Change the one constant (in a fresh interpreter, before anything reads it) and every default follows."""
    done = subprocess.run(
        [sys.executable, "-c", DEFAULTS_FOLLOW], capture_output=True, text=True, check=True, cwd=ROOT.parent
    )
    assert json.loads(done.stdout) == {
        "run": "local:elsewhere",
        "judge": "local:elsewhere",
        "judge_from_file": "local:elsewhere",
        "cli": "local:elsewhere",
        "execution": [42.0, 7.0, 3.0],
    }


def test_the_cli_prints_every_table_one_way():
    assert text_table(["name", "rows", "note"], [["tiny", 1234, None], ["squad-dev", 7, "x"]]) == (
        "name       rows   note\ntiny       1,234\nsquad-dev  7      x"
    )
    printers = [
        module for module, tree in _modules() if module.startswith("playground/cli/") and ".ljust(" in ast.unparse(tree)
    ]
    assert printers == ["playground/cli/output.py"]
