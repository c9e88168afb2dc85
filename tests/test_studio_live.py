"""A live `taskqa studio serve` on 127.0.0.1: 50 raters x 20 answers at once, and the same
load with the server killed (SIGKILL) and restarted in the middle."""

from __future__ import annotations

import asyncio
import sqlite3
from pathlib import Path

import pytest

from studio_load import LoadResult, run_load
from studio_support import LiveServer, make_study, studio_bench, tokens

RATERS = 50


@pytest.fixture(scope="module")
def bench(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return studio_bench(tmp_path_factory)


def _load_study(path: Path, bench: Path) -> tuple[Path, int]:
    """Up to 5 questions per question type (up to 20 items), each answered by all 50 raters;
    returns the study and its item count (a type the small build has fewer of gives fewer:
    counterfactual questions, since issue 33 left the dependency templates out)."""
    study = make_study(path, bench, per_category=5, raters=RATERS, per_item=RATERS, catch=0)
    with sqlite3.connect(study) as connection:
        items = int(connection.execute("SELECT COUNT(*) FROM items").fetchone()[0])
    assert items >= 12
    return study, items


def _check_stored_once(study: Path, result: LoadResult, tokens_: list[str], answers: int) -> None:
    with sqlite3.connect(study) as connection:
        rows = connection.execute("SELECT rater_id, item_id, submission_id FROM responses")
        stored = {(rater, item): submission for rater, item, submission in rows}
        count = connection.execute("SELECT COUNT(*) FROM responses").fetchone()[0]
    assert count == len(stored) == RATERS * answers  # every answer, none twice
    rater_of = {token: index + 1 for index, token in enumerate(tokens_)}
    acknowledged = {(rater_of[t], item): sid for t, item, sid in result.acknowledged}
    assert len(acknowledged) == len(result.acknowledged) == RATERS * answers
    assert acknowledged == stored  # each acknowledged submission is the stored one


def test_fifty_raters_at_once(tmp_path: Path, bench: Path) -> None:
    study, answers = _load_study(tmp_path / "load.sqlite", bench)
    links, _ = tokens(study)
    server = LiveServer(study).start()
    try:
        result = asyncio.run(run_load(server.url, links, answers))
    finally:
        server.stop()
    _check_stored_once(study, result, links, answers)
    print(f"\n{RATERS}x{answers} answers; p95 submission latency {result.p95_ms():.1f} ms")


def test_answers_survive_a_killed_server(tmp_path: Path, bench: Path) -> None:
    study, answers = _load_study(tmp_path / "fault.sqlite", bench)
    links, _ = tokens(study)
    server = LiveServer(study).start()
    killed_at: list[int] = []

    async def kill_and_restart(result: LoadResult) -> None:
        while len(result.acknowledged) < RATERS * answers // 3:
            await asyncio.sleep(0.005)
        server.kill()  # SIGKILL: no shutdown, requests in flight are cut off
        killed_at.append(len(result.acknowledged))
        await asyncio.sleep(0.5)
        await asyncio.to_thread(server.start)

    try:
        result = asyncio.run(run_load(server.url, links, answers, kill_and_restart))
    finally:
        server.stop()
    assert killed_at and killed_at[0] < RATERS * answers
    assert result.retries > 0  # clients really did meet the dead server
    _check_stored_once(study, result, links, answers)
