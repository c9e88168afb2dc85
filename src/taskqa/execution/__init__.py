"""Running a command's shards on local processes or on Ray, with identical output.

Heavy commands split their work into shards that are pure functions of (context, shard input),
run them through an ``Executor`` (``LocalExecutor``: this machine's processes, the default;
``RayExecutor``: a Ray instance or cluster, imported only when chosen) and take the results
back in shard order. A ``ShardJournal`` beside the output records each finished shard with its
digest, so that ``--resume`` continues an interrupted run. See docs/scaling.md.
"""

from taskqa.execution.base import Execution, Executor, ExecutorKind, run_shards
from taskqa.execution.journal import ShardJournal, fingerprint, journal_beside
from taskqa.execution.shards import ExecutionError, ShardFailed

__all__ = [
    "Execution",
    "ExecutionError",
    "Executor",
    "ExecutorKind",
    "ShardFailed",
    "ShardJournal",
    "fingerprint",
    "journal_beside",
    "run_shards",
]
