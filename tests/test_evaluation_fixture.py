"""A small benchmark folder in the documented layout, written by the benchmark folder's writer.

A simulated corpus -> every generated question -> a deterministic thinning and split by hashes of
the question ids -> ``FolderWriter``, which writes every file as ``taskqa build`` does
(docs/benchmark-folder.md), in seconds rather than a build's minute. The recordings are named as
rendered to ``videos/<recording>.mp4``, files that are never drawn, so that readers look for
files (the chat tests stand frames in for them by name). The other evaluation test modules
import the ``benchmark_dir`` fixture from this module.
"""

from __future__ import annotations

import hashlib
import json
from pathlib import Path
from typing import Any

import pytest

from taskqa import __version__
from taskqa.benchmark.diagnostics import vocabulary
from taskqa.benchmark.folder import (
    INDIRECT,
    NORMAL,
    Benchmark,
    FolderWriter,
    file_digests,
    is_benchmark,
)
from taskqa.benchmark.splits import SPLITS
from taskqa.convert import read_recordings
from taskqa.model import VideoRef
from taskqa.programs.clips import ClipRecord, clip_record, cut_clips
from taskqa.questions.config import GenerationConfig
from taskqa.questions.generate import generate_file
from taskqa.questions.records import read_questions
from taskqa.questions.template import load_templates
from taskqa.simulation.config import SimulationConfig
from taskqa.simulation.corpus import simulate_corpus, write_simulated_corpus
from taskqa.simulation.domain import load_domain

KEEP_ONE_IN = 4  # thinning keeps tests fast while every template family still appears


def _bucket(text: str, size: int) -> int:
    return int(hashlib.sha256(text.encode("utf-8")).hexdigest()[:8], 16) % size


def build_fixture_benchmark(root: Path, episodes: int = 5, seed: int = 5) -> Path:
    domain = load_domain()
    simulation = SimulationConfig(episodes=episodes, seed=seed)
    simulated = [
        r.model_copy(update={"videos": [VideoRef(uri=f"videos/{r.id}.mp4")]})
        for r in simulate_corpus(simulation, domain)
    ]
    corpus = root.parent / f"{root.name}.corpus"
    write_simulated_corpus(corpus, simulation, simulated, domain)
    recordings, verb_templates = read_recordings(corpus)
    config = GenerationConfig()
    generated = root.parent / f"{root.name}.questions.jsonl"
    generate_file(recordings, load_templates(None), generated, config, verb_templates)
    kept = [q for _, q in read_questions(generated) if _bucket(q.id, KEEP_ONE_IN) == 0]
    families: dict[str, dict[str, list[dict[str, Any]]]] = {
        family: {split: [] for split in SPLITS} for family in (NORMAL, INDIRECT)
    }
    for question in kept:
        record = question.model_dump(mode="json")
        normal = ("train", "train", "train", "val", "test")[_bucket(question.id + "/n", 5)]
        indirect = (
            "train"
            if question.reference == "direct"
            else ("val", "test")[_bucket(question.id + "/i", 2)]
        )
        families[NORMAL][normal].append(record)
        families[INDIRECT][indirect].append(record)
    writer = FolderWriter(root)
    counts: dict[str, int] = {}
    for family, by_split in families.items():
        sizes = writer.write_family(family, by_split)
        counts.update({f"{family}/{split}": n for split, n in sizes.items()})
        writer.write_answers(family, vocabulary(by_split["train"]))
    writer.copy_corpus(corpus, recordings)
    settings = config.model_dump(mode="json")
    clips = [
        ClipRecord.model_validate(clip_record(clip, settings))
        for recording in recordings
        for clip in cut_clips(recording, config.clips)
    ]
    writer.write_clips(clips)
    writer.write_videos(recordings, clips)
    fields = {
        "taskqa_version": __version__,
        "seed": seed,
        "corpus": {
            "path": str(corpus),
            "recordings": len(recordings),
            "sha256": writer.corpus_digest(),
        },
        "generation": settings,
        "clips": len(clips),
        "counts": counts,
    }
    writer.write_manifest(writer.manifest(fields))
    return root


@pytest.fixture(scope="session")
def benchmark_dir(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return build_fixture_benchmark(tmp_path_factory.mktemp("evaluation") / "bench")


def test_fixture_has_the_documented_layout(benchmark_dir: Path) -> None:
    manifest = json.loads((benchmark_dir / "manifest.json").read_text())
    for family in ("normal", "indirect"):
        for split in ("train", "val", "test"):
            assert f"splits/{family}/{split}.jsonl" in manifest["files"]
            assert manifest["counts"][f"{family}/{split}"] > 0
    assert (benchmark_dir / "corpus" / "recordings.jsonl").is_file()
    normal = sum(manifest["counts"][f"normal/{s}"] for s in ("train", "val", "test"))
    indirect = sum(manifest["counts"][f"indirect/{s}"] for s in ("train", "val", "test"))
    assert normal == indirect  # every question is in one split of each family
    # the reader takes what the writer wrote, and the manifest lists every file as it is
    assert (
        is_benchmark(benchmark_dir) and len(Benchmark(benchmark_dir).clips()) == manifest["clips"]
    )
    assert manifest["files"] == file_digests(benchmark_dir)
