"""The progress bars' rate: a unit, and a precision that suits the number."""

from __future__ import annotations

import io

import pytest
from rich.console import Console
from rich.progress import Progress

from taskqa import terminal
from taskqa.terminal import RateColumn, format_rate


@pytest.mark.parametrize(
    ("speed", "unit", "shown"),
    [
        (3277.4, "frames", "3,277 frames/s"),
        (100.0, "questions", "100 questions/s"),
        (12.46, "recordings", "12.5 recordings/s"),
        (1.2, "recordings", "1.2 recordings/s"),
        (0.1034, "recordings", "0.1 recordings/s"),
        (0.0251, "videos", "0.025 videos/s"),
        (1_234_567, "bytes", "1.2 MB/s"),
    ],
)
def test_rates_read_like_a_person_wrote_them(speed: float, unit: str, shown: str) -> None:
    assert format_rate(speed, unit) == shown


def test_the_rate_is_the_average_since_the_start() -> None:
    """Three recordings handed back at once after 30 s are 0.1 recordings/s, not thousands."""
    now = [0.0]
    bars = Progress(RateColumn("recordings"), get_time=lambda: now[0], disable=True)
    task = bars.add_task("rendering", total=3)
    now[0] = 30.0
    for _ in range(3):
        bars.advance(task)
        now[0] += 0.0005
    assert str(RateColumn("recordings").render(bars.tasks[0])) == "0.1 recordings/s"
    assert bars.tasks[0].speed is not None and bars.tasks[0].speed > 1000  # rich's own estimate


def test_a_task_may_name_its_own_unit(monkeypatch: pytest.MonkeyPatch) -> None:
    stream = io.StringIO()
    monkeypatch.setattr(terminal, "errors", Console(file=stream, width=120))
    with terminal.progress(unit="trials") as bars:
        bars.add_task("building", total=2, completed=2)
        bars.add_task("rendering", total=2, completed=2, unit="videos")
    text = stream.getvalue()
    assert "trials/s" in text and "videos/s" in text


def test_a_task_with_nothing_done_shows_no_rate() -> None:
    bars = Progress(disable=True)
    task = bars.add_task("waiting", total=5)
    assert str(RateColumn().render(bars.tasks[task])) == ""
