"""Seeded sampling by the released rules: reference counts and the released questions."""

from __future__ import annotations

import json
from collections import Counter
from pathlib import Path
from typing import Any

from typer.testing import CliRunner

from data_support import real_data
from taskqa.procedural.annotations import load_cleaned_annotations, load_recording_ids, restrict
from taskqa.procedural.candidates import build_candidates
from taskqa.procedural.cli import app
from taskqa.procedural.recipes import load_recipe_graphs
from taskqa.procedural.sampling import (
    error_step_count,
    has_target,
    is_crowded,
    sample_candidates,
)

# ../shared/data, else the cache `taskqa data download` fills (tests/data_support.py)
REAL = real_data("promqa/cleaned_error_annotations.json", "promqa/graphs.json",
                 "captaincook4d/recordings_with_4k_video.json")  # fmt: skip
DATA = REAL.root
PROMQA = DATA / "promqa"
realdata = REAL.mark
RELEASED = real_data("promqa/examples_sample.json")  # a sample only ../shared/data has


def _candidate(
    recording: str, number: int, kind: str = "next", noisy: bool = False, targets: int = 1,
    errors: int = 0,
) -> dict[str, Any]:  # fmt: skip
    history = [{"step_id": i, "description": "s", **({"errors": [{}]} if i < errors else {})}
               for i in range(max(errors, 1))]  # fmt: skip
    record: dict[str, Any] = {"recording_id": recording, "question_id": f"{recording}_{number}_{kind}",
                              "type": kind, "is_noisy": noisy, "previous_steps": history}  # fmt: skip
    if kind in ("next", "missing"):
        record[f"{kind}_steps"] = [{"step_id": i} for i in range(targets)]
    else:
        record["error_description"] = "wrong"
    return record


def test_filters_and_buckets() -> None:
    assert is_crowded(_candidate("1_1", 1, targets=6))
    assert not is_crowded(_candidate("1_1", 1, targets=5))
    assert is_crowded(_candidate("1_1", 1, noisy=True, errors=6))
    assert error_step_count(_candidate("1_1", 1, noisy=False, errors=6)) == 0
    assert not has_target(_candidate("1_1", 1, targets=0))
    no_error = _candidate("1_1", 1, "timing") | {
        "error_description": "This step does not contain any"
    }
    assert not has_target(no_error)


def test_at_most_one_per_bucket_per_recording_and_shortfall_filled() -> None:
    # 30 recordings x 3 clean next candidates with a target, none without: the 100 empty-target
    # slots are handed to the targeted side, but each recording gives one candidate at most.
    candidates = [_candidate(f"1_{r}", n) for r in range(30) for n in range(3)]
    result = sample_candidates(candidates, seed=3)
    assert len(result.samples) == 30
    assert len({c["recording_id"] for c in result.samples}) == 30
    assert len(result.samples) + len(result.remainder) == len(candidates)


def test_error_types_split_noisy_and_clean() -> None:
    candidates = [_candidate(f"1_{r}", 1, "timing", noisy=r % 3 == 0) for r in range(60)]
    result = sample_candidates(candidates, seed=0)
    noisy = sum(c["is_noisy"] for c in result.samples)
    assert (noisy, len(result.samples) - noisy) == (20, 30)  # 20 noisy exist; clean fills up


def test_same_seed_same_sample_other_seed_other_sample() -> None:
    candidates = [_candidate(f"1_{r}", n, noisy=n == 1) for r in range(300) for n in range(3)]
    ids = lambda seed: [c["question_id"] for c in sample_candidates(candidates, seed).samples]  # noqa: E731
    assert ids(5) == ids(5)
    assert ids(5) != ids(6)


@realdata
@RELEASED.mark
def test_reference_sample_on_real_data(tmp_path: Path) -> None:
    recordings = restrict(
        load_cleaned_annotations(PROMQA / "cleaned_error_annotations.json"),
        load_recording_ids(DATA / "captaincook4d" / "recordings_with_4k_video.json"),
    )
    candidates = build_candidates(recordings, load_recipe_graphs(PROMQA / "graphs.json"))
    result = sample_candidates(candidates, seed=42)
    assert len(result.samples) == 1090
    assert Counter(c["type"] for c in result.samples) == {
        "next": 400, "missing": 400, "order": 50, "preparation": 50, "measurement": 50,
        "timing": 50, "technique": 50, "temperature": 40,
    }  # fmt: skip
    assert len({c["recording_id"] for c in result.samples}) == 336
    assert len(result.samples) + len(result.remainder) == 11_781
    # Seed 42 draws exactly as the release did: every released question is in the sample.
    sampled = {c["question_id"] for c in result.samples}
    released = json.loads((RELEASED.root / "promqa" / "examples_sample.json").read_text())
    assert all(record["question_id"] in sampled for record in released)
    # The command gives the same file.
    source = tmp_path / "candidates.json"
    source.write_text(json.dumps(candidates))
    out = tmp_path / "samples.json"
    run = CliRunner().invoke(app, ["sample", "--candidates", str(source), "--out", str(out)])
    assert run.exit_code == 0, run.output
    assert [c["question_id"] for c in json.loads(out.read_text())] == [
        c["question_id"] for c in result.samples
    ]
