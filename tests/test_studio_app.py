"""The studio app through FastAPI's TestClient: the answer flow, access control, bad input,
media ranges, and the exports that `taskqa evaluate` reads."""

from __future__ import annotations

import json
import re
import sqlite3
import time
from pathlib import Path

import pytest
from fastapi.testclient import TestClient
from typer.testing import CliRunner

from studio_support import form_fields, make_study, studio_bench, tokens
from taskqa.benchmark.folder import Benchmark
from taskqa.cli import app as cli_app
from taskqa.studio.app import create_app


@pytest.fixture(scope="module")
def bench(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return studio_bench(tmp_path_factory)


@pytest.fixture()
def study(tmp_path: Path, bench: Path) -> Path:
    return make_study(tmp_path / "study.sqlite", bench, per_category=3, raters=2, catch=2)


@pytest.fixture()
def client(study: Path) -> TestClient:
    return TestClient(create_app(study), raise_server_exceptions=False)


def _open_next(client: TestClient, token: str) -> tuple[str, str]:
    """Follow the rater's link to their next item; the item's URL and page."""
    first = client.get(f"/r/{token}", follow_redirects=False)
    assert first.status_code == 303, first.text
    url = first.headers["location"]
    page = client.get(url)
    assert page.status_code == 200, page.text
    return url, page.text


def _answer(client: TestClient, token: str, value: str = "yes") -> tuple[str, str]:
    url, html = _open_next(client, token)
    csrf, submission = form_fields(html)
    if 'value="yes"' not in html:  # an open question: any text is an answer
        value = value if value not in ("yes", "no") else "off"
    posted = client.post(
        url,
        data={"csrf": csrf, "submission_id": submission, "answer": value},
        follow_redirects=False,
    )
    assert posted.status_code == 303, posted.text
    return url, submission


def _rows(study: Path) -> list[tuple[int, int, str]]:
    with sqlite3.connect(study) as connection:
        return connection.execute(
            "SELECT rater_id, item_id, submission_id FROM responses ORDER BY id"
        ).fetchall()


def test_rater_answers_resume_where_they_stopped(study: Path, client: TestClient) -> None:
    [first, _], _ = tokens(study)
    seen = [_answer(client, first)[0] for _ in range(3)]
    assert len(set(seen)) == 3
    fourth, _ = _open_next(client, first)
    assert fourth not in seen  # the queue resumes at the first unanswered item
    rows = _rows(study)
    assert [r[0] for r in rows] == [1, 1, 1]
    with sqlite3.connect(study) as connection:
        seconds = [s for (s,) in connection.execute("SELECT seconds FROM responses")]
    assert all(s is not None and s >= 0 for s in seconds)  # time on task is recorded


def test_a_retried_submission_is_stored_once(study: Path, client: TestClient) -> None:
    [token, _], _ = tokens(study)
    url, html = _open_next(client, token)
    csrf, submission = form_fields(html)
    data = {"csrf": csrf, "submission_id": submission, "answer": "yes"}
    if 'value="yes"' not in html:
        data["answer"] = "cup"
    for _ in range(3):  # the acknowledgement was lost: the browser sends the form again
        assert client.post(url, data=data, follow_redirects=False).status_code == 303
    assert len(_rows(study)) == 1
    other = dict(data, submission_id="another-submission-0001")
    again = client.post(url, data=other, follow_redirects=False)
    assert again.status_code == 409 and "already answered" in again.text
    assert len(_rows(study)) == 1


def test_forged_and_expired_tokens_are_refused(study: Path, client: TestClient) -> None:
    [token, _], admin = tokens(study)
    forged = client.get("/r/" + "A" * 32)
    assert forged.status_code == 403
    assert forged.headers["content-type"].startswith("text/plain")
    assert forged.text == "invalid invitation link\n"
    assert client.get(f"/admin/{token}").status_code == 403  # a rater is not the admin
    assert client.get(f"/r/{admin}").status_code == 403  # nor the admin a rater
    with sqlite3.connect(study) as connection:
        connection.execute("UPDATE raters SET expires_at = ?", (time.time() - 1,))
    expired = client.get(f"/r/{token}")
    assert expired.status_code == 403 and "expired" in expired.text
    [fresh, _], _ = tokens(study)  # inviting again issues new links; the old ones stop working
    assert client.get(f"/r/{fresh}", follow_redirects=False).status_code == 303
    assert client.get(f"/r/{token}").status_code == 403


def test_another_raters_item_is_out_of_reach(study: Path, client: TestClient) -> None:
    [first, second], _ = tokens(study)
    url, submission = _answer(client, first, "yes")
    item = url.rsplit("/", 1)[1]
    with sqlite3.connect(study) as connection:
        theirs = {
            i for (i,) in connection.execute("SELECT item_id FROM assignments WHERE rater_id = 2")
        }
    assert int(item) not in theirs  # one rater per item: the item is rater 1's only
    page = client.get(f"/r/{second}/items/{item}")
    assert page.status_code == 404 and page.text == f"item {item} is not in your queue\n"
    # the second rater cannot post to it either, nor read the first rater's answer anywhere
    _, html = _open_next(client, second)
    csrf, own = form_fields(html)
    posted = client.post(
        f"/r/{second}/items/{item}", data={"csrf": csrf, "submission_id": own, "answer": "no"}
    )
    assert posted.status_code == 404
    assert submission not in html
    assert len(_rows(study)) == 1


@pytest.mark.parametrize(
    ("path", "status"),
    [
        ("../study.sqlite", 403),
        ("..%2Fstudy.sqlite", 403),
        ("%2E%2E/%2E%2E/etc/passwd", 403),
        ("splits/normal/test.jsonl", 404),  # inside the root, but not a media file of an item
        ("corpus/videos/nothing.mp4", 404),
    ],
)
def test_media_outside_the_items_is_refused(
    study: Path, client: TestClient, path: str, status: int
) -> None:
    [token, _], _ = tokens(study)
    response = client.get(f"/media/{token}/{path}")
    assert response.status_code == status, response.text
    assert response.headers["content-type"].startswith("text/plain")
    assert "Traceback" not in response.text


def test_media_is_served_with_ranges(tmp_path: Path, bench: Path) -> None:
    study = make_study(
        tmp_path / "video.sqlite", bench, per_category=2, raters=1, require_video=True
    )
    client = TestClient(create_app(study), raise_server_exceptions=False)
    [token], _ = tokens(study)
    _, html = _open_next(client, token)
    source = re.search(r'src="(/media/[^"#]+)', html)
    assert source, "the first item has no video"
    relative = source.group(1).split("/", 3)[3]
    size = (bench / relative).stat().st_size
    whole = client.get(source.group(1))
    assert whole.status_code == 200 and len(whole.content) == size
    assert whole.headers["accept-ranges"] == "bytes"
    part = client.get(source.group(1), headers={"Range": "bytes=100-1099"})
    assert part.status_code == 206
    assert part.headers["content-range"] == f"bytes 100-1099/{size}"
    assert part.content == (bench / relative).read_bytes()[100:1100]
    beyond = client.get(source.group(1), headers={"Range": f"bytes={size + 10}-"})
    assert beyond.status_code == 416


def test_bad_forms_get_plain_4xx_messages(study: Path, client: TestClient) -> None:
    [token, _], _ = tokens(study)
    url, html = _open_next(client, token)
    csrf, submission = form_fields(html)
    good = {"csrf": csrf, "submission_id": submission, "answer": "yes"}
    cases = [
        (dict(good, csrf="0" * 64), 403, "security token"),
        ({k: v for k, v in good.items() if k != "csrf"}, 403, "security token"),
        (dict(good, answer=""), 400, "'answer' is required"),
        (dict(good, answer="x" * 201), 400, "too long"),
        (dict(good, answer="x" * 5000), 400, "too long"),
        (dict(good, answer="ok\x00"), 400, "control characters"),
        (dict(good, submission_id="short"), 400, "submission_id"),
        (dict(good, answer="..."), 400, "empty"),
    ]
    for data, status, message in cases:
        response = client.post(url, data=data, follow_redirects=False)
        assert response.status_code == status, (data, response.text)
        assert message in response.text and "Traceback" not in response.text
        assert response.headers["content-type"].startswith("text/plain")
    raw = [
        (b"a=1&a=2", "application/x-www-form-urlencoded", 400, "given twice"),
        (b"&".join(b"f%d=1" % i for i in range(100)), "application/x-www-form-urlencoded", 400,
         "malformed form"),
        (b"x" * 20_000, "application/x-www-form-urlencoded", 413, "too large"),
        (b"\xff\xfe=1", "application/x-www-form-urlencoded", 400, "UTF-8"),
        (b'{"answer": "yes"}', "application/json", 415, "expected a form"),
    ]  # fmt: skip
    for body, content_type, status, message in raw:
        response = client.post(url, content=body, headers={"content-type": content_type})
        assert response.status_code == status, (body[:30], response.text)
        assert message in response.text
    assert client.get(f"/r/{token}/items/notanumber").status_code == 404
    assert client.get(f"/r/{token}/items/99999999").status_code == 404
    assert client.get("/nowhere").text == "not found\n"
    assert client.put(url).status_code == 405
    assert _rows(study) == []


def test_a_binary_question_takes_only_yes_or_no(study: Path, client: TestClient) -> None:
    [token, _], _ = tokens(study)
    with sqlite3.connect(study) as connection:
        binary = connection.execute(
            "SELECT a.item_id FROM assignments a JOIN items i ON i.id = a.item_id "
            'WHERE a.rater_id = 1 AND i.payload LIKE \'%"answer_kind": "binary"%\''
        ).fetchone()
    if binary is None:
        pytest.skip("the sampled queue has no yes/no question")
    url = f"/r/{token}/items/{binary[0]}"
    csrf, submission = form_fields(client.get(url).text)
    response = client.post(url, data={"csrf": csrf, "submission_id": submission, "answer": "maybe"})
    assert response.status_code == 400 and "yes or no" in response.text
    ok = client.post(
        url,
        data={"csrf": csrf, "submission_id": submission, "answer": "Yeah."},
        follow_redirects=False,
    )
    assert ok.status_code == 303
    with sqlite3.connect(study) as connection:
        (stored,) = connection.execute("SELECT response FROM responses").fetchone()
    assert json.loads(stored) == {"answer": "Yeah.", "normalized": "yes"}


def test_a_server_fault_is_a_plain_500(study: Path, client: TestClient) -> None:
    [token, _], _ = tokens(study)
    with sqlite3.connect(study) as connection:
        connection.execute("UPDATE items SET payload = 'not json'")
    response = client.get(f"/r/{token}", follow_redirects=True)
    assert response.status_code == 500
    assert response.text.startswith("internal error") and "Traceback" not in response.text


def test_answer_study_exports_a_human_column(
    tmp_path: Path, bench: Path, study: Path, client: TestClient
) -> None:
    """End to end: answers through the app -> export -> `taskqa evaluate` shows Human."""
    [first, second], admin = tokens(study)
    truth = {q.id: q.question.answer for q in Benchmark(bench).questions("normal", "test")}
    truth |= {q.id: q.question.answer for q in Benchmark(bench).questions("normal", "train")}
    with sqlite3.connect(study) as connection:
        keys = dict(connection.execute("SELECT id, key FROM items").fetchall())
    for token in (first, second):
        while True:
            step = client.get(f"/r/{token}", follow_redirects=False)
            if step.status_code != 303:
                assert "You have finished" in step.text
                break
            url = step.headers["location"]
            csrf, submission = form_fields(client.get(url).text)
            answer = truth[keys[int(url.rsplit("/", 1)[1])]]
            posted = client.post(
                url,
                data={"csrf": csrf, "submission_id": submission, "answer": answer.upper()},
                follow_redirects=False,
            )
            assert posted.status_code == 303
    progress = client.get(f"/admin/{admin}")
    assert progress.status_code == 200 and "human.jsonl" in progress.text
    download = client.get(f"/admin/{admin}/exports/human.jsonl")
    assert download.status_code == 200
    runner = CliRunner()
    out = tmp_path / "exports"
    result = runner.invoke(cli_app, ["studio", "export", str(study), "--out", str(out)])
    assert result.exit_code == 0, result.output
    assert (out / "human.jsonl").read_bytes() == download.content
    lines = [json.loads(line) for line in download.text.splitlines()]
    # one line per study question of the test split (up to 3 per reasoning type; catch items,
    # drawn from train, left out)
    with sqlite3.connect(study) as connection:
        items = connection.execute("SELECT key, category FROM items WHERE catch = 0").fetchall()
    test_ids = {q.id for q in Benchmark(bench).questions("normal", "test")}
    asked = {key for key, _ in items if key in test_ids}
    assert len({category for _, category in items}) >= 3 and len(asked) >= 9
    assert len(lines) == len({line["question_id"] for line in lines}) == len(asked)
    raters = json.loads((out / "raters.json").read_text())
    assert [r["catch_correct"] for r in raters["raters"]] == [2, 2]
    assert not any(r["flagged"] for r in raters["raters"])
    result = runner.invoke(
        cli_app,
        ["evaluate", "-b", str(bench), "-p", str(out / "human.jsonl"), "-o", str(tmp_path / "ev"),
         "--resamples", "50"],
    )  # fmt: skip
    assert result.exit_code == 0, result.output
    results = json.loads((tmp_path / "ev" / "results.json").read_text())
    split_size = results["benchmark"]["questions"]
    assert split_size > len(asked)  # the study asked a sample of the split
    human = next(m for m in results["models"] if m["name"] == "Human")
    assert human["coverage"]["answered"] == len(asked)
    # upper-cased answers count
    assert human["breakdowns"]["overall"]["all"]["correct"] == len(asked)
    # scored on its sample (EgoTaskQA's Human row), not on the split with the rest "missing"
    assert human["scored_on"] == "answered" and human["questions_scored"] == len(asked)
    assert human["accuracy"] == 1.0
    assert human["breakdowns"]["overall"]["all"]["questions"] == len(asked)
    assert human["breakdowns"]["overall"]["all"]["missing"] == 0
    most_likely = next(m for m in results["models"] if m["name"] == "most-likely")
    assert most_likely["scored_on"] == "split" and most_likely["questions_scored"] == split_size
    [pair] = results["comparisons"]
    assert pair["questions"] == len(asked)  # compared on the questions both were scored on
    assert "Human: 100.00%" in result.output
    assert f"scored on the {len(asked)} questions its file answers" in result.output
    report = (tmp_path / "ev" / "report.md").read_text()
    assert "| category | questions | chance | most-likely | Human |" in report
    assert f"**Human was scored on {len(asked)} of the split's {split_size} questions**" in report
    assert "not comparable question-for-question" in report
    assert f"| {len(asked)} of {split_size}: the questions its file answers |" in report


def test_catch_failures_flag_the_rater(study: Path, client: TestClient, tmp_path: Path) -> None:
    [first, _], admin = tokens(study)
    while True:
        step = client.get(f"/r/{first}", follow_redirects=False)
        if step.status_code != 303:
            break
        url = step.headers["location"]
        html = client.get(url).text
        csrf, submission = form_fields(html)
        answer = "no" if 'value="yes"' in html else "zzz"
        client.post(url, data={"csrf": csrf, "submission_id": submission, "answer": answer})
    page = client.get(f"/admin/{admin}").text
    assert "flagged" in page
    out = tmp_path / "export"  # a folder of its own: tmp_path holds the study (taskqa.outputs)
    files = CliRunner().invoke(cli_app, ["studio", "export", str(study), "-o", str(out)])
    assert files.exit_code == 0
    meta = json.loads((out / "human.meta.json").read_text())
    assert meta["flagged_raters_left_out"] == ["rater-01"]
    assert (out / "human.jsonl").read_text() == ""  # the only answers were the flagged rater's


def test_serve_without_the_studio_extra_says_how_to_install_it(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    import importlib.util

    from typer.testing import CliRunner

    from taskqa.cli import app

    real = importlib.util.find_spec
    monkeypatch.setattr(
        importlib.util, "find_spec", lambda name, *a: None if name == "uvicorn" else real(name, *a)
    )
    (tmp_path / "s.sqlite").touch()  # the study must exist: a missing one is said first
    result = CliRunner().invoke(app, ["studio", "serve", str(tmp_path / "s.sqlite")])
    assert result.exit_code == 1
    assert result.output.strip() == (
        "✗ taskqa studio: needs uvicorn, part of the studio extra: pip install 'taskqa[studio]'"
    )


def test_the_cli_cuts_each_clip_so_no_rater_sees_past_it(tmp_path: Path, bench: Path) -> None:
    from typer.testing import CliRunner

    from taskqa.benchmark.folder import Benchmark
    from taskqa.cli import app
    from taskqa.render.video import video_info
    from taskqa.studio import db

    study = tmp_path / "s.sqlite"
    args = ["studio", "create", "answer", str(bench), "--out", str(study), "--require-video"]
    result = CliRunner().invoke(app, [*args, "--per-category", "2", "--catch", "0"])
    assert result.exit_code == 0, result.output
    rows = {row.clip: row for row in Benchmark(bench).videos().rows}
    connection = db.connect(study)
    try:
        chosen = db.items(connection)
        root = Path(str(db.meta(connection)["media_root"]))
    finally:
        connection.close()
    assert root == (tmp_path / "s-clips").resolve() and chosen
    for item in chosen:
        clip = rows[item.payload["clip"]]
        frames, fps, _ = video_info(root / str(item.media))
        # the file holds the clip's span and nothing after it; no seeking into a longer video
        assert item.start_s is None and item.end_s is None
        assert abs(frames / fps - (clip.end_s - clip.start_s)) <= 1 / fps + 1e-6


# --- media roots: `serve --media` adds a place to look, it never hides the study's own clips ---


def _documented_study(root: Path, bench: Path) -> Path:
    """`taskqa studio create answer BENCH --out ROOT/human.sqlite --require-video`, as
    docs/studio.md has it: the clips are cut into ROOT/human-clips/."""
    study = root / "human.sqlite"
    args = ["studio", "create", "answer", str(bench), "--out", str(study), "--require-video"]
    result = CliRunner().invoke(cli_app, [*args, "--per-category", "2", "--raters", "1"])
    assert result.exit_code == 0, result.output
    assert any((root / "human-clips").glob("*.mp4"))
    return study


def _first_video(client: TestClient, token: str) -> tuple[str, str]:
    """The media URL of the rater's first item with a video, and the path it names."""
    _, html = _open_next(client, token)
    source = re.search(r'src="(/media/[^"#]+)', html)
    assert source, "the first item has no video"
    return source.group(1), source.group(1).split("/", 3)[3]


def test_the_documented_serve_command_serves_the_cut_clips(tmp_path: Path, bench: Path) -> None:
    study = _documented_study(tmp_path / "st", bench)
    # `taskqa studio serve out/st/human.sqlite --media out/st/bench`: the benchmark folder has
    # no clip files, and before this fix --media replaced the clip folder: every video was a 404
    app = create_app(study, bench)
    client = TestClient(app, raise_server_exceptions=False)
    [token], _ = tokens(study)
    url, name = _first_video(client, token)
    response = client.get(url)
    assert response.status_code == 200, response.text
    assert response.headers["content-type"] == "video/mp4"
    assert response.content == (tmp_path / "st" / "human-clips" / name).read_bytes()
    checked = app.state.media
    assert checked.referenced > 0 and checked.missing == ()
    assert checked.roots == ((tmp_path / "st" / "human-clips").resolve(), bench.resolve())


def test_a_media_root_that_lacks_the_study_media_is_refused_at_start(
    tmp_path: Path, bench: Path
) -> None:
    from taskqa.problems import InvalidInputError

    study = _documented_study(tmp_path / "st", bench)
    (tmp_path / "st" / "human-clips").rename(tmp_path / "elsewhere")  # the clips went away
    with pytest.raises(InvalidInputError) as refused:
        create_app(study, bench)
    message = str(refused.value.problems[0])
    with sqlite3.connect(study) as connection:
        (referenced,) = connection.execute(
            "SELECT COUNT(DISTINCT media) FROM items WHERE media IS NOT NULL"
        ).fetchone()
    assert f"{referenced} of the {referenced} media files" in message
    assert str(bench.resolve()) in message and "--media only adds a folder" in message
    with pytest.raises(InvalidInputError, match="not a folder"):
        create_app(study, tmp_path / "no-such-folder")
    # without --media the study still starts (the page says the video is missing), and says so
    assert create_app(study).state.media.missing
    # --media naming where the clips are now serves them
    client = TestClient(create_app(study, tmp_path / "elsewhere"), raise_server_exceptions=False)
    [token], _ = tokens(study)
    url, name = _first_video(client, token)
    assert client.get(url).content == (tmp_path / "elsewhere" / name).read_bytes()


def test_a_study_moved_with_its_clip_folder_still_finds_them(tmp_path: Path, bench: Path) -> None:
    _documented_study(tmp_path / "st", bench)
    (tmp_path / "st").rename(tmp_path / "moved")  # the stored clip folder is gone
    study = tmp_path / "moved" / "human.sqlite"
    client = TestClient(create_app(study), raise_server_exceptions=False)
    [token], _ = tokens(study)
    url, name = _first_video(client, token)
    assert client.get(url).content == (tmp_path / "moved" / "human-clips" / name).read_bytes()


def test_serve_says_where_it_listens_and_when_it_stops(tmp_path: Path, bench: Path) -> None:
    import signal
    import subprocess
    import sys

    import httpx

    study = _documented_study(tmp_path / "st", bench)
    code = (
        "import sys; from pathlib import Path; from taskqa.studio.app import serve; "
        "serve(Path(sys.argv[1]), Path(sys.argv[2]), port=0)"
    )
    process = subprocess.Popen(
        [sys.executable, "-c", code, str(study), str(bench)],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    try:
        assert process.stdout is not None
        first = process.stdout.readline()
        match = re.fullmatch(
            rf"studio: serving {re.escape(str(study))} at (http://127\.0\.0\.1:\d+/) "
            r"\(Ctrl-C to stop\)\n",
            first,
        )
        assert match, (first, process.stderr.read() if process.poll() is not None else "")
        media = process.stdout.readline()
        assert re.fullmatch(r"studio: media: (\d+) of \1 media files found \(looked in .+\)\n",
                            media), media  # fmt: skip
        assert httpx.get(match.group(1) + "healthz", timeout=5).text == "ok\n"
        process.send_signal(signal.SIGINT)  # Ctrl-C
        out, err = process.communicate(timeout=20)
    finally:
        if process.poll() is None:
            process.kill()
            process.wait()
    assert out == "studio: stopped\n", (out, err)
    assert process.returncode == 0 and "Traceback" not in err


def test_serve_refuses_an_address_in_use(tmp_path: Path, bench: Path) -> None:
    import socket

    from taskqa.problems import InvalidInputError
    from taskqa.studio.app import serve

    study = _documented_study(tmp_path / "st", bench)
    with socket.socket() as taken:
        taken.bind(("127.0.0.1", 0))
        taken.listen()
        port = taken.getsockname()[1]
        lines: list[str] = []
        with pytest.raises(InvalidInputError, match="cannot listen"):
            serve(study, port=port, echo=lines.append)
    assert lines == []
