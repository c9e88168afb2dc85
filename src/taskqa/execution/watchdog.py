"""``python -m taskqa.execution.watchdog PID``: kill what PID started once PID is gone.

While the driver lives, every half second the watchdog notes each of its descendants (pid and
start time, so a reused pid is never mistaken for one of them). When the driver disappears or
turns into a zombie (SIGKILL), the noted processes still alive get SIGKILL too: the raylet and
GCS of a local Ray instance, its agents and its workers, even those already re-parented to
init. A clean driver stops the watchdog with SIGTERM first (``guard.stop_watchdog``).
"""

from __future__ import annotations

import contextlib
import os
import signal
import sys
import time
from pathlib import Path

POLL_SECONDS = 0.5
ProcessKey = tuple[int, str]  # pid and start time (clock ticks since boot)


def _stat(pid: int) -> tuple[str, int, str] | None:
    """State, parent pid and start time of ``pid``, or None once it is gone."""
    try:
        text = Path(f"/proc/{pid}/stat").read_text()
    except OSError:
        return None
    # The command name sits in parentheses and may itself hold spaces or parentheses.
    fields = text[text.rindex(")") + 2 :].split()
    return fields[0], int(fields[1]), fields[19]


def _children() -> dict[int, list[int]]:
    children: dict[int, list[int]] = {}
    for entry in os.listdir("/proc"):
        if entry.isdigit() and (stat := _stat(int(entry))) is not None:
            children.setdefault(stat[1], []).append(int(entry))
    return children


def _descendants(root: int) -> set[ProcessKey]:
    tree = _children()
    found: set[ProcessKey] = set()
    stack = list(tree.get(root, []))
    while stack:
        pid = stack.pop()
        if pid == os.getpid() or (stat := _stat(pid)) is None:
            continue
        found.add((pid, stat[2]))
        stack += tree.get(pid, [])
    return found


def watch(driver: int) -> None:
    first = _stat(driver)
    if first is None:
        return
    started = first[2]
    noted: set[ProcessKey] = set()
    while (stat := _stat(driver)) is not None and stat[2] == started and stat[0] != "Z":
        noted |= _descendants(driver)
        time.sleep(POLL_SECONDS)
    for pid, start in sorted(noted):
        now = _stat(pid)
        if now is not None and now[2] == start and now[0] != "Z":
            with contextlib.suppress(ProcessLookupError):
                os.kill(pid, signal.SIGKILL)


def main() -> None:
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    watch(int(sys.argv[1]))


if __name__ == "__main__":
    main()
