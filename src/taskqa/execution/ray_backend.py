"""The Ray back-end: shards as Ray tasks on a local instance or on a cluster.

Ray is imported only here and only when asked for, so taskqa works without it. Ray ships
partial type information, so ``Any`` and the ignores stay in this module.

The context goes to the object store once (``ray.put``) and every task gets its reference;
each task gets only its own item. A bounded window of tasks is in flight and results are
fetched in shard order. A task whose worker dies is re-run by Ray (``max_retries``); a shard
that raises is not (its failure would repeat), and comes back as a ``ShardFailure``.
"""

from __future__ import annotations

import logging
import subprocess
from collections import deque
from collections.abc import Callable, Iterator, Sequence
from typing import Any

from taskqa.execution.guard import start_watchdog, stop_watchdog
from taskqa.execution.shards import ExecutionError, ShardFailed, call_shard, unwrap

INSTALL_HINT = "--executor ray needs Ray, which is not installed: pip install 'taskqa[ray]'"
MAX_RETRIES = 3
SHARDS_PER_CPU = 2


def import_ray() -> Any:
    try:
        import ray
    except ImportError:
        raise ExecutionError(INSTALL_HINT) from None
    return ray


class RayExecutor:
    """Shards as Ray tasks. ``address`` None starts a private local instance with ``cpus``
    CPUs (no dashboard) that lives as long as this executor; ``auto`` or
    ``HOST:PORT`` joins a running cluster. A process already connected to Ray keeps its
    connection (tests start one instance for the whole session)."""

    name = "ray"

    def __init__(self, address: str | None = None, cpus: int | None = None) -> None:
        self._ray = import_ray()
        self._owned = False
        self._watchdog: subprocess.Popen[bytes] | None = None
        if not self._ray.is_initialized():
            self._connect(address, cpus)
        self._remote = self._ray.remote(max_retries=MAX_RETRIES, retry_exceptions=False)(call_shard)

    def _connect(self, address: str | None, cpus: int | None) -> None:
        settings: dict[str, Any] = {
            "include_dashboard": False,
            "log_to_driver": False,  # worker output would tear through the progress bar
            "logging_level": logging.ERROR,
        }
        if address is None:
            # A watchdog over the instance's processes: a SIGKILLed driver runs no shutdown.
            self._watchdog = start_watchdog()
            # No node address: Ray swaps a loopback one for the machine's own (docs/scaling.md).
            settings |= {"address": "local", "num_cpus": cpus}
        else:
            settings["address"] = address
        try:
            self._ray.init(**settings)
        except (ConnectionError, RuntimeError, ValueError) as error:
            stop_watchdog(self._watchdog)
            where = "a local Ray instance" if address is None else f"Ray at {address!r}"
            raise ExecutionError(f"could not start or join {where}: {error}") from None
        self._owned = True

    @property
    def parallelism(self) -> int:
        return max(1, int(self._ray.cluster_resources().get("CPU", 1)))

    def map(
        self,
        work: Callable[[Any, Any], Any],
        context: Any,
        items: Sequence[Any],
        labels: Sequence[str],
    ) -> Iterator[Any]:
        if not items:
            return
        shared = self._ray.put(context)
        window = self.parallelism * SHARDS_PER_CPU
        pending: deque[tuple[int, Any]] = deque()
        next_index = 0
        try:
            while next_index < len(items) or pending:
                while next_index < len(items) and len(pending) < window:
                    task = self._remote.remote(work, shared, items[next_index])
                    pending.append((next_index, task))
                    next_index += 1
                index, task = pending[0]
                try:
                    result = self._ray.get(task)
                except self._ray.exceptions.RayError as error:
                    # retries exhausted, or the task could not even start on a worker
                    raise ShardFailed(labels[index], type(error).__name__, str(error)) from None
                pending.popleft()
                yield unwrap(result, labels[index])
        finally:
            for _, task in pending:
                self._ray.cancel(task, force=True)

    def close(self) -> None:
        if self._owned:
            self._ray.shutdown()
            self._owned = False
        stop_watchdog(self._watchdog)
        self._watchdog = None
