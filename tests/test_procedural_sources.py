"""Raw CaptainCook4D (through taskqa's reader) and the simulated world feed the same prefix
rule as ProMQA's cleaned file."""

from __future__ import annotations

import json
from collections import Counter, defaultdict
from pathlib import Path
from typing import Any

from typer.testing import CliRunner

from data_support import real_data
from taskqa.model import Recording
from taskqa.procedural.adapters import from_recordings
from taskqa.procedural.annotations import load_cleaned_annotations, load_recording_ids, restrict
from taskqa.procedural.candidates import build_candidates, missing_steps, next_steps
from taskqa.procedural.cli import app
from taskqa.procedural.recipes import load_recipe_graphs

# ../shared/data, else the cache `taskqa data download` fills (tests/data_support.py)
REAL = real_data("captaincook4d/annotation_json", "captaincook4d/task_graphs", "captaincook4d/metadata",
                 "captaincook4d/recordings_with_4k_video.json", "promqa/graphs.json",
                 "promqa/cleaned_error_annotations.json")  # fmt: skip
CC4D = REAL.root / "captaincook4d"
PROMQA = REAL.root / "promqa"
realdata = REAL.mark


def test_simulated_recordings_give_consistent_candidates(small_corpus: list[Recording]) -> None:
    annotated, graphs = from_recordings(small_corpus)
    candidates = build_candidates(annotated, graphs)
    kinds = Counter(c["type"] for c in candidates)
    assert kinds["next"] > 0 and kinds["missing"] > 0
    assert sum(kinds[k] for k in kinds if k not in ("next", "missing")) > 0  # injected errors
    by_name = {g.name: g for g in graphs.values()}
    for candidate in candidates:
        graph = by_name[candidate["activity_name"]]
        passed = {0, *(s["step_id"] for s in candidate["previous_steps"])}
        if candidate["current_step"]["step_id"] > 0:
            passed.add(candidate["current_step"]["step_id"])
        if candidate["type"] == "next":
            assert [s["step_id"] for s in candidate["next_steps"]] == next_steps(graph, passed)
        if candidate["type"] == "missing":
            assert [s["step_id"] for s in candidate["missing_steps"]] == missing_steps(
                graph, passed
            )
    assert len({c["question_id"] for c in candidates}) == len(candidates)


def test_corpus_folder_through_the_command(small_corpus_dir: Path, tmp_path: Path) -> None:
    out = tmp_path / "candidates.json"
    result = CliRunner().invoke(
        app, ["candidates", "--annotations", str(small_corpus_dir), "--out", str(out)]
    )
    assert result.exit_code == 0, result.output
    assert json.loads(out.read_text())


@realdata
def test_raw_captaincook4d_matches_the_cleaned_file_where_promqa_corrected_nothing() -> None:
    from taskqa.sources.captaincook4d import read_captaincook4d

    ids = load_recording_ids(CC4D / "recordings_with_4k_video.json")
    annotated, graphs = from_recordings(read_captaincook4d(CC4D))
    assert graphs == load_recipe_graphs(PROMQA / "graphs.json")
    ours = build_candidates(restrict(annotated, ids), graphs)
    cleaned = build_candidates(
        restrict(load_cleaned_annotations(PROMQA / "cleaned_error_annotations.json"), ids), graphs
    )
    grouped: dict[str, list[list[dict[str, Any]]]] = defaultdict(lambda: [[], []])
    for side, records in enumerate((ours, cleaned)):
        for record in records:
            grouped[record["recording_id"]][side].append(record)
    identical = [r for r, (a, b) in grouped.items() if a == b]
    # ProMQA's cleaning corrects a few dozen annotations by hand (swapped steps, spurious
    # errors, restored steps); every other recording gives the very same candidates.
    assert len(identical) == 337
    assert len(ours) == 11_800
