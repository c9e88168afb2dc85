"""Helpers of the executor tests: shard functions workers can import, CLI runs, process tables."""

from __future__ import annotations

import os
import subprocess
import sys
import time
from collections.abc import Callable
from pathlib import Path

import pytest

from taskqa.problems import InvalidInputError, Problem
from taskqa.simulation.config import SimulationConfig
from taskqa.simulation.corpus import simulate_corpus, write_simulated_corpus
from taskqa.simulation.domain import Domain

TASKQA = [sys.executable, "-m", "taskqa"]


def square(offset: int, item: int) -> int:
    return item * item + offset


def failing(offset: int, item: int) -> int:
    if item == 3:
        raise ValueError(f"item {item} is bad")
    return item + offset


def bad_input(offset: int, item: int) -> int:
    raise InvalidInputError([Problem("input.json", f"[{item}]", "not a number")])


def dies_once(marker_folder: str, item: int) -> int:
    """Kills its own worker the first time it sees item 2; a retry finds the marker."""
    marker = Path(marker_folder) / f"died-{item}"
    if item == 2 and not marker.exists():
        marker.touch()
        os._exit(9)
    return item * 10


def process_table() -> dict[int, tuple[int, str]]:
    """Every process: its parent pid and state (from /proc)."""
    table: dict[int, tuple[int, str]] = {}
    for entry in os.listdir("/proc"):
        if not entry.isdigit():
            continue
        try:
            text = Path(f"/proc/{entry}/stat").read_text()
        except OSError:
            continue
        fields = text[text.rindex(")") + 2 :].split()
        table[int(entry)] = (int(fields[1]), fields[0])
    return table


def descendants(root: int) -> set[int]:
    table = process_table()
    children: dict[int, list[int]] = {}
    for pid, (parent, _) in table.items():
        children.setdefault(parent, []).append(pid)
    found: set[int] = set()
    stack = list(children.get(root, []))
    while stack:
        pid = stack.pop()
        found.add(pid)
        stack += children.get(pid, [])
    return found


def alive(pids: set[int]) -> set[int]:
    """Those of ``pids`` still running (a zombie has ended; only its entry is left)."""
    table = process_table()
    return {pid for pid in pids if pid in table and table[pid][1] != "Z"}


def wait_until(condition: object, timeout: float, step: float = 0.05) -> bool:
    assert callable(condition)
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if condition():
            return True
        time.sleep(step)
    return bool(condition())


def recorded_shards(journal: Path) -> int:
    return len(list(journal.glob("*.sha256"))) if journal.is_dir() else 0


def start_cli(*args: str) -> subprocess.Popen[bytes]:
    return subprocess.Popen(
        [*TASKQA, *args], stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, cwd=os.getcwd()
    )


def tree_bytes(folder: Path) -> dict[str, bytes]:
    """Every file under ``folder`` by relative path (hidden journals excluded)."""
    return {
        str(p.relative_to(folder)): p.read_bytes()
        for p in sorted(folder.rglob("*"))
        if p.is_file() and not any(part.startswith(".") for part in p.relative_to(folder).parts)
    }


@pytest.fixture(scope="session", name="tiny_corpus")
def tiny_corpus_fixture(tmp_path_factory: pytest.TempPathFactory, domain: Domain) -> Path:
    """Twelve simulated recordings: enough shards to interrupt, few enough to stay quick."""
    config = SimulationConfig(episodes=12, seed=3)
    out = tmp_path_factory.mktemp("tiny") / "corpus"
    write_simulated_corpus(out, config, simulate_corpus(config, domain), domain)
    return out


class Interrupt(Exception):
    """Stands for the driver being stopped after some shards."""


def stop_after(count: int) -> Callable[[int], None]:
    """A progress callback that interrupts the run once ``count`` shards have been reported."""
    done: list[int] = []

    def advance(n: int = 1) -> None:
        done.append(n)
        if len(done) >= count:
            raise Interrupt

    return advance
