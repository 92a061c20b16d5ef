"""Installed package versions, read from package metadata (nothing is imported), for manifests and run configs."""

from __future__ import annotations

import importlib
import sys
from functools import lru_cache
from importlib import metadata
from types import ModuleType
from typing import Optional


@lru_cache(maxsize=None)
def installed_version(name: str) -> Optional[str]:
    """The version of distribution `name` installed when first asked in this process, None when not installed.

    Cached per process: reading metadata costs about a millisecond a package (a search's every short run asks for a
    dozen), and the modules a process has already imported keep their version even if it changes on disk.
    """
    try:
        return metadata.version(name)
    except metadata.PackageNotFoundError:
        return None


def package_versions(*names: str, missing: Optional[str] = "absent") -> dict[str, str]:
    """Name -> installed version; a package that is not installed reads `missing`, or is left out when it is None."""
    versions = {}
    for name in names:
        version = installed_version(name)
        if version is not None:
            versions[name] = version
        elif missing is not None:
            versions[name] = missing
    return versions


def import_hiding(name: str, hidden: str) -> ModuleType:
    """Module `name`; its first import in a process that has not imported `hidden` yet runs with `hidden` made
    unimportable, for a library that imports a heavy optional dependency only for what the playground never uses.
    `hidden` stays importable for everything else."""
    if name not in sys.modules and hidden not in sys.modules:
        sys.modules[hidden] = None  # type: ignore[assignment]  # makes `import hidden` raise ImportError
        try:
            importlib.import_module(name)
        finally:
            del sys.modules[hidden]
    return importlib.import_module(name)
