"""Turn `pip install --dry-run --report` output into requirements.lock: one `name==version` a line, sorted.

python scripts/lock.py report.json > requirements.lock   (what `make lock` runs)
"""

from __future__ import annotations

import json
import sys

HEADER = (
    "# The dependency set of the Docker image (Python 3.11, Linux x86_64), resolved by `make lock` from\n"
    "# pyproject.toml with torch pinned as in the Makefile. Regenerate it after changing a dependency.\n"
)


def pins(report: dict) -> list[str]:
    found = {}
    for item in report["install"]:
        metadata = item["metadata"]
        if metadata["name"].lower() == "playground":
            continue
        version = metadata["version"].split("+")[0]  # torch 2.13.0+cpu pins as 2.13.0: PyPI or the CPU index
        found[metadata["name"].lower()] = f"{metadata['name']}=={version}"
    return [found[name] for name in sorted(found)]


if __name__ == "__main__":
    with open(sys.argv[1], encoding="utf-8") as handle:
        print(HEADER + "\n".join(pins(json.load(handle))))
