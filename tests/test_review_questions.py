"""benchmarks/review_questions.py: a review sample with a frame sheet per question (frames decoded
from the benchmark's videos, or rendered where it has none), and the count of filled-in verdicts.
"""

from __future__ import annotations

import importlib.util
import json
import sys
from pathlib import Path
from types import ModuleType
from typing import Any

import numpy as np
import pytest
from PIL import Image

from taskqa.benchmark.balance import BalanceConfig
from taskqa.benchmark.build import BuildConfig, build_benchmark
from taskqa.benchmark.folder import Benchmark
from taskqa.corpus import read_corpus
from taskqa.household.corpus_videos import render_corpus
from taskqa.household.frames import render_frames
from taskqa.household.look_spec import load_look
from taskqa.household.options import RenderOptions
from taskqa.render.engine import resolve_backend
from taskqa.render.video import read_frames, video_info
from taskqa.simulation.config import SimulationConfig
from taskqa.simulation.corpus import simulate_corpus, write_simulated_corpus
from taskqa.simulation.domain import Domain

SCRIPT = Path(__file__).resolve().parents[1] / "benchmarks" / "review_questions.py"
SIZE = 96
FPS = 2.0
COUNT = 3


@pytest.fixture(scope="module")
def review() -> ModuleType:
    spec = importlib.util.spec_from_file_location("review_questions", SCRIPT)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module  # dataclasses look their module up while the class is made
    spec.loader.exec_module(module)
    return module


@pytest.fixture(scope="module")
def bench(tmp_path_factory: pytest.TempPathFactory, domain: Domain) -> Path:
    """Six simulated episodes, the two shortest recordings rendered small, built."""
    root = tmp_path_factory.mktemp("review")
    config = SimulationConfig(episodes=6, seed=5)
    recordings = simulate_corpus(config, domain)
    write_simulated_corpus(root / "corpus", config, recordings, domain)
    shortest = [r.id for r in sorted(recordings, key=lambda r: r.duration)[:2]]
    options = RenderOptions(fps=FPS, width=SIZE, height=SIZE)
    render_corpus(root / "corpus", options=options, ids=shortest)
    build_benchmark(
        root / "corpus", root / "bench", BuildConfig(balance=BalanceConfig(balance_by="type"))
    )
    return root / "bench"


def _listing(folder: Path) -> dict[str, tuple[int, int]]:
    return {
        str(p.relative_to(folder)): (p.stat().st_size, p.stat().st_mtime_ns)
        for p in sorted(folder.rglob("*"))
    }


def _mixed_seed(review: ModuleType, bench: Path) -> int:
    """A seed whose first questions fall both on a clip with videos and on one without."""
    source = review.FrameSource(bench, 10, FPS, SIZE, True)
    clips = Benchmark(bench).clips()
    for seed in range(200):
        missing = {bool(source.missing(clips[q["clip"]].clip)) for q in review.draw(bench, 3, seed)}
        if missing == {True, False}:
            return seed
    raise AssertionError("no seed draws questions on both rendered and unrendered clips")


def _crops(path: Path, row: list[list[int]]) -> list[np.ndarray]:
    with Image.open(path) as image:
        rgb = image.convert("RGB")
        return [np.asarray(rgb.crop((x, y, x + w, y + h))) for x, y, w, h in row]


def test_sample_writes_a_frame_sheet_per_question(
    review: ModuleType, bench: Path, tmp_path: Path, domain: Domain
) -> None:
    seed = _mixed_seed(review, bench)
    before = _listing(bench)
    out = tmp_path / "review" / "review.jsonl"
    argv = ["sample", str(bench), "--n", str(COUNT), "--seed", str(seed), "--out", str(out)]
    assert review.main([*argv, "--size", str(SIZE), "--frames", "8"]) == 0
    assert _listing(bench) == before  # nothing written into the benchmark folder

    lines = [json.loads(line) for line in out.read_text(encoding="utf-8").splitlines()]
    assert len(lines) == COUNT
    clips = Benchmark(bench).clips()
    recordings = {r.id: r for r in read_corpus(bench / "corpus")}
    source = review.FrameSource(bench, 8, FPS, SIZE, True)
    seen = {"decoded": 0, "rendered": 0}
    for line in lines:
        assert line["frames"] == f"frames/{line['id']}.png"
        assert (line["verdict"], line["labels"], line["needs_video"]) == ("", [], "")
        sheet = out.parent / line["frames"]
        assert sheet.is_file()
        layout = review.sheet_layout(sheet)
        clip = clips[line["clip"]].clip
        times = layout["times"]
        assert 2 <= len(times) <= 8 and times == sorted(times)
        assert clip.start - 1e-6 <= times[0] and times[-1] < clip.prediction_start
        assert len(layout["boxes"]) == 2  # the person's view, then the room camera
        with Image.open(sheet) as image:
            width, height = image.size
        tops = []
        for row in layout["boxes"]:
            assert len(row) == len(times)
            assert {(w, h) for _, _, w, h in row} == {(SIZE, SIZE)}
            assert len({y for _, y, _, _ in row}) == 1
            assert all(x + w <= width and y + h <= height for x, y, w, h in row)
            tops.append(row[0][1])
        assert tops[1] >= tops[0] + SIZE
        first, third = (_crops(sheet, row) for row in layout["boxes"])
        video = source.video(clip, review.View.FIRST_PERSON)
        if video is not None:  # the frames of the benchmark's own video, as they decode
            _, fps, _ = video_info(video)
            expected = read_frames(video, [round(t * fps) for t in times])
            assert all(np.array_equal(a, b) for a, b in zip(first, expected, strict=True))
            room = source.video(clip, review.View.THIRD_PERSON)
            expected = read_frames(room, [round(t * fps) for t in times])
            assert all(np.array_equal(a, b) for a, b in zip(third, expected, strict=True))
            seen["decoded"] += 1
        else:  # rendered from the recording, on taskqa render's frame grid
            indices = [round(t * FPS) for t in times]
            # the review draws what `taskqa render` draws by default
            backend = resolve_backend("auto")[0]
            options = RenderOptions(fps=FPS, width=SIZE, height=SIZE, backend=backend)
            views = render_frames(recordings[clip.recording], domain, load_look(), indices, options)
            assert all(
                np.array_equal(a, b)
                for a, b in zip(first, views[f"{clip.agent}-first"], strict=True)
            )
            assert all(np.array_equal(a, b) for a, b in zip(third, views["third"], strict=True))
            seen["rendered"] += 1
        assert all(crop.std() > 5 for crop in (*first, *third))  # pictures, not blank tiles
    assert seen["decoded"] and seen["rendered"]


def test_sample_without_rendering_stops_on_a_clip_without_video(
    review: ModuleType, bench: Path, tmp_path: Path
) -> None:
    seed = _mixed_seed(review, bench)
    out = tmp_path / "review.jsonl"
    argv = ["sample", str(bench), "--n", "3", "--seed", str(seed), "--out", str(out)]
    with pytest.raises(SystemExit, match="no video file"):
        review.main([*argv, "--no-render"])
    assert not out.exists()


def _line(template: str, verdict: str, labels: list[str], needs: str = "yes") -> dict[str, Any]:
    return {
        "id": f"q-{verdict}",
        "template": template,
        "verdict": verdict,
        "labels": labels,
        "needs_video": needs,
        "note": "",
    }


def test_summary_counts_verdicts_against_the_targets(
    review: ModuleType, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    lines = [_line("t/ok", "ok", []) for _ in range(7)] + [
        _line("t/a", "wrong-answer", ["wrong-answer", "ungrammatical"]),
        _line("t/b", "ungrammatical", ["ungrammatical"], needs="no"),
        _line("t/b", "gives-answer-away", ["gives-answer-away", "vague"], needs="no"),
    ]
    path = tmp_path / "review.jsonl"
    path.write_text("".join(json.dumps(line) + "\n" for line in lines))
    assert review.main(["summary", str(path)]) == 0
    printed = capsys.readouterr().out
    rows = {line.split()[0]: line.split() for line in printed.splitlines()[2:9]}
    # label: primary verdicts, questions carrying it, share, then its target
    assert rows["ok"][:4] == ["ok", "7", "7", "70.0%"] and "MISSED" in rows["ok"]
    assert rows["wrong-answer"][1:4] == ["1", "1", "10.0%"] and "MISSED" in rows["wrong-answer"]
    assert rows["ungrammatical"][1:4] == ["1", "2", "20.0%"]
    assert rows["vague"][1:4] == ["0", "1", "10.0%"] and "(no target)" in " ".join(rows["vague"])
    assert rows["ill-posed"][1:4] == ["0", "0", "0.0%"] and "met" in rows["ill-posed"]
    assert "at least 92%" in printed and "at most 2%" in printed
    assert "8 yes, 2 no" in printed
    assert "not ok in t/b: 2" in printed

    bad = [
        _line("t/c", "not ok", ["wrong answer"]),  # the labels of the earlier rubric
        _line("t/c", "vague", ["wrong-answer"]),  # not the most serious label
        _line("t/c", "ok", ["ok"], needs=""),  # whether it needs the video left out
    ]
    path.write_text("".join(json.dumps(line) + "\n" for line in [*lines, *bad]))
    assert review.main(["summary", str(path)]) == 1
    printed = capsys.readouterr().out
    assert f"{path}:11: verdict 'not ok'" in printed
    assert f"{path}:12: verdict 'vague', but its labels hold the more serious 'wrong-answer'" in (
        printed
    )
    assert f"{path}:13: needs_video ''" in printed
    assert "10 questions judged" in printed


def test_a_viewer_study_sheet_is_blind_and_scored_against_its_key(
    review: ModuleType, bench: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """The viewer study's sheets show the question, its options and the frames, nothing else;
    the answers are in a key file beside the questions, and the score reads them from there."""
    out = tmp_path / "study" / "viewer.jsonl"
    review.viewer_sheets(bench, 2, 2, 11, out, frames=10, size=SIZE)
    lines = [json.loads(line) for line in out.read_text().splitlines()]
    key = {k["number"]: k for k in map(json.loads, out.with_suffix(".key.jsonl").open())}
    assert lines and set(key) == {line["number"] for line in lines}
    for line in lines:
        assert "answer" not in line and not line["choice"]
        assert key[line["number"]]["answer"] in line["options"]
        layout = review.sheet_layout(out.parent / line["frames"])
        assert [len(boxes) for boxes in layout["boxes"]] == [10, 10]  # both views, every frame
        # wrapped into rows of at most VIEWER_ROW frames
        assert len({box[1] for box in layout["boxes"][0]}) == 2
    # every choice right but one
    for line in lines:
        line["choice"] = key[line["number"]]["answer"]
    wrong = next(letter for letter in lines[0]["options"] if letter != lines[0]["choice"])
    lines[0]["choice"] = wrong
    out.write_text("".join(json.dumps(line) + "\n" for line in lines))
    assert review.viewer_score(out) == 0
    printed = capsys.readouterr().out
    assert f"answered {len(lines) - 1} of {len(lines)} right" in printed
    assert "miss #1 " in printed
