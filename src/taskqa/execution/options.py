"""The command-line options every heavy command shares, defined once, and how a command
turns an execution failure into its one message.

A command takes ``workers: WorkersOption``, ``executor: ExecutorOption``, ``ray_address:
RayAddressOption`` and (where it can resume) ``resume: ResumeOption``, builds its settings
with ``execution(...)`` and runs inside ``with reported():``.
"""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from typing import Annotated

import typer

from taskqa.execution.base import Execution, ExecutorKind
from taskqa.execution.shards import ExecutionError

WorkersOption = Annotated[
    int,
    typer.Option(
        min=1,
        help="Worker processes (with --executor ray: the CPUs of the local Ray instance); the "
        "output does not depend on it.",
    ),
]
ExecutorOption = Annotated[
    ExecutorKind,
    typer.Option(
        "--executor",
        case_sensitive=False,
        help="Where shards run: local processes, or Ray (a local instance, or a cluster with "
        "--ray-address). The output is identical.",
    ),
]
RayAddressOption = Annotated[
    str | None,
    typer.Option(
        "--ray-address",
        help="With --executor ray: 'auto' or HOST:PORT joins a running cluster; by default a "
        "local Ray instance with --workers CPUs is started for this run.",
    ),
]
ResumeOption = Annotated[
    bool,
    typer.Option(
        "--resume",
        help="Continue an interrupted run with the same inputs: shards already done (recorded "
        "with their digests beside the output) are not run again.",
    ),
]


def execution(
    executor: ExecutorKind, workers: int, ray_address: str | None, resume: bool = False
) -> Execution:
    """The settings the options describe; refuses an address without the Ray executor."""
    if ray_address is not None and executor is not ExecutorKind.RAY:
        message = "only means something with --executor ray"
        raise typer.BadParameter(message, param_hint="--ray-address")
    if executor is ExecutorKind.RAY:
        from taskqa.execution.ray_backend import import_ray

        with reported():
            import_ray()  # before any work starts: without Ray, say how to install it and stop
    return Execution(executor, workers, ray_address, resume)


@contextmanager
def reported() -> Iterator[None]:
    """Around a command's run: a failed shard or an executor that cannot start is printed as
    its one message (with the remote traceback, once) and the command exits with status 1."""
    try:
        yield
    except ExecutionError as error:
        error.show()
        raise typer.Exit(code=1) from None
