"""A simulated corpus must survive the trip through EgoTaskQA's annotation files."""

from __future__ import annotations

import json
from pathlib import Path

from typer.testing import CliRunner

from taskqa.cli import app
from taskqa.corpus import read_corpus
from taskqa.model import Outcome, Recording
from taskqa.simulation.domain import Domain
from taskqa.sources.egotaskqa import read_egotaskqa, write_egotaskqa


def test_simulated_corpus_round_trips_through_egotaskqa(
    tmp_path: Path, small_corpus: list[Recording], domain: Domain
) -> None:
    # the corpus holds what the LEMMA files have no field for: outcomes and initial states
    outcomes = {a.outcome for r in small_corpus for a in r.actions}
    assert outcomes == {Outcome.DONE, Outcome.FAILED, Outcome.PARTIAL}
    assert all(r.initial_state for r in small_corpus)
    write_egotaskqa(small_corpus, tmp_path / "ego", domain.templates)
    assert read_egotaskqa(tmp_path / "ego") == small_corpus


def test_lemma_files_alone_carry_the_world_state(
    tmp_path: Path, small_corpus: list[Recording], domain: Domain
) -> None:
    write_egotaskqa(small_corpus, tmp_path / "ego", domain.templates)
    (tmp_path / "ego" / "taskqa_meta.json").unlink()
    bare = read_egotaskqa(tmp_path / "ego")
    for original, restored in zip(small_corpus, bare, strict=True):
        assert [a.verb for a in restored.actions] == [a.verb for a in original.actions]
        for a, b in zip(original.actions, restored.actions, strict=True):
            assert a.slots == b.slots
            assert (round(a.start * 24), round(a.end * 24)) == (
                round(b.start * 24),
                round(b.end * 24),
            )
            for ta, tb in zip(a.transitions, b.transitions, strict=True):
                assert ta.before.attributes == tb.before.attributes
                assert sorted(map(str, ta.after.relations)) == sorted(map(str, tb.after.relations))


def test_written_action_strings_read_like_lemma(
    tmp_path: Path, small_corpus: list[Recording], domain: Domain
) -> None:
    write_egotaskqa(small_corpus[:3], tmp_path / "ego", domain.templates)
    parsed = json.loads((tmp_path / "ego" / "parsed.json").read_text())
    strings = [header[2][0] for v in parsed.values() for header, _, _ in v["all_segments"]]
    assert any(
        s.startswith("Get [") and " from [" in s and s.endswith("using [hand]") for s in strings
    )
    assert all(s[0].isupper() for s in strings)


def test_convert_command_both_ways(tmp_path: Path, small_corpus_dir: Path) -> None:
    runner = CliRunner()
    result = runner.invoke(
        app, ["convert", str(small_corpus_dir), "--to", "egotaskqa", "--out", str(tmp_path / "e")]
    )
    assert result.exit_code == 0, result.output
    result = runner.invoke(
        app, ["convert", str(tmp_path / "e"), "--to", "taskqa", "--out", str(tmp_path / "t")]
    )
    assert result.exit_code == 0, result.output
    assert read_corpus(tmp_path / "t") == read_corpus(small_corpus_dir)
