"""The default back-end: this process alone, or a pool of worker processes on this machine.

Results come back in shard order while later shards still run: a bounded window of shards is
in flight, so memory stays flat however many shards there are. A worker that dies mid-shard
(killed, out of memory) breaks the pool; the pool is then rebuilt and the unfinished shards run
again, a few times at most, as Ray does with task retries.
"""

from __future__ import annotations

import multiprocessing
import os
from collections import deque
from collections.abc import Callable, Iterator, Sequence
from concurrent.futures import Future, ProcessPoolExecutor
from concurrent.futures.process import BrokenProcessPool
from typing import Any

from taskqa.execution.guard import die_with_parent
from taskqa.execution.shards import ShardFailed, call_shard, unwrap

MAX_RETRIES = 3
SHARDS_PER_WORKER = 4  # in flight at once: enough to keep workers busy, few to hold in memory

# One worker's share of the run: the shard function and its context, set once per process.
_assignment: tuple[Callable[[Any, Any], Any], Any] | None = None
# What this process has started that does not survive fork (Mesa's GL driver keeps threads and
# locks a forked child inherits half-held, so a child that draws hangs): once set, pools start
# their workers from a clean server process instead of forking this one.
_fork_unsafe: list[str] = []


def fork_unsafe(reason: str) -> None:
    """Say this process may no longer fork workers (see ``_fork_unsafe``)."""
    if reason not in _fork_unsafe:
        _fork_unsafe.append(reason)


def _start_worker(parent: int, work: Callable[[Any, Any], Any], context: Any) -> None:
    global _assignment
    # 0: started by a fork server, which is this worker's parent and ends with the driver
    die_with_parent(parent or os.getppid())
    _assignment = (work, context)


def _run_item(item: Any) -> Any:
    assert _assignment is not None, "the pool initializer sets the assignment"
    work, context = _assignment
    return call_shard(work, context, item)


class LocalExecutor:
    """``workers`` processes on this machine; with one, shards run in this process."""

    name = "local"

    def __init__(self, workers: int = 1) -> None:
        self.workers = max(1, workers)

    @property
    def parallelism(self) -> int:
        return self.workers

    def map(
        self,
        work: Callable[[Any, Any], Any],
        context: Any,
        items: Sequence[Any],
        labels: Sequence[str],
    ) -> Iterator[Any]:
        if self.workers <= 1 or len(items) <= 1:
            for item, label in zip(items, labels, strict=True):
                yield unwrap(call_shard(work, context, item), label)
            return
        yield from self._pooled(work, context, items, labels)

    def close(self) -> None:
        """Nothing outlives ``map``: each call's pool ends with it."""

    def _pooled(
        self,
        work: Callable[[Any, Any], Any],
        context: Any,
        items: Sequence[Any],
        labels: Sequence[str],
    ) -> Iterator[Any]:
        workers = min(self.workers, len(items))
        window = workers * SHARDS_PER_WORKER
        next_index = 0
        retries = 0
        while True:
            clean = multiprocessing.get_context("forkserver") if _fork_unsafe else None
            start = (0 if clean else os.getpid(), work, context)
            pool = ProcessPoolExecutor(
                workers, mp_context=clean, initializer=_start_worker, initargs=start
            )
            pending: deque[tuple[int, Future[Any]]] = deque()
            try:
                while next_index < len(items) or pending:
                    while next_index < len(items) and len(pending) < window:
                        pending.append((next_index, pool.submit(_run_item, items[next_index])))
                        next_index += 1
                    index, future = pending[0]
                    result = future.result()
                    pending.popleft()
                    yield unwrap(result, labels[index])
                return
            except BrokenProcessPool:
                retries += 1
                if retries > MAX_RETRIES:
                    index = pending[0][0]
                    raise ShardFailed(
                        labels[index],
                        f"a worker process died {retries} times",
                        "(no traceback: the process ended without raising)",
                    ) from None
                next_index = pending[0][0]  # run every unfinished shard again on a new pool
            finally:
                pool.shutdown(wait=True, cancel_futures=True)
