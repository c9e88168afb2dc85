"""A user's own world: a corpus simulated from a domain file whose rules the built-in world
would answer differently is read, at every stage, with its own rules.

The changed rule: in this world a person can cut with a knife they are not holding (``cut`` no
longer requires ``instrument held``). The built-in world says getting the knife enabled the cut
and that cutting needs the knife in hand again after putting it down; this one says neither, so
counterfactual and dependency questions get other answers (a first try with a stricter ``cut``
showed no difference because the built-in world's stricter rule was never the one that decided
an answer: the simulated people washed what they cut anyway).

Every stage reads the corpus through ``CorpusWorld``; the proof here is twofold: the outputs
agree with generation under the corpus's own rules (and differ from the built-in world's), and
the built-in world is made unreachable while the benchmark is built, checked and answered by
the oracle, so a stage that fell back to it would fail.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from taskqa.benchmark.build import BuildConfig, build_benchmark
from taskqa.benchmark.folder import CLIPS, Benchmark
from taskqa.evaluation.baselines.oracle import oracle_predictions
from taskqa.execution import Execution
from taskqa.questions.check import check_questions
from taskqa.questions.config import GenerationConfig
from taskqa.questions.generate import generate_file
from taskqa.questions.template import load_templates
from taskqa.questions.world import CorpusWorld
from taskqa.simulation.config import SimulationConfig
from taskqa.simulation.corpus import simulate_corpus, write_simulated_corpus
from taskqa.simulation.domain import Domain, load_domain

STRICT = '"patient.shape == whole", "instrument held",\n'
LOOSE = '"patient.shape == whole",\n'


@pytest.fixture(scope="module")
def own_domain(tmp_path_factory: pytest.TempPathFactory) -> Domain:
    text = load_domain().source_text
    assert text.count(STRICT) == 1, "the built-in cut rule moved: update this test"
    path = tmp_path_factory.mktemp("own") / "own.yaml"
    path.write_text(text.replace(STRICT, LOOSE), encoding="utf-8")
    return load_domain(path)


@pytest.fixture(scope="module")
def own_corpus(tmp_path_factory: pytest.TempPathFactory, own_domain: Domain) -> Path:
    config = SimulationConfig(episodes=8, seed=3)
    out = tmp_path_factory.mktemp("own-corpus") / "corpus"
    write_simulated_corpus(out, config, simulate_corpus(config, own_domain), own_domain)
    return out


def _lines(path: Path) -> list[dict[str, object]]:
    return [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines()]


def test_the_corpus_opens_with_its_own_rules(own_corpus: Path, own_domain: Domain) -> None:
    world = CorpusWorld.open(own_corpus)
    assert world.domain is not None and world.domain.sha256 == own_domain.sha256
    assert world.domain.sha256 != load_domain().sha256


def test_the_built_in_world_would_answer_differently(own_corpus: Path, tmp_path: Path) -> None:
    """Generation under the corpus's rules and under the built-in ones disagree: the case
    the stages below must not mix up."""
    world = CorpusWorld.open(own_corpus)
    recordings, verbs = list(world.recordings), dict(world.verb_templates or {})
    own, builtin = tmp_path / "own.jsonl", tmp_path / "builtin.jsonl"
    # the counterfactual and dependency templates too: the default set leaves them out because
    # the built-in world fixes their answers, and here the rules are what they read
    templates = [t for t in load_templates(everything=True) if not t.needs]
    generate_file(recordings, templates, own, GenerationConfig(), verbs, domain=world.domain)
    generate_file(recordings, templates, builtin, GenerationConfig(), verbs, domain=load_domain())
    mine = {str(r["id"]): r["answer"] for r in _lines(own)}
    theirs = {str(r["id"]): r["answer"] for r in _lines(builtin)}
    differ = {i for i in mine.keys() & theirs.keys() if mine[i] != theirs[i]}
    assert differ or mine.keys() != theirs.keys()
    # and checking the corpus's questions in the built-in world finds them wrong
    _, problems = check_questions(own, CorpusWorld.of(recordings, verbs, load_domain()))
    assert problems


def test_every_stage_reads_the_corpus_rules(
    own_corpus: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """``build`` gives what ``generate`` (with the corpus's rules) + ``build --candidates``
    gives, with the built-in world out of reach: generation, grounding, the audit, the
    self-check, pairs, ``taskqa check`` and the oracle all read the corpus's own rules."""
    world = CorpusWorld.open(own_corpus)
    candidates = tmp_path / "candidates.jsonl"
    generate_file(
        list(world.recordings),
        load_templates(),
        candidates,
        GenerationConfig(),
        dict(world.verb_templates or {}),
        domain=world.domain,
    )

    def unreachable(*_: object) -> None:
        raise AssertionError("a stage fell back to the built-in world")

    # where a stage given no domain would take the built-in world's rules instead
    monkeypatch.setattr("taskqa.causal.preconditions._builtin", unreachable)
    monkeypatch.setattr("taskqa.questions.world.builtin_domain_for", unreachable)
    one = Execution(workers=1)
    build_benchmark(own_corpus, tmp_path / "built", BuildConfig(pairs=True), execution=one)
    build_benchmark(
        own_corpus, tmp_path / "reused", BuildConfig(), candidates_file=candidates, execution=one
    )
    built, reused = Benchmark(tmp_path / "built"), Benchmark(tmp_path / "reused")
    assert built.questions("pairs", "train") or built.questions("pairs", "test")
    for family in ("normal", "indirect"):
        for split in ("train", "val", "test"):
            ours = [q.question.id for q in built.questions(family, split)]
            assert ours == [q.question.id for q in reused.questions(family, split)]
    test = built.questions("normal", "test")
    assert test
    answers = oracle_predictions(built, test)
    assert answers == [q.question.answer for q in test]
    split_file = built.split_path("normal", "test")
    world = CorpusWorld.open(built.corpus_dir)
    checked, problems = check_questions(split_file, world, built.root / CLIPS)
    assert (checked, problems) == (len(test), [])
