"""A real browser: Debian's Chromium, driven by Playwright, against a live studio server.

Opens an invitation link, plays the clip, answers up to three questions (all but the last of
the rater's queue), reloads and resumes at the next; a second rater sees none of it; screenshots of the answer and progress pages are saved
(tmp; docs/images/studio-*.png are copies of them)."""

from __future__ import annotations

import shutil
from pathlib import Path
from typing import Any

import pytest

from studio_support import LiveServer, make_study, studio_bench, tokens

CHROMIUM = "/usr/bin/chromium"
LAUNCH_ARGS = [
    "--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
    "--disable-background-networking", "--disable-component-update", "--disable-sync",
    "--autoplay-policy=no-user-gesture-required",
]  # fmt: skip


@pytest.fixture(scope="module")
def bench(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return studio_bench(tmp_path_factory)


def _answer_current(page: Any) -> None:
    if page.locator("input[type=radio][value=yes]").count():
        page.check("input[type=radio][value=yes]")
    else:
        page.fill("#answer", "off")
    with page.expect_navigation():
        page.click("button[type=submit]")


def test_rater_in_a_real_browser(tmp_path: Path, bench: Path) -> None:
    if shutil.which("chromium") is None and not Path(CHROMIUM).exists():
        print("skipped: Debian's chromium is not installed (make test installs it as root)")
        pytest.skip("chromium is not installed (apt-get install chromium)")
    sync_api = pytest.importorskip("playwright.sync_api")
    study = make_study(
        tmp_path / "browser.sqlite",
        bench,
        per_category=2,
        raters=2,
        catch=1,
        require_video=True,
        clip_folder=tmp_path / "browser-clips",  # as `studio create` does by default
    )
    [first, second], admin = tokens(study)
    server = LiveServer(study).start()
    shots = tmp_path / "shots"
    shots.mkdir()
    media_statuses: list[int] = []
    try:
        with sync_api.sync_playwright() as playwright:
            context = playwright.chromium.launch_persistent_context(
                str(tmp_path / "profile-1"),  # a new, empty user data dir
                executable_path=CHROMIUM,
                headless=True,
                args=LAUNCH_ARGS,
                viewport={"width": 900, "height": 760},
            )
            page = context.new_page()
            page.on(
                "response",
                lambda r: media_statuses.append(r.status) if "/media/" in r.url else None,
            )
            page.goto(f"{server.url}/r/{first}")
            assert "/items/" in page.url
            # the queue's length depends on how many test questions the fixture's one rendered
            # recording yields (the question mix decides), so read it rather than assume it
            total = int(page.inner_text("#progress").rsplit(" ", 1)[1])
            assert page.inner_text("#progress").endswith(f"item 1 of {total}") and total >= 2
            answered = min(3, total - 1)  # leave one to resume at
            # play the clip: a file of its own, no longer than a clip (about 25 s), and it advances
            page.wait_for_function("() => document.getElementById('clip').readyState >= 1")
            assert 0 < page.evaluate("document.getElementById('clip').duration") <= 40
            start = page.evaluate("document.getElementById('clip').currentTime")
            page.evaluate("document.getElementById('clip').muted = true")
            page.evaluate("document.getElementById('clip').play()")
            page.wait_for_function(
                f"() => document.getElementById('clip').currentTime > {start} + 0.5",
                timeout=15_000,
            )
            assert page.evaluate("document.getElementById('clip').readyState") >= 2
            page.evaluate("document.getElementById('clip').pause()")
            page.screenshot(path=str(shots / "studio-answer.png"))
            visited = []
            for _ in range(answered):
                visited.append(page.url)
                _answer_current(page)
            following = page.url
            assert "/items/" in following and following not in visited
            page.reload()
            assert page.url == following
            page.goto(f"{server.url}/r/{first}")  # the invitation link again: still the next
            assert page.url == following
            assert page.inner_text("#progress").endswith(f"item {answered + 1} of {total}")
            context.close()

            other = playwright.chromium.launch_persistent_context(
                str(tmp_path / "profile-2"),
                executable_path=CHROMIUM,
                headless=True,
                args=LAUNCH_ARGS,
            )
            page2 = other.new_page()
            page2.goto(f"{server.url}/r/{second}")
            assert "item 1 of" in page2.inner_text("#progress")  # nothing of rater 1 counts
            assert "Your answer:" not in page2.content()
            item = visited[0].rsplit("/", 1)[1]
            response = page2.goto(f"{server.url}/r/{second}/items/{item}")
            assert response is not None
            if response.status == 200:  # the catch trial is in both queues; nothing answered yet
                assert "Your answer:" not in page2.content()
            else:
                assert response.status == 404 and "not in your queue" in page2.inner_text("body")
            page2.goto(f"{server.url}/admin/{admin}")
            assert "rater-01" in page2.inner_text("#raters")
            page2.screenshot(path=str(shots / "studio-progress.png"), full_page=True)
            other.close()
    finally:
        server.stop()
    assert 206 in media_statuses, media_statuses  # the video element asked for byte ranges
    assert (shots / "studio-answer.png").stat().st_size > 10_000
    print(f"\nscreenshots: {shots}")
