"""The judge and verify-task kinds end to end through the app, and their exports read back by
the importers of `taskqa physics` (judgments) and checked against the pairs' labels."""

from __future__ import annotations

import json
import sqlite3
from pathlib import Path

import pytest
from fastapi.testclient import TestClient
from typer.testing import CliRunner

from studio_support import form_fields, make_study, tokens
from taskqa.cli import app as cli_app
from taskqa.physics.raters import import_judgments, parse_judgments
from taskqa.studio import db
from taskqa.studio.app import create_app
from taskqa.studio.exports import export_files
from taskqa.studio.kinds import get_kind
from taskqa.studio.summary import agreement


def _run(*args: str) -> None:
    result = CliRunner().invoke(cli_app, list(args))
    assert result.exit_code == 0, result.output


@pytest.fixture(scope="module")
def cegs(tmp_path_factory: pytest.TempPathFactory) -> Path:
    root = tmp_path_factory.mktemp("physics")
    _run("physics", "simulate", "--scenes", "2", "--seed", "0", "--out", str(root / "scenes"))
    _run("physics", "ceg", str(root / "scenes"), "--out", str(root / "ceg"))
    return root / "ceg" / "cegs.json"


@pytest.fixture(scope="module")
def egotv(tmp_path_factory: pytest.TempPathFactory) -> Path:
    out = tmp_path_factory.mktemp("egotv") / "bench"
    _run("verify", "build", "--out", str(out), "--trials", "1")
    return out


def _work_through(client: TestClient, token: str, answer: dict[str, str]) -> int:
    done = 0
    while True:
        step = client.get(f"/r/{token}", follow_redirects=False)
        if step.status_code != 303:
            return done
        url = step.headers["location"]
        csrf, submission = form_fields(client.get(url).text)
        posted = client.post(
            url, data={"csrf": csrf, "submission_id": submission, **answer}, follow_redirects=False
        )
        assert posted.status_code == 303, posted.text
        done += 1


def test_judge_study_exports_what_physics_imports(tmp_path: Path, cegs: Path) -> None:
    study = make_study(tmp_path / "judge.sqlite", cegs, "judge", per_category=3, raters=3, catch=2)
    links, _ = tokens(study)
    client = TestClient(create_app(study), raise_server_exceptions=False)
    url = client.get(f"/r/{links[0]}", follow_redirects=False).headers["location"]
    page = client.get(url).text
    assert "5 - extremely responsible" in page and "Event A:" in page
    csrf, submission = form_fields(page)
    missing_score = client.post(
        url, data={"csrf": csrf, "submission_id": submission, "nodes": "both"}
    )
    assert missing_score.status_code == 400 and "score" in missing_score.text
    # raters 1 and 2 agree (every pair 5, turned-around catch pairs too: they fail the checks);
    # rater 3 says 1 everywhere and passes the catch trials
    _work_through(client, links[0], {"nodes": "both", "score": "5"})
    _work_through(client, links[1], {"nodes": "both", "score": "5"})
    _work_through(client, links[2], {"nodes": "both", "score": "1"})
    connection = db.connect(study)
    try:
        files = export_files(connection, get_kind("judge"))
        alpha = agreement(connection, get_kind("judge"))
    finally:
        connection.close()
    judgments = parse_judgments(json.loads(files["judgments.json"]), "judgments.json")
    assert len(judgments.quality_checks) == 2
    imported = import_judgments(judgments)
    assert imported.accepted_raters == ["rater-03"]
    assert imported.rejected_raters == ["rater-01", "rater-02"]
    raters = json.loads(files["raters.json"])["raters"]
    assert [r["flagged"] for r in raters] == [True, True, False]
    graph = json.loads(files["ceg.json"])
    assert graph["threshold"] == 4.0 and graph["edges"]
    assert all(edge["scores"] == [1] and not edge["positive"] for edge in graph["edges"])
    assert alpha["level"] == "ordinal" and alpha["alpha"] is not None and alpha["alpha"] < 0


def test_verify_task_study_checks_descriptions(tmp_path: Path, egotv: Path) -> None:
    study = make_study(tmp_path / "vt.sqlite", egotv, "verify-task", per_category=2, raters=2,
                       per_item=2, catch=1)  # fmt: skip
    links, admin = tokens(study)
    client = TestClient(create_app(study), raise_server_exceptions=False)
    with sqlite3.connect(study) as connection:
        expected = dict(connection.execute("SELECT id, expected FROM items").fetchall())
    for token in links:
        while True:
            step = client.get(f"/r/{token}", follow_redirects=False)
            if step.status_code != 303:
                break
            url = step.headers["location"]
            csrf, submission = form_fields(client.get(url).text)
            truth = json.loads(expected[int(url.rsplit("/", 1)[1])])
            bad = client.post(
                url, data={"csrf": csrf, "submission_id": submission, "shows": "maybe"}
            )
            assert bad.status_code == 400
            client.post(url, data={"csrf": csrf, "submission_id": submission, "shows": truth})
    page = client.get(f"/admin/{admin}").text
    assert "1.000" in page  # two raters who agree on every pair
    out = tmp_path / "out"
    _run("studio", "export", str(study), "--out", str(out))
    summary = json.loads((out / "verdicts.json").read_text())
    assert summary and all(s["agree_with_label"] == 1.0 for s in summary.values())
    lines = (out / "verdicts.jsonl").read_text().splitlines()
    assert len(lines) == 2 * sum(s["verdicts"] // 2 for s in summary.values())


def test_creation_is_seeded_and_refuses_bad_sources(tmp_path: Path, cegs: Path) -> None:
    first = make_study(tmp_path / "a.sqlite", cegs, "judge", per_category=2, raters=3, seed=4)
    second = make_study(tmp_path / "b.sqlite", cegs, "judge", per_category=2, raters=3, seed=4)
    query = "SELECT rater_id, item_id, position FROM assignments ORDER BY 1, 3"
    with sqlite3.connect(first) as a, sqlite3.connect(second) as b:
        assert a.execute(query).fetchall() == b.execute(query).fetchall()
        assert a.execute("SELECT key FROM items").fetchall() == b.execute(
            "SELECT key FROM items").fetchall()  # fmt: skip
    runner = CliRunner()
    again = runner.invoke(cli_app, ["studio", "create", "judge", str(cegs), "-o", str(first)])
    assert again.exit_code == 1 and "never overwritten" in again.output
    broken = tmp_path / "broken.json"
    broken.write_text('[{"scene_index": 1}]')
    result = runner.invoke(
        cli_app, ["studio", "create", "judge", str(broken), "-o", str(tmp_path / "c")]
    )
    assert result.exit_code == 1 and "broken.json[0]" in result.output
    result = runner.invoke(cli_app, ["studio", "invite", str(broken)])
    assert result.exit_code == 1 and "not a taskqa studio file" in result.output
    too_few = runner.invoke(
        cli_app,
        ["studio", "create", "judge", str(cegs), "-o", str(tmp_path / "d"), "--raters", "2",
         "--per-item", "3"],
    )  # fmt: skip
    assert too_few.exit_code == 1 and "at least 3 raters" in too_few.output
    assert not (tmp_path / "c").exists() and not (tmp_path / "d").exists()
