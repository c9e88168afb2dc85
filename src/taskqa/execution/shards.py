"""What every executor shares: the shard wrapper that runs on a worker and its failure report.

A shard is a pure function of (context, item): the context (domain text, templates, config) is
the same for every shard of a run and goes to each worker once; the item is the shard's own
input (a recording, a range of episode numbers, a batch of requests). Whatever a shard raises
comes back as a ``ShardFailure`` value rather than an exception, so that the remote traceback
survives every back-end the same way and Ray does not retry a shard that fails by design.
"""

from __future__ import annotations

import pickle
import traceback
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any, TypeVar

from taskqa.problems import InvalidInputError

Context = TypeVar("Context")
Item = TypeVar("Item")
Result = TypeVar("Result")
ShardWork = Callable[[Any, Any], Any]


@dataclass(frozen=True)
class ShardFailure:
    """A shard's exception, sent back as data: its one-line summary and remote traceback."""

    summary: str
    traceback: str
    # Bad input, and errors that say so of themselves (``shard_passthrough``), are raised on
    # the driver as they were raised on the worker, so commands report them as they always did.
    error: Exception | None = None


def call_shard(work: Callable[[Context, Item], Result], context: Context, item: Item) -> Any:
    """Run one shard on whatever process the executor chose; never raises."""
    try:
        return work(context, item)
    except Exception as error:  # every failure goes back to the driver as one report
        passes = isinstance(error, InvalidInputError) or getattr(error, "shard_passthrough", False)
        return ShardFailure(
            f"{type(error).__name__}: {error}",
            traceback.format_exc(),
            error if passes and _picklable(error) else None,
        )


def _picklable(value: object) -> bool:
    try:
        pickle.dumps(value)
    except Exception:  # whatever pickling raises, the value cannot travel
        return False
    return True


class ExecutionError(Exception):
    """A run that cannot go on; the command prints ``show()`` and exits with status 1."""

    def __init__(self, message: str) -> None:
        super().__init__(message)
        self.message = message

    def show(self) -> None:
        from taskqa.terminal import errors

        errors.print(f"taskqa: {self.message}", highlight=False, markup=False)


class ShardFailed(ExecutionError):
    """One shard failed: says which inputs it had and what the worker's traceback was."""

    def __init__(self, label: str, summary: str, remote_traceback: str) -> None:
        super().__init__(f"shard {label} failed: {summary}")
        self.label = label
        self.remote_traceback = remote_traceback

    def show(self) -> None:
        from taskqa.terminal import errors

        errors.print(f"taskqa: {self.message}", highlight=False, markup=False)
        errors.print(
            f"remote traceback:\n{self.remote_traceback.rstrip()}", highlight=False, markup=False
        )


def unwrap(result: Any, label: str) -> Any:
    """A shard's result, or the exception its failure stands for, raised on the driver."""
    if isinstance(result, ShardFailure):
        if result.error is not None:
            raise result.error
        raise ShardFailed(label, result.summary, result.traceback)
    return result
