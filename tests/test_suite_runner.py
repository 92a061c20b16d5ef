"""`make test`'s own pytest options, run on a planted suite: a test that kills its process with SIGSEGV fails by
name, and the run goes on to its summary with the other tests."""

from __future__ import annotations

import os
import re
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]

PLANTED = """
import ctypes


def test_segfaults():
    ctypes.string_at(0)


def test_passes_after():
    assert 1 + 1 == 2
"""


def suite_options() -> list[str]:
    """PYTEST_SUITE as the Makefile defines it, with 2 workers (the Makefile picks one more than the cores)."""
    text = (ROOT / "Makefile").read_text(encoding="utf-8")
    suite = re.search(r"^PYTEST_SUITE := (.+)$", text, re.M)
    assert re.search(r"^PYTEST_WORKERS \?= ", text, re.M) and suite, (
        "Makefile must define PYTEST_WORKERS and PYTEST_SUITE"
    )
    return suite.group(1).replace("$(PYTEST_WORKERS)", "2").split()


def planted_run(folder: Path, options: list[str], **env: str) -> subprocess.CompletedProcess:
    """pytest with `options` on the planted suite in `folder`, xdist loaded by name and no other installed plugin
    (hypothesis, anyio, ...: ~1.2 s CPU in each of the run's processes, and nothing the planted tests use)."""
    return subprocess.run(
        [sys.executable, "-m", "pytest", "-p", "xdist.plugin", *options, "-p", "no:cacheprovider"],
        cwd=folder,
        env={**os.environ, "PYTHONPATH": str(ROOT), "PYTEST_DISABLE_PLUGIN_AUTOLOAD": "1", **env},
        capture_output=True,
        text=True,
        timeout=300,
    )


def test_make_test_runs_the_suite_in_workers():
    options = suite_options()
    assert "-n" in options and "--dist" in options
    assert "$(PYTEST_SUITE)" in (ROOT / "Makefile").read_text(encoding="utf-8").split("\ntest:", 1)[1]


def test_a_segfaulting_test_fails_by_name_and_the_run_reaches_its_summary(tmp_path):
    (tmp_path / "test_planted.py").write_text(PLANTED, encoding="utf-8")
    (tmp_path / "pytest.ini").write_text("[pytest]\n", encoding="utf-8")
    options = suite_options()
    options[options.index("-n") + 1] = "1"  # one worker: the test after the crash runs on the one that replaces it
    done = planted_run(tmp_path, [*options, "test_planted.py"])
    output = done.stdout + done.stderr
    assert done.returncode == 1, output
    assert re.search(r"crashed while running .*test_segfaults", output), output
    assert output.count("crashed while running") == 1, output  # the crashing test is not run again
    assert re.search(r"\b1 failed, 1 passed\b", output), output


def test_the_groups_of_slow_tests_are_handed_out_before_the_bigger_cheap_ones(tmp_path):
    """One worker runs the groups in the order the scheduler queues them; xdist alone queues the bigger group first."""
    order = tmp_path / "order.txt"
    record = "import os\n\n\ndef record(name):\n    with open(os.environ['ORDER'], 'a') as f:\n        f.write(name + '\\n')\n"
    cheap = "".join(f"\n\ndef test_cheap_{n}():\n    record('cheap')\n" for n in range(4))
    (tmp_path / "test_cheap.py").write_text(record + cheap, encoding="utf-8")
    slow = "import pytest\n" + record + "\n\n@pytest.mark.slow\ndef test_slow():\n    record('slow')\n"
    (tmp_path / "test_slow.py").write_text(slow, encoding="utf-8")
    (tmp_path / "pytest.ini").write_text("[pytest]\nmarkers =\n    slow: a slow test\n", encoding="utf-8")
    options = suite_options()
    options[options.index("-n") + 1] = "1"
    done = planted_run(tmp_path, options, ORDER=str(order))
    assert done.returncode == 0, done.stdout + done.stderr
    assert order.read_text(encoding="utf-8").split() == ["slow"] + ["cheap"] * 4


def test_the_first_group_needing_the_demo_build_goes_first_and_the_others_keep_their_turn(tmp_path):
    """Its build then overlaps the other workers' first groups; the other demo groups come after the rest of their
    kind (here after the cheap group collected after them)."""
    order = tmp_path / "order.txt"
    record = "import os\n\n\ndef record(name):\n    with open(os.environ['ORDER'], 'a') as f:\n        f.write(name + '\\n')\n"
    (tmp_path / "conftest.py").write_text(
        "import pytest\n\n\n@pytest.fixture\ndef demo_copy():\n    return None\n", encoding="utf-8"
    )
    (tmp_path / "test_a_slow.py").write_text(
        "import pytest\n" + record + "\n\n@pytest.mark.slow\ndef test_slow():\n    record('slow')\n", encoding="utf-8"
    )
    (tmp_path / "test_d_cheap.py").write_text(record + "\n\ndef test_cheap():\n    record('cheap')\n", encoding="utf-8")
    for name in ("b", "c"):
        (tmp_path / f"test_{name}_demo.py").write_text(
            record + f"\n\ndef test_demo(demo_copy):\n    record('demo {name}')\n", encoding="utf-8"
        )
    (tmp_path / "pytest.ini").write_text("[pytest]\nmarkers =\n    slow: a slow test\n", encoding="utf-8")
    options = suite_options()
    options[options.index("-n") + 1] = "1"
    done = planted_run(tmp_path, options, ORDER=str(order))
    assert done.returncode == 0, done.stdout + done.stderr
    assert order.read_text(encoding="utf-8").splitlines() == ["demo b", "slow", "cheap", "demo c"]


GROUPED_BY_MODULE = """
import pytest


@pytest.hookimpl(tryfirst=True)
def pytest_collection_modifyitems(items):
    for item in items:
        item.add_marker(pytest.mark.xdist_group(item.nodeid.split("::", 1)[0]))  # as tests/conftest.py does
"""


def test_a_modules_tests_run_on_one_worker_with_its_module_fixture_made_once(tmp_path):
    """Two workers, two modules of two tests: each module's fixture (a server, a build) is made once, on the one
    worker that runs all of its tests. With pytest 9.2, xdist's group suffix no longer reaches the node ids
    (pytest-dev/pytest-xdist#1386) and every test was its own group: both workers made both fixtures."""
    order = tmp_path / "order.txt"
    (tmp_path / "conftest.py").write_text(GROUPED_BY_MODULE, encoding="utf-8")
    planted = (
        "import os\n\nimport pytest\n\n\ndef record(name):\n    with open(os.environ['ORDER'], 'a') as f:\n"
        "        f.write(f\"{name} {os.environ['PYTEST_XDIST_WORKER']}\\n\")\n\n\n"
        "@pytest.fixture(scope='module')\ndef made():\n    record('made ' + __name__)\n\n\n"
        + "".join(f"def test_{n}(made):\n    record('ran ' + __name__)\n\n\n" for n in range(2))
    )
    for module in ("test_first", "test_second"):
        (tmp_path / f"{module}.py").write_text(planted, encoding="utf-8")
    (tmp_path / "pytest.ini").write_text("[pytest]\n", encoding="utf-8")
    done = planted_run(tmp_path, suite_options(), ORDER=str(order))
    assert done.returncode == 0, done.stdout + done.stderr
    lines = order.read_text(encoding="utf-8").splitlines()
    for module in ("test_first", "test_second"):
        made = [line.split()[-1] for line in lines if line.startswith(f"made {module} ")]
        ran = {line.split()[-1] for line in lines if line.startswith(f"ran {module} ")}
        assert len(made) == 1 and ran == set(made), lines


def test_a_shared_build_is_made_once_and_reused(tmp_path_factory):
    from tests.conftest import shared_build

    calls = []

    def build(folder):
        calls.append(folder)
        (folder / "made.txt").write_text("once", encoding="utf-8")

    first = shared_build(tmp_path_factory, "suite-runner-shared", build)
    second = shared_build(tmp_path_factory, "suite-runner-shared", build)
    assert first == second and len(calls) == 1 and (first / "made.txt").read_text(encoding="utf-8") == "once"
