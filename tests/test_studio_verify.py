"""The verify kind (ProMQA-style review: two reviewers, then an adjudicator as in the paper's
Table 13) through the app, and its export read back by `taskqa procedural verify`.

The fixture is seven records of ProMQA's released sample (../shared/data/promqa/
examples_sample.json, Apache-2.0), picked to cover every case of the adjudication rule:
reviewers who agree on everything, an answer both reject, an answer they split on, answers
the reviewers wrote, and a question they split on, with and without an answer the adjudicator
adds. `taskqa procedural import-released` turns it into generated records and the released
verification file; the reviewers and the adjudicator then give the released judgments through
the web forms, and the studio's `judgments.json` must make `procedural verify` rebuild the
released records.
"""

from __future__ import annotations

import html
import json
import re
import sqlite3
from pathlib import Path
from typing import Any

import pytest
from fastapi.testclient import TestClient
from typer.testing import CliRunner

from studio_support import form_fields, make_study, tokens
from taskqa.cli import app as cli_app
from taskqa.studio.app import create_app

FIXTURE = Path(__file__).parent / "fixtures" / "studio" / "promqa_released_sample.json"
POOL_ROW = re.compile(r'<div class="answer-row" id="pool-(\d+)"><p>\d+\. (.*?)</p>', re.S)
REASON = "the answer names a step the recipe does not have"


def _run(*args: str) -> str:
    result = CliRunner().invoke(cli_app, list(args))
    assert result.exit_code == 0, result.output
    return result.output


@pytest.fixture(scope="module")
def promqa(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, dict[str, Any]]:
    """Generated records and the released judgments, by question id."""
    root = tmp_path_factory.mktemp("promqa")
    generated, judgments = root / "generated.json", root / "judgments.json"
    _run("procedural", "import-released", "--released", str(FIXTURE),
         "--generated-out", str(generated), "--judgments-out", str(judgments))  # fmt: skip
    released = {entry["question_id"]: entry for entry in json.loads(judgments.read_text())}
    return generated, released


def _keys(study: Path) -> dict[int, str]:
    with sqlite3.connect(study) as connection:
        return dict(connection.execute("SELECT id, key FROM items").fetchall())


def _next(client: TestClient, token: str) -> tuple[str, str] | None:
    step = client.get(f"/r/{token}", follow_redirects=False)
    if step.status_code != 303:
        assert step.status_code == 200 and "Thank you" in step.text
        return None
    url = step.headers["location"]
    page = client.get(url)
    assert page.status_code == 200, page.text
    return url, page.text


def _post(client: TestClient, url: str, page: str, form: dict[str, str]) -> Any:
    csrf, submission = form_fields(page)
    return client.post(url, data={"csrf": csrf, "submission_id": submission, **form},
                       follow_redirects=False)  # fmt: skip


def _review_form(judge: dict[str, Any], edit: bool) -> dict[str, str]:
    """The form a reviewer fills to give a released judgment: a rejected question with a
    reason; else a verdict per answer (the first rejected one as an edit, when ``edit`` and
    the reviewer wrote answers) and the written answers one per line."""
    if not judge["question"]:
        return {"question": "reject", "reason": "not a question the person would ask now"}
    form = {"question": "accept"}
    written = list(judge["comment"])
    for index, ok in enumerate(judge["answers"]):
        if ok:
            form[f"answer-{index}"] = "accept"
        elif edit and written and not any(v == "edit" for v in form.values()):
            form[f"answer-{index}"] = "edit"
            form[f"edit-{index}"] = written.pop(0)
        else:
            form[f"answer-{index}"] = "reject"
            form["reason"] = REASON
    form["written"] = "\n".join(written)
    return form


def _pool(page: str) -> dict[int, str]:
    return {int(k): html.unescape(text) for k, text in POOL_ROW.findall(page)}


def _decision_form(decision: dict[str, Any], page: str) -> dict[str, str]:
    form: dict[str, str] = {}
    if 'name="question"' in page:
        form["question"] = "accept" if decision["question"] else "reject"
    for k, text in _pool(page).items():
        if f'name="pool-{k}"' in page:
            form[f"pool-{k}"] = "accept" if decision["answers"][text] else "reject"
    if decision["added"]:
        form["added"] = "\n".join(decision["added"])
    return form


def test_reviews_and_adjudication_rebuild_the_release(
    tmp_path: Path, promqa: tuple[Path, dict[str, Any]]
) -> None:
    generated, released = promqa
    study = make_study(tmp_path / "verify.sqlite", generated, "verify", per_category=10,
                       raters=3, seed=3)  # fmt: skip
    with sqlite3.connect(study) as connection:
        names = [n for (n,) in connection.execute("SELECT name FROM raters ORDER BY id")]
    assert names == ["rater-01", "rater-02", "adjudicator-01", "admin"]
    (first, second, adjudicator), admin = tokens(study)
    client = TestClient(create_app(study), raise_server_exceptions=False)
    keys = _keys(study)
    assert sorted(keys.values()) == sorted(released)

    # nothing for the adjudicator before the reviews are in
    assert _next(client, adjudicator) is None
    waiting = client.get(f"/r/{adjudicator}")
    assert "7 item(s) wait for other reviewers" in waiting.text
    for index, token in enumerate((first, second)):
        while (found := _next(client, token)) is not None:
            url, page = found
            judge = released[keys[int(url.rsplit("/", 1)[1])]]["judges"][index]
            assert "Just done:" in page and 'name="question"' in page
            posted = _post(client, url, page, _review_form(judge, edit=index == 0))
            assert posted.status_code == 303, posted.text
        if token == first:  # one review of each: the adjudicator still waits
            assert _next(client, adjudicator) is None

    decided = 0
    while (found := _next(client, adjudicator)) is not None:
        url, page = found
        entry = released[keys[int(url.rsplit("/", 1)[1])]]
        assert "adjudicator" in entry  # only the items the reviewers left open come here
        posted = _post(client, url, page, _decision_form(entry["adjudicator"], page))
        assert posted.status_code == 303, posted.text
        decided += 1
    assert decided == sum("adjudicator" in e for e in released.values()) == 5
    done = client.get(f"/r/{adjudicator}").text
    assert "You have finished 7 of 7" in done  # the two agreed items need no decision

    out = tmp_path / "out"
    _run("studio", "export", str(study), "--out", str(out))
    exported = {e["question_id"]: e for e in json.loads((out / "judgments.json").read_text())}
    assert list(exported) == list(released)  # in the generated file's order
    for question_id, entry in exported.items():
        original = released[question_id]
        assert list(entry) == list(original)  # the verification file's fields, in its order
        assert entry["judges"] == original["judges"]
        assert entry.get("adjudicator") == original.get("adjudicator")
        # the adjudicator's pool: the same answers, shuffled with the study's seed
        pairs = sorted(zip(entry["pool"], entry["pool_tags"], strict=True))
        assert pairs == sorted(zip(original["pool"], original["pool_tags"], strict=True))

    # `taskqa procedural verify` takes the export unchanged and rebuilds the released records
    verified = tmp_path / "verified.json"
    output = _run("procedural", "verify", "--generated", str(generated), "--judgments",
                  str(out / "judgments.json"), "--out", str(verified))  # fmt: skip
    assert "7 verified, 0 rejected" in output
    assert verified.read_bytes() == (out / "verified.json").read_bytes()
    rebuilt = {r["question_id"]: r for r in json.loads(verified.read_text())}
    for record in json.loads(FIXTURE.read_text()):
        again = rebuilt[record["question_id"]]
        assert list(again) == list(record)
        unordered = ("adjudication", "answers", "answer_tags", "answer_approved_by")
        for key in record:
            if key not in unordered:
                assert again[key] == record[key], (record["question_id"], key)
        assert _finals(again) == _finals(record)
        assert _pool_rows(again) == _pool_rows(record)

    summary = json.loads((out / "verification.json").read_text())
    assert summary | {"annotator_agreement": None} == {
        "items": 7, "reviewed": 7, "agreed": 2, "adjudication_needed": 5, "adjudicated": 5,
        "complete": 7, "kept": 7, "rejected": 0, "annotator_agreement": None,
    }  # fmt: skip
    assert summary["annotator_agreement"]["question_count"] == 7
    assert summary["annotator_agreement"]["questions"] == pytest.approx(5 / 7)
    reviews = json.loads((out / "reviews.json").read_text())
    assert {r["state"] for r in reviews} == {"agreed", "adjudicated"}
    assert any(REASON in (review["reason"] or "") for r in reviews for review in r["reviews"])
    progress = client.get(f"/admin/{admin}")
    assert progress.status_code == 200 and "judgments.json" in progress.text


def _finals(record: dict[str, Any]) -> list[tuple[str, str, str]]:
    return sorted(zip(record["answers"], record["answer_tags"], record["answer_approved_by"],
                      strict=True))  # fmt: skip


def _pool_rows(record: dict[str, Any]) -> list[tuple[Any, ...]]:
    block = record["adjudication"]
    judged = block.get("judge", {}).get("answers", [None] * len(block["answers"]))
    rows = zip(block["answers"], block["answer_tags"], block["init"]["answers"], judged,
               strict=True)  # fmt: skip
    return sorted(rows, key=repr)


def test_review_forms_refuse_what_the_format_cannot_hold(
    tmp_path: Path, promqa: tuple[Path, dict[str, Any]]
) -> None:
    generated, _ = promqa
    study = make_study(tmp_path / "v.sqlite", generated, "verify", per_category=1, raters=3)
    (first, second, adjudicator), _ = tokens(study)
    client = TestClient(create_app(study), raise_server_exceptions=False)
    found = _next(client, first)
    assert found is not None
    url, page = found
    answers = int(page.count('class="answer-row"'))
    accept_all = {f"answer-{i}": "accept" for i in range(answers)}
    edit_text = re.search(r'name="edit-0" value="([^"]*)"', page)
    assert edit_text
    original = html.unescape(edit_text.group(1))
    refusals = [
        ({}, "field 'question' must be one of accept, reject"),
        ({"question": "reject"}, "say why the question is rejected"),
        ({"question": "accept"}, "field 'answer-0' must be one of accept, edit, reject"),
        ({"question": "accept", **accept_all, "answer-0": "reject"}, "say why answer 1"),
        ({"question": "accept", **accept_all, "answer-0": "edit", "edit-0": original},
         "answer 1 is unchanged"),
        ({"question": "accept", **accept_all, "written": original}, "repeats a generated one"),
        ({"question": "accept", **accept_all, "written": "a\na"}, "the same answer is written"),
        ({"question": "accept", **accept_all, "written": "x\u0007"}, "control characters"),
    ]  # fmt: skip
    for form, message in refusals:
        refused = _post(client, url, page, form)
        assert refused.status_code == 400 and message in refused.text, (form, refused.text)
        assert "\n" not in refused.text.rstrip("\n")  # one plain line
    # both reviewers reject every question: `procedural verify` still wants the adjudicator
    # to judge the answers (its rule for a question nobody accepted), so the item goes there
    rejections: dict[str, int] = {}
    for token in (first, second):
        while (found := _next(client, token)) is not None:
            url, page = found
            form = {"question": "reject", "reason": "the person could not know this yet"}
            assert _post(client, url, page, form).status_code == 303
            rejections[token] = rejections.get(token, 0) + 1
    found = _next(client, adjudicator)
    assert found is not None
    url, page = found
    assert "Both reviewers rejected the question" in page and 'name="question"' not in page
    assert "the person could not know this yet" in page  # the reviewers' reasons are shown
    added = _post(client, url, page, {"added": "something new"})
    assert added.status_code == 400 and "only when the reviewers disagree" in added.text
    while found is not None:
        url, page = found
        assert _post(client, url, page, {}).status_code == 303  # open answers: rejected
        found = _next(client, adjudicator)
    out = tmp_path / "out"
    _run("studio", "export", str(study), "--out", str(out))
    output = _run("procedural", "verify", "--generated", str(generated), "--judgments",
                  str(out / "judgments.json"), "--out", str(tmp_path / "verified.json"))  # fmt: skip
    assert f"0 verified, {rejections[first]} rejected" in output
    assert json.loads((tmp_path / "verified.json").read_text()) == []


def test_adjudication_waits_and_other_queues_are_closed(
    tmp_path: Path, promqa: tuple[Path, dict[str, Any]]
) -> None:
    generated, released = promqa
    study = make_study(tmp_path / "v.sqlite", generated, "verify", per_category=10, raters=3)
    (first, _, adjudicator), _ = tokens(study)
    client = TestClient(create_app(study), raise_server_exceptions=False)
    with sqlite3.connect(study) as connection:
        item = connection.execute(
            "SELECT item_id FROM assignments WHERE rater_id = 3 ORDER BY position"
        ).fetchone()[0]
    early = client.get(f"/r/{adjudicator}/items/{item}")
    assert early.status_code == 409 and early.text == f"item {item} waits for the other reviewers\n"
    assert client.get(f"/r/{first}/items/{item}").status_code == 200  # a reviewer's item
    # an adjudicator reviews nothing, and a reviewer cannot open another's stage
    with sqlite3.connect(study) as connection:
        stages = connection.execute(
            "SELECT rater_id, stage, COUNT(*) FROM assignments GROUP BY 1, 2 ORDER BY 1, 2"
        ).fetchall()
    assert stages == [(1, "answer", 7), (2, "answer", 7), (3, "adjudicate", 7)]


def test_creation_refusals_and_seeded_queues(
    tmp_path: Path, promqa: tuple[Path, dict[str, Any]]
) -> None:
    generated, _ = promqa
    runner = CliRunner()

    def create(*extra: str, source: Path = generated) -> Any:
        out = tmp_path / f"s{len(list(tmp_path.iterdir()))}.sqlite"
        return runner.invoke(cli_app, ["studio", "create", "verify", str(source), "-o", str(out),
                                       *extra])  # fmt: skip

    result = create("--raters", "2")
    assert result.exit_code == 1
    assert "needs at least 3 raters (got --raters 2): 2 reviewers per item" in result.output
    result = create("--per-item", "3", "--raters", "4")
    assert result.exit_code == 1 and "exactly 2 reviewers per item" in result.output
    broken = tmp_path / "broken.json"
    records = json.loads(generated.read_text())
    records[1]["generation"]["qas"][0]["answers"] = "not a list"
    broken.write_text(json.dumps(records))
    result = create(source=broken)
    assert result.exit_code == 1
    assert "broken.json[1].generation.qas[0].answers: expected a list" in result.output
    records[1]["generation"] = {"qas": [{"question": None, "answers": [None]}]}  # unparsed reply
    broken.write_text(json.dumps(records))
    result = create("--per-category", "50", source=broken)
    assert result.exit_code == 0, result.output
    assert result.output.startswith("6 items")  # the record without a pair is left out
    a = make_study(tmp_path / "a.sqlite", generated, "verify", per_category=2, raters=5,
                   adjudicators=2, seed=9)  # fmt: skip
    b = make_study(tmp_path / "b.sqlite", generated, "verify", per_category=2, raters=5,
                   adjudicators=2, seed=9)  # fmt: skip
    query = "SELECT rater_id, item_id, stage, position FROM assignments ORDER BY 1, 4"
    with sqlite3.connect(a) as first, sqlite3.connect(b) as second:
        rows = first.execute(query).fetchall()
        assert rows == second.execute(query).fetchall()
    reviews: dict[int, int] = {}
    for rater, item, stage, _ in rows:
        if stage == "answer":
            reviews[item] = reviews.get(item, 0) + 1
            assert rater <= 3  # the first three raters review
        else:
            assert rater in (4, 5)  # the two adjudicators
    assert set(reviews.values()) == {2}
