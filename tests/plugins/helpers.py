"""Register records in this process as a plugin would (playground.plugins.add_plugin), undone on leaving."""

from __future__ import annotations

from contextlib import contextmanager

from playground.plugins import add_plugin, hookimpl, remove_plugin
from playground.plugins.records import KINDS


class RecordsPlugin:
    """A plugin object whose hooks register the given records, each through the hook of its kind."""

    def __init__(self, records):
        self.records = list(records)

    def _register(self, record_type, register):
        for record in self.records:
            if isinstance(record, record_type) or (record_type.__name__ == "ProgramKind" and hasattr(record, "run")):
                register(record)


def _hook(kind):
    def hook(self, register):
        self._register(kind.record, register)

    hook.__name__ = kind.hook
    return hookimpl(hook)


for _kind in KINDS:
    setattr(RecordsPlugin, _kind.hook, _hook(_kind))


@contextmanager
def registered(*records, name: str = "test-plugin"):
    add_plugin(RecordsPlugin(records), name)
    try:
        yield
    finally:
        remove_plugin(name)


def register_during_test(request, *records, name: str = "test-plugin") -> None:
    """Register `records` until the test ends (`request`: pytest's fixture request)."""
    add_plugin(RecordsPlugin(records), name)
    request.addfinalizer(lambda: remove_plugin(name))
