"""A small benchmark folder in the documented layout, built here until ``taskqa build`` exists.

A simulated corpus -> every generated question -> a deterministic thinning and split by hashes of
the question ids -> the files of docs/benchmark-folder.md. The other evaluation test modules
import the ``benchmark_dir`` fixture from this module.
"""

from __future__ import annotations

import csv
import hashlib
import io
import json
from collections import Counter
from pathlib import Path

import pytest

from taskqa.convert import read_recordings
from taskqa.programs.clips import clip_record, cut_clips
from taskqa.questions.generate import GenerationConfig, generate_file
from taskqa.questions.records import read_questions
from taskqa.questions.template import load_templates
from taskqa.simulation.config import SimulationConfig
from taskqa.simulation.corpus import simulate_corpus, write_simulated_corpus
from taskqa.simulation.domain import load_domain

KEEP_ONE_IN = 4  # thinning keeps tests fast while every template family still appears


def _bucket(text: str, size: int) -> int:
    return int(hashlib.sha256(text.encode("utf-8")).hexdigest()[:8], 16) % size


def _write_jsonl(path: Path, records: list[dict[str, object]]) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text("".join(json.dumps(r) + "\n" for r in records), encoding="utf-8")


def build_fixture_benchmark(root: Path, episodes: int = 4, seed: int = 5) -> Path:
    domain = load_domain()
    simulation = SimulationConfig(episodes=episodes, seed=seed)
    write_simulated_corpus(root / "corpus", simulation, simulate_corpus(simulation, domain), domain)
    recordings, verb_templates = read_recordings(root / "corpus")
    config = GenerationConfig()
    generated = root.parent / f"{root.name}.questions.jsonl"
    generate_file(recordings, load_templates(None), generated, config, verb_templates)
    kept = [q for _, q in read_questions(generated) if _bucket(q.id, KEEP_ONE_IN) == 0]
    families: dict[str, dict[str, list[dict[str, object]]]] = {
        "normal": {"train": [], "val": [], "test": []},
        "indirect": {"train": [], "val": [], "test": []},
    }
    for question in kept:
        record = question.model_dump(mode="json")
        record["reasoning_type"] = "$".join(
            [*question.types, *question.scopes, question.semantic, question.structural]
        )
        normal = ("train", "train", "train", "val", "test")[_bucket(question.id + "/n", 5)]
        indirect = (
            "train"
            if question.reference == "direct"
            else ("val", "test")[_bucket(question.id + "/i", 2)]
        )
        families["normal"][normal].append({**record, "split": normal})
        families["indirect"][indirect].append({**record, "split": indirect})
    files: dict[str, str] = {}
    for family, splits in families.items():
        for split, records in splits.items():
            _write_jsonl(root / "splits" / family / f"{split}.jsonl", records)
        counts = Counter(str(r["answer"]) for r in splits["train"])
        vocabulary = sorted(counts.items(), key=lambda item: (-item[1], item[0]))
        (root / "answers").mkdir(exist_ok=True)
        (root / "answers" / f"{family}.json").write_text(json.dumps(vocabulary))
    _write_videos(root, recordings, config)
    for path in sorted(root.rglob("*")):
        if path.is_file():
            files[path.relative_to(root).as_posix()] = hashlib.sha256(path.read_bytes()).hexdigest()
    manifest = {
        "taskqa_version": "0.1.0",
        "seed": seed,
        "corpus": {"path": "corpus", "recordings": len(recordings)},
        "generation": config.model_dump(mode="json"),
        "counts": {f"{f}/{s}": len(r) for f, splits in families.items() for s, r in splits.items()},
        "files": files,
    }
    (root / "manifest.json").write_text(json.dumps(manifest, indent=2))
    return root


def _write_videos(root: Path, recordings: list, config: GenerationConfig) -> None:  # type: ignore[type-arg]
    buffer = io.StringIO()
    writer = csv.writer(buffer, lineterminator="\n")
    writer.writerow(["clip", "recording", "agent", "view", "video", "start_s", "end_s"])
    clips = []
    for recording in recordings:
        for clip in cut_clips(recording, config.clips):
            clips.append(clip_record(clip, config.model_dump(mode="json")))
            writer.writerow(
                [clip.id, recording.id, clip.agent, "ego", f"videos/{recording.id}.mp4",
                 f"{clip.start:.3f}", f"{clip.prediction_start:.3f}"]
            )  # fmt: skip
    (root / "videos.csv").write_text(buffer.getvalue())
    (root / "clips.jsonl").write_text("".join(json.dumps(c) + "\n" for c in clips))


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
