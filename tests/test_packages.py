"""Installed package versions: read from metadata once per process, and the same as metadata says."""

from __future__ import annotations

from importlib import metadata

from playground.packages import installed_version, package_versions
from playground.runs.config import RECORDED_PACKAGES
from playground.runs.config import package_versions as run_versions

MISSING = "playground-no-such-distribution"


def test_an_installed_version_is_what_metadata_says_and_asked_once():
    installed_version.cache_clear()
    for name in ("sqlite-utils", "jinja2", "numpy"):
        assert installed_version(name) == metadata.version(name)
    assert installed_version(MISSING) is None
    before = installed_version.cache_info()
    assert installed_version("sqlite-utils") == metadata.version("sqlite-utils")
    assert installed_version(MISSING) is None
    after = installed_version.cache_info()
    assert (after.hits - before.hits, after.misses - before.misses) == (2, 0)  # metadata was not read again


def test_package_versions_leave_out_or_name_what_is_missing():
    found = {"sqlite-utils": metadata.version("sqlite-utils")}
    assert package_versions("sqlite-utils", MISSING) == {**found, MISSING: "absent"}
    assert package_versions("sqlite-utils", MISSING, missing="") == {**found, MISSING: ""}
    assert package_versions("sqlite-utils", MISSING, missing=None) == found


def test_a_runs_recorded_versions_match_metadata_on_every_call():
    def by_metadata(name: str):
        try:
            return metadata.version(name)
        except metadata.PackageNotFoundError:
            return None

    expected = {name: by_metadata(name) for name in RECORDED_PACKAGES if by_metadata(name) is not None}
    for _ in range(2):  # the second from the cache
        versions = run_versions()
        assert {name: versions[name] for name in RECORDED_PACKAGES if name in versions} == expected
