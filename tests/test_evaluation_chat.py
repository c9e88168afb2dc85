"""The OpenAI-compatible chat adapter: frame sampling, prompts, caching, resuming, mapping."""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

import numpy as np
import pytest
import typer
from typer.testing import CliRunner

import test_evaluation_fixture
from taskqa.benchmark.folder import Benchmark
from taskqa.evaluation.adapters.frames import read_frames, sample_times
from taskqa.evaluation.adapters.mapping import AnswerMapper
from taskqa.evaluation.adapters.run import ChatSettings, run_chat
from taskqa.evaluation.cli import baseline_command, evaluate_command
from taskqa.llm import LLMError
from taskqa.llm.testing import StubChatServer

benchmark_dir = test_evaluation_fixture.benchmark_dir  # the shared session fixture

FPS = 4


def write_video(path: Path, seconds: float, fps: int = FPS) -> None:
    """A small MPEG-4 video whose frame i is a flat grey of level 4 * i (mod 256)."""
    import av

    path.parent.mkdir(parents=True, exist_ok=True)
    with av.open(str(path), "w") as container:
        stream = container.add_stream("mpeg4", rate=fps)
        stream.width, stream.height, stream.pix_fmt = 64, 48, "yuv420p"
        for i in range(int(seconds * fps)):
            pixels = np.full((48, 64, 3), (4 * i) % 256, dtype=np.uint8)
            frame = av.VideoFrame.from_ndarray(pixels, format="rgb24")
            for packet in stream.encode(frame):
                container.mux(packet)
        for packet in stream.encode():
            container.mux(packet)


def _level(jpeg: bytes) -> float:
    import io

    from PIL import Image

    return float(np.asarray(Image.open(io.BytesIO(jpeg)).convert("L")).mean())


def test_sampling_rule() -> None:
    assert sample_times(10.0, 14.0, 4) == [10.5, 11.5, 12.5, 13.5]
    assert sample_times(0.0, 2.0, 0) == []
    assert sample_times(0.0, 2.0, 10, fps=2.0) == [0.25, 0.75, 1.25, 1.75]
    capped = sample_times(0.0, 10.0, 3, fps=2.0)  # 20 candidate times, 3 kept evenly
    assert capped == [0.25, 5.25, 9.75]


def test_frames_come_from_the_right_times(tmp_path: Path) -> None:
    video = tmp_path / "clip.mp4"
    write_video(video, seconds=5.0)
    times = sample_times(1.0, 4.0, 3)  # 1.5, 2.5, 3.5 s -> frames 6, 10, 14 at 4 fps
    frames = read_frames(video, times, max_side=32)
    levels = [_level(f) for f in frames]
    assert levels == pytest.approx([24.0, 40.0, 56.0], abs=3.0)
    assert read_frames(video, times, max_side=32) == frames  # same bytes every time
    import io

    from PIL import Image

    assert Image.open(io.BytesIO(frames[0])).size == (32, 24)


def test_reply_mapping_rules() -> None:
    mapper = AnswerMapper(["yes", "no", "cup", "get something from fridge"])
    assert mapper.map("Cup.") == ("cup", "normalized")
    assert mapper.map("Answer: get something from the fridge. Because...") == (
        "get something from fridge",
        "first-line",
    )
    assert mapper.map("Yes, they can.") == ("yes", "yes-no")
    assert mapper.map("It might be the cup or the fridge") == (None, None)


def _question_of(body: dict[str, Any]) -> str:
    content = body["messages"][0]["content"]
    text = content if isinstance(content, str) else content[0]["text"]
    match = re.search(r"^Question: (.*)$", text, re.MULTILINE)
    assert match, text
    return match.group(1)


class Oracle:
    """Replies right (in free form) to some questions, wrong to others, nonsense to the rest."""

    def __init__(self, answers: dict[str, str], fail_on: str | None = None) -> None:
        self.answers = answers
        self.fail_on = fail_on

    def __call__(self, body: dict[str, Any]) -> str | tuple[int, str]:
        content = body["messages"][0]["content"]
        if isinstance(content, str) and content.startswith("A model was asked"):
            return self.answers[re.search(r"asked: (.*)$", content, re.MULTILINE).group(1)]  # type: ignore[union-attr]
        question = _question_of(body)
        if question == self.fail_on:
            return 400, '{"error": "bad request"}'
        kind = sum(map(ord, question)) % 3
        answer = self.answers[question]
        if kind == 0:
            return f"{answer.capitalize()}."
        if kind == 1:
            return "no" if answer == "yes" else "yes"
        return f"Hard to say; maybe {answer}, judging by the frames"


@pytest.fixture(scope="module")
def video_dir(benchmark_dir: Path, tmp_path_factory: pytest.TempPathFactory) -> Path:
    folder = tmp_path_factory.mktemp("videos")
    for row in Benchmark(benchmark_dir).videos().rows:
        target = folder / row.video.name
        if not target.exists():
            write_video(target, seconds=row.end_s + 1.0, fps=2)
    return folder


def test_chat_run_with_frames_resumes_without_losing_or_repeating(
    benchmark_dir: Path, video_dir: Path, tmp_path: Path
) -> None:
    bench = Benchmark(benchmark_dir)
    questions = bench.questions("normal", "test")[:40]
    answers = {q.question.question: q.question.answer for q in questions}
    out = tmp_path / "chat.jsonl"
    settings = ChatSettings(
        base_url="", model="stub", frames=3, concurrency=2, cache=tmp_path / "cache.sqlite",
        videos=video_dir,
    )  # fmt: skip
    failing = questions[21].question.question
    stub = StubChatServer(Oracle(answers, fail_on=failing), delay_seconds=0.01)
    with stub as first, pytest.raises(LLMError):
        run_chat(bench, "normal/test", questions, _at(settings, first.base_url), out)
    assert not out.exists() and (tmp_path / "chat.jsonl.partial").is_file()
    assert first.max_in_flight <= 2
    body = first.requests[0]
    images = [p for p in body["messages"][0]["content"] if p["type"] == "image_url"]
    assert len(images) == 3 and images[0]["image_url"]["url"].startswith("data:image/jpeg;base64,")
    paid_first = {_question_of(b) for b in first.requests if _question_of(b) != failing}
    with StubChatServer(Oracle(answers)) as second:
        counts = run_chat(bench, "normal/test", questions, _at(settings, second.base_url), out)
    paid_second = {_question_of(b) for b in second.requests}
    assert not paid_first & paid_second  # nothing asked twice
    assert paid_first | paid_second == set(answers)
    lines = [json.loads(line) for line in out.read_text().splitlines()]
    assert [line["question_id"] for line in lines] == [q.id for q in questions]
    assert not (tmp_path / "chat.jsonl.partial").exists()
    assert counts.get("invalid", 0) > 0 and sum(counts.values()) == len(questions)
    meta = json.loads((tmp_path / "chat.meta.json").read_text())
    assert meta["frames"] == {"rule": "uniform", "count": 3, "fps": None, "max_side": 384}
    assert meta["prompt"] == "default" and len(meta["prompt_sha256"]) == 64
    # a rerun is answered from the cache alone
    out.unlink()
    with StubChatServer(Oracle(answers)) as third:
        run_chat(bench, "normal/test", questions, _at(settings, third.base_url), out)
    assert third.requests == []


def _at(settings: ChatSettings, base_url: str) -> ChatSettings:
    from dataclasses import replace

    return replace(settings, base_url=base_url)


def test_chat_cli_counts_invalid_apart_from_wrong_and_extracts(
    benchmark_dir: Path, tmp_path: Path
) -> None:
    bench = Benchmark(benchmark_dir)
    questions = bench.questions("normal", "test")
    answers = {q.question.question: q.question.answer for q in questions}
    app = typer.Typer()
    app.command("evaluate")(evaluate_command)
    app.command("baseline")(baseline_command)
    runner = CliRunner()
    results = {}
    for extract in (False, True):
        out = tmp_path / f"chat-{extract}.jsonl"
        with StubChatServer(Oracle(answers)) as server:
            args = ["baseline", "chat", "-b", str(benchmark_dir), "-o", str(out), "--frames", "0",
                    "--prompt", "blind", "--limit", "30", "--base-url", server.base_url,
                    "--concurrency", "3", "--extract" if extract else "--no-extract"]  # fmt: skip
            result = runner.invoke(app, args)
            assert result.exit_code == 0, result.output
        report = tmp_path / f"report-{extract}"
        result = runner.invoke(app, ["evaluate", "-b", str(benchmark_dir), "-p", str(out),
                                     "-o", str(report), "--resamples", "50",
                                     "--allow-partial"])  # fmt: skip
        assert result.exit_code == 0, result.output
        results[extract] = json.loads((report / "results.json").read_text())["models"][1]
    plain = results[False]["breakdowns"]["overall"]["all"]
    expected_invalid = sum(sum(map(ord, q.question.question)) % 3 == 2 for q in questions[:30])
    assert plain["invalid"] == expected_invalid > 0
    assert plain["wrong"] > 0 and plain["correct"] > 0
    # --limit answers 30: --allow-partial scores the file on those, the rest is its coverage
    assert plain["questions"] == 30 and plain["missing"] == 0
    assert results[False]["coverage"]["missing_ids"] == len(questions) - 30
    extracted = results[True]["breakdowns"]["overall"]["all"]
    assert extracted["invalid"] == 0 and extracted["correct"] == plain["correct"] + expected_invalid
