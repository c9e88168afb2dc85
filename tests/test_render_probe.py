"""The pixel probe reads visible states from rendered crops better than guessing."""

from __future__ import annotations

import json
from pathlib import Path

from taskqa.household.probe import VISIBLE_ATTRIBUTES, run_probe, split_recordings
from taskqa.simulation.config import SimulationConfig
from taskqa.simulation.corpus import simulate_corpus, write_simulated_corpus
from taskqa.simulation.domain import Domain


def test_split_is_by_recording_and_seeded() -> None:
    ids = [f"r{i}" for i in range(10)]
    train, test = split_recordings(ids, 0.3, seed=4)
    assert len(test) == 3 and not set(train) & set(test) and set(train) | set(test) == set(ids)
    assert split_recordings(ids, 0.3, seed=4) == (train, test)
    assert split_recordings(ids, 0.3, seed=5) != (train, test)


def test_probe_beats_the_majority_class_on_held_out_recordings(
    tmp_path: Path, domain: Domain
) -> None:
    config = SimulationConfig(episodes=6, seed=11, rooms={"kitchen": 1.0})
    corpus = tmp_path / "corpus"
    write_simulated_corpus(corpus, config, simulate_corpus(config, domain), domain)
    report = run_probe(corpus, tmp_path / "probe", seed=0, test_share=0.34, size=80)
    written = json.loads((tmp_path / "probe" / "probe.json").read_text())
    assert written["test_recordings"] == report.test_recordings
    assert {s.attribute for s in report.scores} <= {a.value for a in VISIBLE_ATTRIBUTES}
    scored = [s for s in report.scores if s.test >= 10]
    assert len(scored) >= 3
    tested = sum(s.test for s in scored)
    accuracy = sum(s.accuracy * s.test for s in scored) / tested
    majority = sum(s.majority * s.test for s in scored) / tested
    assert accuracy >= majority + 0.1, (accuracy, majority)
