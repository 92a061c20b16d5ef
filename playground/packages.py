"""Installed package versions, read from package metadata (nothing is imported), for manifests and run configs."""

from __future__ import annotations

from importlib import metadata
from typing import Optional


def package_versions(*names: str, missing: Optional[str] = "absent") -> dict[str, str]:
    """Name -> installed version; a package that is not installed reads `missing`, or is left out when it is None."""
    versions = {}
    for name in names:
        try:
            versions[name] = metadata.version(name)
        except metadata.PackageNotFoundError:
            if missing is not None:
                versions[name] = missing
    return versions
