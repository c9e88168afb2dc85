"""The evaluation path on pixels: a benchmark built from a rendered corpus names each clip's
video, the exports carry the clip videos, and the chat adapter sends frames of the rendered clip.
"""

from __future__ import annotations

import base64
import csv
import importlib.util
import io
from pathlib import Path
from typing import Any

import numpy as np
import pyarrow.parquet as pq
import pytest
from PIL import Image

from taskqa.benchmark.balance import BalanceConfig
from taskqa.benchmark.build import BuildConfig, build_benchmark
from taskqa.benchmark.clip_videos import frame_span
from taskqa.benchmark.export_hf import export_hf
from taskqa.benchmark.export_lmms import export_lmms_eval
from taskqa.benchmark.folder import Benchmark
from taskqa.evaluation.adapters.frames import read_frames as sampled_jpegs
from taskqa.evaluation.adapters.frames import sample_times
from taskqa.evaluation.adapters.run import ChatSettings, run_chat
from taskqa.household.corpus_videos import render_corpus
from taskqa.household.options import RenderOptions
from taskqa.llm.testing import StubChatServer
from taskqa.render.video import read_frames, video_info
from taskqa.simulation.config import SimulationConfig
from taskqa.simulation.corpus import simulate_corpus, write_simulated_corpus
from taskqa.simulation.domain import Domain

FPS = 1.0


@pytest.fixture(scope="module")
def rendered_bench(tmp_path_factory: pytest.TempPathFactory, domain: Domain) -> Path:
    """Five simulated recordings rendered by `taskqa render` (tiny frames), then built."""
    root = tmp_path_factory.mktemp("rendered")
    config = SimulationConfig(episodes=5, seed=5)
    write_simulated_corpus(root / "corpus", config, simulate_corpus(config, domain), domain)
    render_corpus(root / "corpus", options=RenderOptions(fps=FPS, width=64, height=64))
    build_benchmark(
        root / "corpus",
        root / "bench",
        BuildConfig(balance=BalanceConfig(target=300, balance_by="type")),
    )
    return root / "bench"


def _videos_csv(bench: Path) -> list[dict[str, str]]:
    with (bench / "videos.csv").open(newline="") as stream:
        return list(csv.DictReader(stream))


def test_videos_csv_points_into_the_copied_corpus(rendered_bench: Path) -> None:
    rows = _videos_csv(rendered_bench)
    assert rows
    for row in rows:
        assert row["video"].startswith("corpus/videos/"), row
        video = rendered_bench / row["video"]
        frames, fps, duration = video_info(video)
        assert fps == FPS and float(row["start_s"]) < float(row["end_s"]) <= duration + 1 / fps
    views = {(row["clip"], row["view"]) for row in rows}
    assert any(view == "first-person" for _, view in views)
    assert any(view == "third-person" for _, view in views)  # the room camera is listed too


def test_hf_and_lmms_exports_carry_each_clip_video(rendered_bench: Path, tmp_path: Path) -> None:
    out = tmp_path / "hf"
    export_hf(rendered_bench, out)
    table = pq.read_table(out / "data" / "normal" / "test.parquet").to_pylist()
    assert table
    by_clip = {
        row["clip"]: row for row in _videos_csv(rendered_bench) if row["view"] == "first-person"
    }
    for record in table[:5]:
        source = by_clip[record["clip"]]
        assert record["start_s"] == pytest.approx(float(source["start_s"]))
        assert record["end_s"] == pytest.approx(float(source["end_s"]))
        assert record["source_video"].startswith("corpus/videos/")
        clip = out / record["video"]
        frames, fps, _ = video_info(clip)
        whole = rendered_bench / record["source_video"]
        span = frame_span(record["start_s"], record["end_s"], fps, video_info(whole)[0])
        assert frames == len(span) and fps == FPS
        # the clip's first frame is the recording's frame at the clip's start
        first = read_frames(clip, [0])[0].astype(int)
        expected = read_frames(whole, [span.start])[0].astype(int)
        assert np.abs(first - expected).mean() < 4.0
    lmms = tmp_path / "lmms"
    export_lmms_eval(rendered_bench, lmms)
    spec = importlib.util.spec_from_file_location("taskqa_lmms_utils", lmms / "utils.py")
    assert spec and spec.loader
    utils = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(utils)
    visual = utils.doc_to_visual(table[0])
    assert Path(visual[0]).is_file() and Path(visual[0]).parent == lmms / "videos"


def _images(body: dict[str, Any]) -> list[bytes]:
    parts = body["messages"][0]["content"]
    urls = [p["image_url"]["url"] for p in parts if p["type"] == "image_url"]
    return [base64.b64decode(url.split(",", 1)[1]) for url in urls]


def test_chat_sends_frames_decoded_from_the_rendered_clip(
    rendered_bench: Path, tmp_path: Path
) -> None:
    bench = Benchmark(rendered_bench)
    questions = bench.questions("normal", "test")[:6]
    with StubChatServer(lambda body: "yes") as server:
        settings = ChatSettings(base_url=server.base_url, model="stub", frames=4, concurrency=1)
        run_chat(bench, "normal/test", questions, settings, tmp_path / "chat.jsonl")
    assert len(server.requests) == len(questions)
    first_person = {
        row["clip"]: row for row in _videos_csv(rendered_bench) if row["view"] == "first-person"
    }
    for question, body in zip(questions, server.requests, strict=True):
        images = _images(body)
        assert len(images) == 4
        row = first_person[question.question.clip]
        video = rendered_bench / row["video"]
        times = sample_times(float(row["start_s"]), float(row["end_s"]), 4)
        assert images == sampled_jpegs(video, times)  # the person's view, at the sampled times
        picture = Image.open(io.BytesIO(images[0]))
        assert picture.size == (64, 64) and picture.format == "JPEG"
