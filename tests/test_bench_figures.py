"""docs/figures.md is written by the bench scripts: a section is replaced whole by what the script printed."""

from __future__ import annotations

import importlib.util
import re
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
spec = importlib.util.spec_from_file_location("figures", ROOT / "bench" / "figures.py")
figures = importlib.util.module_from_spec(spec)
spec.loader.exec_module(figures)


def test_a_section_is_replaced_and_the_others_kept(tmp_path):
    doc = tmp_path / "figures.md"
    doc.write_text("# Figures\n\nintro\n", encoding="utf-8")
    figures.write_section("speed", "p50 1.0 ms\n", doc)
    figures.write_section("retrieval", "recall@5 0.99\n", doc)
    figures.write_section("speed", "p50 2.0 ms\n", doc)
    text = doc.read_text(encoding="utf-8")
    assert "intro" in text and "recall@5 0.99" in text and "p50 2.0 ms" in text and "p50 1.0 ms" not in text
    assert text.count(figures.opening("speed")) == 1 and text.index("retrieval") > text.index("speed")


def test_every_bench_script_records_its_figures_and_make_bench_asks_for_them():
    scripts = sorted(p for p in (ROOT / "bench").glob("*.py") if p.name != "figures.py")
    silent = [p.name for p in scripts if f'figures.run("{p.stem}", main)' not in p.read_text(encoding="utf-8")]
    assert not silent, f"bench scripts that do not write their section of docs/figures.md: {silent}"
    recipe = (ROOT / "Makefile").read_text(encoding="utf-8").split("\nbench:", 1)[1].split("\n\n", 1)[0]
    assert re.findall(r"bench/\w+\.py --figures", recipe)
    assert not re.findall(r"bench/\w+\.py$", recipe, re.M)


def test_a_bench_run_with_figures_writes_what_it_printed(tmp_path):
    script = tmp_path / "tiny.py"
    script.write_text(
        "import sys\nsys.path.insert(0, %r)\nimport figures\nfrom pathlib import Path\n"
        "def main():\n    print('median 3.5 ms')\n    return 0\n"
        "sys.exit(figures.run('tiny', main, Path(%r)))\n" % (str(ROOT / "bench"), str(tmp_path / "out.md")),
        encoding="utf-8",
    )
    done = subprocess.run([sys.executable, str(script), "--figures"], capture_output=True, text=True, timeout=60)
    assert done.returncode == 0 and "median 3.5 ms" in done.stdout, done.stderr
    assert "median 3.5 ms" in (tmp_path / "out.md").read_text(encoding="utf-8")
