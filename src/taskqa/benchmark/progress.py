"""What ``taskqa build`` says while it works: each stage as it starts, and how far it has got.

A build runs for minutes to hours, and its output is often a log file: on a terminal each stage
is a progress bar (done/total, rate, time), and where stderr is redirected each stage is a line
when it starts, then a line with its count and rate at most every ``every_s`` seconds and when
it ends, so a log shows where the build is while it runs, not only when it is done.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from typing import Protocol

from rich.console import Console
from rich.progress import TaskID

from taskqa.terminal import format_rate


class BuildProgress(Protocol):
    """What a build reports: a plan line up front, stages, counts and free-text status."""

    def note(self, message: str) -> None:
        """A line of its own: the plan, or what a stage leaves out."""

    def stage(self, name: str, total: int | None = None, unit: str = "recordings") -> None:
        """A stage begins (and the one before it ends); ``total`` items of ``unit`` when
        counted."""

    def advance(self, done: int = 1) -> None:
        """``done`` more items of the current stage are finished."""

    def status(self, message: str) -> None:
        """Where the current stage is, said by code that counts for itself (the grounding check:
        ``grounding: 5/30 recordings (1.2/s)``)."""

    def finish(self) -> None:
        """The last stage ends."""


class NoProgress:
    """Says nothing (a build called from Python)."""

    def note(self, message: str) -> None:
        pass

    def stage(self, name: str, total: int | None = None, unit: str = "recordings") -> None:
        pass

    def advance(self, done: int = 1) -> None:
        pass

    def status(self, message: str) -> None:
        pass

    def finish(self) -> None:
        pass


class ProgressLines:
    """Plain lines for a log: ``[0:01:05] minimal pairs: 12/30 episodes (0.4 episodes/s)``."""

    def __init__(
        self,
        console: Console,
        every_s: float = 10.0,
        clock: Callable[[], float] = time.monotonic,
    ) -> None:
        self.console = console
        self.every_s = every_s
        self.clock = clock
        self.started = clock()
        self.name = ""
        self.total: int | None = None
        self.unit = ""
        self.done = 0
        self.stage_started = self.started
        self.last_line = self.started
        self.unsaid = ""  # the latest status not yet printed

    def _print(self, text: str) -> None:
        elapsed = int(self.clock() - self.started)
        stamp = f"{elapsed // 3600}:{elapsed // 60 % 60:02d}:{elapsed % 60:02d}"
        self.console.print(f"[{stamp}] {text}", highlight=False, markup=False, soft_wrap=True)
        self.last_line = self.clock()

    def note(self, message: str) -> None:
        self._print(message)

    def stage(self, name: str, total: int | None = None, unit: str = "recordings") -> None:
        self._end()
        self.name, self.total, self.unit, self.done = name, total, unit, 0
        self.stage_started = self.clock()
        self._print(f"{name}: 0/{total:,} {unit}" if total is not None else name)

    def _count(self, took: str = "") -> str:
        seconds = self.clock() - self.stage_started
        rate = f" ({format_rate(self.done / seconds, self.unit)})" if seconds > 0 else ""
        return f"{self.name}: {self.done:,}/{self.total or 0:,} {self.unit}{took}{rate}"

    def advance(self, done: int = 1) -> None:
        self.done += done
        if self.clock() - self.last_line >= self.every_s:
            self._print(self._count())

    def status(self, message: str) -> None:
        self.unsaid = message
        if self.clock() - self.last_line >= self.every_s:
            self._print(message)
            self.unsaid = ""

    def _end(self) -> None:
        """The stage's last count (or status), with how long it took."""
        if not self.name:
            return
        took = f" in {self.clock() - self.stage_started:.1f} s"
        if self.total is not None:
            self._print(self._count(took))
        elif self.unsaid:
            self._print(self.unsaid + took)
        self.name, self.unsaid = "", ""

    def finish(self) -> None:
        self._end()


class ProgressBars:
    """A progress bar per stage on a terminal (``taskqa.terminal.progress``); a finished stage's
    bar stays, so the screen ends with what each stage did and how long it took."""

    def __init__(self) -> None:
        from taskqa.terminal import progress

        self.bars = progress(unit="recordings")
        self.task: TaskID | None = None

    def __enter__(self) -> ProgressBars:
        self.bars.start()
        return self

    def __exit__(self, *_: object) -> None:
        self.finish()
        self.bars.stop()

    def note(self, message: str) -> None:
        self.bars.console.print(message, highlight=False, markup=False, soft_wrap=True)

    def stage(self, name: str, total: int | None = None, unit: str = "recordings") -> None:
        self.finish()
        self.task = self.bars.add_task(name, total=total, unit=unit)

    def advance(self, done: int = 1) -> None:
        if self.task is not None:
            self.bars.advance(self.task, done)

    def status(self, message: str) -> None:
        if self.task is not None:
            self.bars.update(self.task, description=message)

    def finish(self) -> None:
        if self.task is None:
            return
        task = next(t for t in self.bars.tasks if t.id == self.task)
        if task.total is None:  # an uncounted stage: a full bar once it is over
            self.bars.update(self.task, total=1, completed=1)
        self.bars.stop_task(self.task)
        self.task = None


@contextmanager
def build_progress(console: Console | None = None) -> Iterator[BuildProgress]:
    """Bars on a terminal, lines otherwise (``console``: stderr, where progress goes)."""
    from taskqa.terminal import errors

    console = console or errors
    if console.is_terminal and not console.is_dumb_terminal:
        with ProgressBars() as bars:
            yield bars
        return
    lines = ProgressLines(console)
    try:
        yield lines
    finally:
        lines.finish()
