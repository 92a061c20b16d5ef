"""A pytest plugin for `make test` (`-p tests.suite_scheduling`): pytest-xdist's group scheduling, except that a
test whose worker crashed is not run again, and that the heavy groups are handed out first.

xdist queues the groups by their number of tests, so a module of one two-minute browser or model test came last and
kept one worker busy after the other had finished. Here the groups holding browser tests (e2e) go first, then those
using the local model or a server (slow), then the rest in collection order: the cheap tail evens the workers out.
Ahead of them all goes the first group that needs the shared demo build (tests.conftest.built_demo, the suite's
costliest), and the other groups needing it come last of their kind: it is built while the other workers run their
first groups, not while a second worker that needs it too waits on its lock.

xdist 3.x puts a crashed worker's whole unfinished group back in the queue, the crashing test included, so one
segfault crashes every replacement worker in turn (up to --max-worker-restart) and fails the tests after it
(tests/test_suite_runner.py plants one). Here the crashed test is marked done before its group is queued again;
xdist reports it failed by name, and the rest of the group runs.
"""

from __future__ import annotations

import pytest
from xdist.scheduler import LoadGroupScheduling


class CrashOnceGroupScheduling(LoadGroupScheduling):
    def _split_scope(self, nodeid: str) -> str:
        """The test's group: xdist's "@group" suffix where the node id carries it, else the test's module, the group
        tests/conftest.py names. pytest 9.2's structured node ids drop the suffix xdist writes on the worker
        (pytest-dev/pytest-xdist#1386), and every test became a group of its own: its module fixtures made on
        every worker that ran one of its tests."""
        if nodeid.rfind("@") > nodeid.rfind("]"):
            return super()._split_scope(nodeid)
        return nodeid.split("::", 1)[0]

    def remove_node(self, node) -> str | None:
        workload = self.assigned_work.pop(node)
        unfinished = [(scope, nodeid) for scope, unit in workload.items() for nodeid, done in unit.items() if not done]
        if not unfinished:
            return None
        scope, crashed = unfinished[0]
        workload[scope][crashed] = True
        self.workqueue.update({scope: unit for scope, unit in workload.items() if not all(unit.values())})
        for other in self.assigned_work:
            self._reschedule(other)
        return crashed


DEMO_FIXTURE = "demo_copy"  # tests/e2e/conftest.py: a copy of the demo workspace built once per run


def _needs_demo(members: list) -> bool:
    return any(DEMO_FIXTURE in item.fixturenames for item in members)


def _weight(item) -> int:
    """0 for a browser test, 1 for one using the local model or a server, 2 for the rest."""
    if item.get_closest_marker("e2e"):
        return 0
    return 1 if item.get_closest_marker("slow") else 2


def _group(item) -> str:
    marker = item.get_closest_marker("xdist_group")
    if marker is None:
        return item.nodeid.split("::", 1)[0]
    return str(marker.kwargs.get("name", marker.args[0] if marker.args else "default"))


@pytest.hookimpl(trylast=True)  # after tests/conftest.py has marked the app's tests slow and named every group
def pytest_collection_modifyitems(items) -> None:
    groups: dict[str, list] = {}
    for item in items:
        groups.setdefault(_group(item), []).append(item)
    ordered = sorted(
        groups.values(), key=lambda members: (min(_weight(item) for item in members), _needs_demo(members))
    )
    builds_demo = next((members for members in ordered if _needs_demo(members)), None)
    if builds_demo is not None:
        ordered.remove(builds_demo)
        ordered.insert(0, builds_demo)
    items[:] = [item for members in ordered for item in members]


@pytest.hookimpl(tryfirst=True)
def pytest_xdist_make_scheduler(config, log):
    if config.getvalue("dist") == "loadgroup":
        config.option.loadscopereorder = False  # keep the order above, not the biggest groups first
        return CrashOnceGroupScheduling(config, log)
    return None
