"""The executor interface every heavy command runs its shards through, and how to pick one."""

from __future__ import annotations

import json
from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass
from enum import StrEnum
from typing import Any, Protocol

from taskqa.execution.journal import ShardJournal
from taskqa.execution.shards import ExecutionError


class Executor(Protocol):
    """Runs ``work(context, item)`` for every item and yields the results in item order.

    ``labels`` name each shard's inputs (recording ids) for failure reports. Results stream:
    the first comes back while later shards still run.
    """

    name: str

    @property
    def parallelism(self) -> int:
        """How many shards can run at once (worker processes, or CPUs of the cluster)."""
        ...

    def map(
        self,
        work: Callable[[Any, Any], Any],
        context: Any,
        items: Sequence[Any],
        labels: Sequence[str],
    ) -> Iterator[Any]: ...

    def close(self) -> None: ...


class ExecutorKind(StrEnum):
    LOCAL = "local"
    RAY = "ray"


@dataclass(frozen=True)
class Execution:
    """How a command runs its shards: the back-end, its size and whether to resume."""

    executor: ExecutorKind = ExecutorKind.LOCAL
    workers: int = 1
    ray_address: str | None = None  # None: a private local instance; "auto" or HOST:PORT
    resume: bool = False

    @contextmanager
    def open(self) -> Iterator[Executor]:
        executor: Executor
        if self.executor is ExecutorKind.RAY:
            from taskqa.execution.ray_backend import RayExecutor

            executor = RayExecutor(self.ray_address, self.workers)
        else:
            from taskqa.execution.local import LocalExecutor

            executor = LocalExecutor(self.workers)
        try:
            yield executor
        finally:
            executor.close()


def encode_json(result: Any) -> bytes:
    """A shard's result on its way back from a worker (and, verbatim, into the resume journal,
    which records its digest): a message, not one of taskqa's files."""
    return json.dumps(result, ensure_ascii=False).encode("utf-8")


def decode_json(data: bytes) -> Any:
    return json.loads(data)


def run_shards(
    executor: Executor,
    work: Callable[[Any, Any], Any],
    context: Any,
    items: Sequence[Any],
    labels: Sequence[str],
    journal: ShardJournal | None = None,
    encode: Callable[[Any], bytes] = encode_json,
    decode: Callable[[bytes], Any] = decode_json,
    still_valid: Callable[[Any], bool] | None = None,
) -> Iterator[Any]:
    """Every shard's result in shard order; with a journal, shards it already holds (a resumed
    run) are read back instead of run, and every new result is recorded as it arrives.

    ``still_valid`` checks a journaled result against what it stands for (files a worker wrote
    that must still be there, unchanged); a shard that fails the check runs again.
    """
    done: set[int] = set()
    if journal is not None:
        for index in range(len(items)):
            stored = journal.stored(index)
            if stored is not None and (still_valid is None or still_valid(decode(stored))):
                done.add(index)
        journal.resumed = len(done)
        if done:
            from taskqa.terminal import errors

            errors.print(
                f"resuming: {len(done)} of {len(items)} shards already done ({journal.folder})",
                highlight=False,
            )
    todo = [i for i in range(len(items)) if i not in done]
    fresh = executor.map(work, context, [items[i] for i in todo], [labels[i] for i in todo])
    try:
        for index in range(len(items)):
            if journal is not None and index in done:
                stored = journal.stored(index)
                if stored is None:
                    message = f"the journal {journal.folder} changed during the run; run again"
                    raise ExecutionError(message)
                yield decode(stored)
                continue
            result = next(fresh)
            if journal is not None:
                journal.record(index, encode(result))
            yield result
    finally:
        close = getattr(fresh, "close", None)
        if close is not None:
            close()
