"""The recorder: the one thread that writes a run's results (and the response cache) and beats its heartbeat.

Workers hand it finished questions through a queue; it writes what is queued (each result whole with its spans)
in one short transaction on its own connection. A busy database (a long import, a held write lock) makes it wait
and say so, never crash; when it has to give up, the run is left for `interrupted` with a one-line reason and
nothing already stored is lost.
"""

from __future__ import annotations

import os
import queue
import sqlite3
import threading
import time
from typing import Callable, Optional

from playground.store import runs as run_store
from playground.store.db import Workspace, connect_again

Notice = Callable[[str], None]
BUSY_GIVE_UP_S = 600.0
BEAT_EVERY_S = 5.0  # the heartbeat's period; runs.jobs gives a worker up after several missed beats
STOP_POLL_S = 1.0  # how soon a stop asked from elsewhere (CLI, app) is seen
RECORDER_BUSY_TIMEOUT_S = 1.0  # SQLite's own wait per attempt; write_patiently then reports and tries again
MAX_BATCH = 64  # results and cache entries written in one transaction at most (a short one, still)
_DONE = object()


def is_busy(error: BaseException) -> bool:
    return isinstance(error, sqlite3.OperationalError) and ("locked" in str(error) or "busy" in str(error))


class DatabaseBusy(Exception):
    """The database stayed locked longer than the recorder waits."""


def write_patiently(
    write: Callable[[], None],
    notice: Optional[Notice] = None,
    give_up_s: float = BUSY_GIVE_UP_S,
    what: str = "the run's results",
) -> None:
    """Run `write` (one transaction), retrying while another writer holds the database, saying so once a while."""
    started = time.monotonic()
    said = 0.0
    pause = 0.05
    while True:
        try:
            write()
            if said and notice:
                notice(f"database free again after {time.monotonic() - started:.0f} s; writing {what}")
            return
        except sqlite3.OperationalError as error:
            if not is_busy(error):
                raise
            waited = time.monotonic() - started
            if waited >= give_up_s:
                raise DatabaseBusy(
                    f"the database stayed locked by another writer for {waited:.0f} s, so {what} could not be written"
                ) from None
            if not said or waited - said >= 5.0:
                said = max(waited, 0.001)
                if notice:
                    notice(f"waiting for the database: another writer holds it ({waited:.0f} s so far)")
            time.sleep(pause)
            pause = min(1.0, pause * 2)


class Recorder:
    """One writer thread for run `run_id` of `workspace` (on a connection of its own); `save` and `store_cache` only
    enqueue."""

    def __init__(
        self,
        workspace: Workspace,
        run_id: str,
        *,
        notice: Optional[Notice] = None,
        beat_every_s: float = BEAT_EVERY_S,
        give_up_s: float = BUSY_GIVE_UP_S,
    ):
        self.workspace, self.path, self.run_id = workspace, workspace.path, run_id
        self.notice = notice
        self.beat_every_s = beat_every_s
        self.give_up_s = give_up_s
        self.pid = os.getpid()
        self.stop_requested = False
        self.failure: Optional[str] = None  # why writing stopped; the run cannot go on
        self.waiting = False  # the database is busy right now
        self.written = 0
        self._queue: queue.Queue = queue.Queue()
        self._thread = threading.Thread(target=self._loop, name=f"recorder-{run_id}", daemon=True)

    def start(self) -> "Recorder":
        self._thread.start()
        return self

    def save(self, result: dict, spans: list[dict]) -> None:
        self._queue.put(("result", result, spans))

    def store_cache(self, _workspace, key: str, request: dict, completion) -> bool:
        """The response cache's writer for worker threads (same signature as models.cache.store)."""
        self._queue.put(("cache", key, request, completion))
        return True

    def close(self) -> None:
        """Write everything queued, then stop the thread."""
        self._queue.put(_DONE)
        self._thread.join()

    def _notice(self, text: str) -> None:
        self.waiting = not text.startswith("database free")
        if self.notice:
            self.notice(text)

    @staticmethod
    def _writer(workspace: Workspace, item: tuple) -> Callable[[], object]:
        from playground.models.cache import store

        if item[0] == "result":
            return lambda: run_store.save_result(workspace, item[1], item[2])
        return lambda: store(workspace, *item[1:])

    def _write(self, workspace: Workspace, items: list[tuple]) -> None:
        """Write `items` (what was queued together) in one transaction: a commit costs about as much as a result's
        rows, and a short run's answers all arrive at once. When one of them cannot be written, they are written one
        at a time instead, so the others are kept as they were before batching and the bad one fails the run."""
        if len(items) > 1:

            def write_all() -> None:
                with workspace.db.atomic():
                    for item in items:
                        self._writer(workspace, item)()

            try:
                write_patiently(write_all, self._notice, self.give_up_s)
            except DatabaseBusy:
                raise
            except Exception:  # noqa: BLE001 - written one by one below, which raises the same error for the bad one
                pass
            else:
                self.written += sum(item[0] == "result" for item in items)
                return
        for item in items:
            write_patiently(self._writer(workspace, item), self._notice, self.give_up_s)
            if item[0] == "result":
                self.written += 1

    def _queued(self, first: tuple) -> tuple[list[tuple], bool]:
        """`first` and what else is queued now (at most MAX_BATCH), and whether close() was asked among them."""
        items = [first]
        while len(items) < MAX_BATCH:
            try:
                item = self._queue.get_nowait()
            except queue.Empty:
                break
            if item is _DONE:
                return items, True
            items.append(item)
        return items, False

    def _beat(self, workspace: Workspace) -> None:
        try:
            self.stop_requested = run_store.beat(workspace, self.run_id, self.pid) or self.stop_requested
        except sqlite3.OperationalError as error:
            if not is_busy(error):
                raise

    def _loop(self) -> None:
        workspace = connect_again(self.workspace)
        workspace.db.conn.execute(f"PRAGMA busy_timeout = {int(RECORDER_BUSY_TIMEOUT_S * 1000)}")  # then say so
        last_beat = last_poll = 0.0
        closing = False
        try:
            while True:
                if time.monotonic() - last_beat >= self.beat_every_s:
                    self._beat(workspace)
                    last_beat = last_poll = time.monotonic()
                elif time.monotonic() - last_poll >= STOP_POLL_S:
                    self.stop_requested = run_store.stop_requested(workspace, self.run_id) or self.stop_requested
                    last_poll = time.monotonic()
                wait = min(self.beat_every_s - (time.monotonic() - last_beat), STOP_POLL_S)
                try:
                    item = self._queue.get(timeout=max(0.05, wait))
                except queue.Empty:
                    continue
                if item is _DONE:
                    return
                items, closing = self._queued(item)
                if self.failure is None:
                    self._write(workspace, items)
                if closing:
                    return
        except DatabaseBusy as error:
            self.failure = str(error)
            self._drain(closing)
        except Exception as error:  # noqa: BLE001 - reported by the executor as the run's end, never swallowed
            self.failure = f"{type(error).__name__}: {error}"
            self._drain(closing)
        finally:
            workspace.close()

    def _drain(self, closing: bool) -> None:
        """Let workers go on handing over (nothing more is written) until close(), unless it was already asked."""
        while not closing:
            closing = self._queue.get() is _DONE
