"""Every render has a budget: hostile templates stop within it with one clear error, memory stays bounded, and the
render worker (the hard guard) is replaced after a template exhausts it."""

from __future__ import annotations

import time

import pytest

from playground.prompts import worker
from playground.prompts.errors import RenderBudgetError, TemplateError
from playground.prompts.limits import RenderBudget
from playground.prompts.render import render_messages
from playground.prompts.template import Template

GiB = 1024**3

HOSTILE = {
    "center chain": '{{ ("x"|center(900000))|center(900000)|indent(900000) }}',
    "format width": '{{ "%1000000000d"|format(1) }}',
    "str.format width": '{{ "{:>1000000000}".format(1) }}',
    "indent": '{{ ("x\\n" * 50000)|indent(100000) }}',
    "replace": '{{ ("x" * 100000)|replace("x", "y" * 100000) }}',
    "lipsum": "{{ lipsum(n=100000000) }}",
    "huge power": "{{ ((10**1000)**1000)**1000 }}",
    "huge product": "{% set a = 10**999 %}{{ a*a*a*a*a*a*a*a*a*a*a*a }}",
    "nested ranges": "{% for i in range(10000) %}{% for j in range(10000) %}{% endfor %}{% endfor %}",
    "10^6 x 10^6 loop": "{% for i in range(1000000) %}{% for j in range(1000000) %}{% endfor %}{% endfor %}",
    "recursive macro": "{% macro m(n) %}{{ m(n) }}{% endmacro %}{{ m(1) }}",
    "branching macro": "{% macro m(n) %}{% if n %}{{ m(n-1) }}{{ m(n-1) }}{% endif %}{% endmacro %}{{ m(40) }}",
    "recursive loop": "{% for x in [1] recursive %}{{ loop([1]) }}{% endfor %}",
    "repeat 10**9": '{{ "x" * 10**9 }}',
    "doubling concat": '{% set ns = namespace(s="xx") %}{% for i in range(60) %}{% set ns.s = ns.s ~ ns.s %}'
    "{% endfor %}{{ ns.s }}",
    "doubling list": '{% set ns = namespace(l=["x" * 100000]) %}{% for i in range(40) %}{% set ns.l = ns.l + ns.l %}'
    "{% endfor %}{{ ns.l|join }}",
    "batch fill": "{{ [1]|batch(1000000000, 0)|list }}",
    "output size": '{% for i in range(10000) %}{{ "x" * 100000 }}{% endfor %}',
}


def template(user: str) -> Template:
    return Template(name="hostile", system="You answer.", user=user)


@pytest.mark.parametrize("name", list(HOSTILE))
def test_hostile_template_stops_within_its_budget(name):
    budget = RenderBudget()
    started = time.perf_counter()
    with pytest.raises(RenderBudgetError) as caught:
        render_messages(template(HOSTILE[name]), {}, budget)
    elapsed = time.perf_counter() - started
    message = str(caught.value)
    assert elapsed < budget.seconds + worker.GRACE_SECONDS + 1.0, f"{name} took {elapsed:.1f} s"
    assert "\n" not in message and message.startswith("template 'hostile', user part")
    assert any(word in message for word in ("budget", "too large", "too long", "too many", "at most")), message


def test_all_hostile_templates_keep_a_fresh_process_and_its_worker_under_1_gib():
    """Peak memory is measured in a fresh process (this test process has held models) as its VmHWM, the peak of its
    own address space: getrusage's maxrss would carry over the forking parent's figure across exec."""
    import json
    import subprocess
    import sys

    script = (
        "import json, resource\n"
        "from playground.prompts.errors import RenderBudgetError\n"
        "from playground.prompts.render import render_messages\n"
        "from playground.prompts.template import Template\n"
        "import tests.prompts.test_render_budget as hostile\n"
        "stopped = 0\n"
        "for source in hostile.HOSTILE.values():\n"
        "    try:\n"
        "        render_messages(Template(name='hostile', system='You answer.', user=source), {})\n"
        "    except RenderBudgetError:\n"
        "        stopped += 1\n"
        "hwm = next(int(line.split()[1]) for line in open('/proc/self/status') if line.startswith('VmHWM:'))\n"
        "print(json.dumps({'stopped': stopped, 'self': hwm,\n"
        "                  'children': resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss}))\n"
    )
    root = __import__("pathlib").Path(__file__).resolve().parents[2]
    done = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, timeout=300, cwd=root)
    assert done.returncode == 0, done.stderr[-2000:]
    peak = json.loads(done.stdout.strip().splitlines()[-1])
    assert peak["stopped"] == len(HOSTILE)
    assert peak["self"] * 1024 < GiB and peak["children"] * 1024 < GiB, peak


def test_error_names_the_line_and_column():
    with pytest.raises(TemplateError) as caught:
        render_messages(template("Question: {{ question }}\nPadding: {{ question|center(10**9) }}"), {"question": "q"})
    assert caught.value.part == "user" and caught.value.line == 2 and caught.value.column is not None


def test_a_normal_prompt_renders_the_same_in_the_worker_and_inline(monkeypatch):
    t = template("{% for p in passages %}[{{ loop.index }}] {{ p.title }}: {{ p.text }}\n{% endfor %}Q: {{ question }}")
    variables = {"question": "Where?", "passages": [{"title": "A", "text": "x" * 50}, {"title": "B", "text": "y"}]}
    isolated = render_messages(t, variables)
    monkeypatch.setenv("PLAYGROUND_RENDER_ISOLATION", "inline")
    assert render_messages(t, variables) == isolated
    assert isolated[1]["content"].startswith("[1] A: xxxx")


def test_memory_limit_stops_a_template_the_checks_allow_and_the_worker_recovers():
    hog = (
        '{% set s = "x" * 100000 %}{% set big = s ~ s ~ s ~ s ~ s ~ s ~ s ~ s ~ s %}'
        "{% set ns = namespace(l=[]) %}{% for i in range(3000) %}{% set ns.l = ns.l + [big ~ i] %}{% endfor %}"
        "{{ ns.l|length }}"
    )
    with pytest.raises(RenderBudgetError, match="memory|MemoryError"):
        render_messages(template(hog), {}, RenderBudget(seconds=30, memory_mb=256))
    assert render_messages(template("{{ 1 + 1 }}"), {})[1]["content"] == "2"


def test_timeout_kills_a_render_stuck_in_one_operation_and_the_worker_recovers(monkeypatch):
    monkeypatch.setattr(worker, "GRACE_SECONDS", 0.0)
    started = time.perf_counter()
    with pytest.raises(RenderBudgetError, match=r"longer than 0\.1 s"):
        render_messages(
            template('{{ ("ab " * 33000)|wordwrap(1) }}{{ ("ab " * 33000)|wordwrap(1) }}'),
            {},
            RenderBudget(seconds=0.1),
        )
    assert time.perf_counter() - started < 5
    assert render_messages(template("{{ 'ok' }}"), {})[1]["content"] == "ok"


def test_an_ordinary_template_error_is_not_a_budget_error():
    with pytest.raises(TemplateError) as caught:
        render_messages(template("{{ question }} {{ nothing_here }}"), {"question": "q"})
    assert not isinstance(caught.value, RenderBudgetError) and "nothing_here" in str(caught.value)


def test_budget_is_settable_from_the_environment(monkeypatch):
    monkeypatch.setenv("PLAYGROUND_RENDER_SECONDS", "7.5")
    monkeypatch.setenv("PLAYGROUND_RENDER_MAX_OUTPUT", "10")
    assert RenderBudget.from_env().seconds == 7.5
    with pytest.raises(TemplateError, match="longer than 10 characters"):
        render_messages(template("{{ 'x' * 11 }}"), {})


def test_a_run_marks_the_question_over_budget_as_an_error_and_goes_on(tmp_path, tiny_workspace, capsys):
    import json

    from playground.cli import main
    from playground.store.runs import get_results
    from tests.security.test_secrets_never_written import EchoServer

    path = tmp_path / "bomb.jinja"
    path.write_text(
        '### system\nAnswer briefly.\n### user\n{% if "France" in question %}{{ "x" * 10**9 }}{% endif %}'
        "Question: {{ question }}\n",
        encoding="utf-8",
    )
    server = EchoServer()
    try:
        db = str(tiny_workspace.path)
        assert (
            main(
                [
                    "run",
                    "--db",
                    db,
                    "--dataset",
                    "tiny",
                    "--program",
                    "direct",
                    "--template-file",
                    str(path),
                    "--model",
                    f"openai:echo@http://127.0.0.1:{server.port}/v1",
                    "--max-tokens",
                    "4",
                    "--json",
                ]
            )
            == 0
        )
    finally:
        server.close()
    run = json.loads(capsys.readouterr().out)
    assert run["status"] == "done" and run["errors"] == 1 and run["n"] == 6
    failed = [r for r in get_results(tiny_workspace, run["run_id"]) if r["error"]]
    assert [r["question_id"] for r in failed] == ["q1"]
    assert "RenderBudgetError" in failed[0]["error"] and "line 1" in failed[0]["error"]
