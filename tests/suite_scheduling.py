"""A pytest plugin for `make test` (`-p tests.suite_scheduling`): pytest-xdist's group scheduling, except that a
test whose worker crashed is not run again.

xdist 3.x puts a crashed worker's whole unfinished group back in the queue, the crashing test included, so one
segfault crashes every replacement worker in turn (up to --max-worker-restart) and fails the tests after it
(tests/test_suite_runner.py plants one). Here the crashed test is marked done before its group is queued again;
xdist reports it failed by name, and the rest of the group runs.
"""

from __future__ import annotations

import pytest
from xdist.scheduler import LoadGroupScheduling


class CrashOnceGroupScheduling(LoadGroupScheduling):
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


@pytest.hookimpl(tryfirst=True)
def pytest_xdist_make_scheduler(config, log):
    if config.getvalue("dist") == "loadgroup":
        return CrashOnceGroupScheduling(config, log)
    return None
