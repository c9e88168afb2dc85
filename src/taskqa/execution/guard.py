"""No worker outlives its driver: the guards for pool workers and for a local Ray instance.

A driver killed with SIGKILL runs no cleanup, so the workers have to notice on their own. On
Linux the kernel does it: ``PR_SET_PDEATHSIG`` sends the worker SIGKILL when its parent dies.
Elsewhere (and against the race where the parent died before the call) a daemon thread polls
the parent's pid. A local Ray instance is not one level deep (raylet, agents, workers), so a
small watchdog process records every descendant of the driver while it lives and kills the
ones still alive once it is gone (``taskqa.execution.watchdog``).
"""

from __future__ import annotations

import ctypes
import os
import signal
import subprocess
import sys
import threading
import time

PR_SET_PDEATHSIG = 1  # from <linux/prctl.h>
POLL_SECONDS = 0.5


def die_with_parent(parent: int) -> None:
    """Make this (worker) process end as soon as ``parent`` does."""
    if sys.platform.startswith("linux"):
        try:
            libc = ctypes.CDLL(None, use_errno=True)
            libc.prctl(PR_SET_PDEATHSIG, signal.SIGKILL, 0, 0, 0)
        except (OSError, AttributeError):
            pass  # the polling thread below still covers it
    if os.getppid() != parent:
        os._exit(1)  # the parent died before the signal was armed
    threading.Thread(target=_poll_parent, args=(parent,), daemon=True).start()


def _poll_parent(parent: int) -> None:
    while os.getppid() == parent:
        time.sleep(POLL_SECONDS)
    os._exit(1)


def start_watchdog() -> subprocess.Popen[bytes] | None:
    """Start the watchdog over this process's descendants (Linux only: it reads /proc)."""
    if not os.path.isdir("/proc/self"):
        return None
    return subprocess.Popen(
        [sys.executable, "-m", "taskqa.execution.watchdog", str(os.getpid())],
        stdin=subprocess.DEVNULL,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
        start_new_session=True,  # a Ctrl-C meant for the driver must not stop the watchdog first
    )


def stop_watchdog(watchdog: subprocess.Popen[bytes] | None) -> None:
    """The driver is ending cleanly: the watchdog leaves everything alone and exits."""
    if watchdog is None:
        return
    watchdog.terminate()
    try:
        watchdog.wait(timeout=5)
    except subprocess.TimeoutExpired:
        watchdog.kill()
        watchdog.wait()
