"""Simulating a whole corpus, in parallel, with output independent of the number of workers."""

from __future__ import annotations

import random
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path

from taskqa.corpus import (
    CorpusManifest,
    dump_recording,
    is_corpus,
    read_manifest,
    write_corpus_lines,
)
from taskqa.execution import Execution, ShardJournal, fingerprint, run_shards
from taskqa.model import Recording, Source
from taskqa.problems import InvalidInputError, Problem
from taskqa.simulation.annotate import Annotator
from taskqa.simulation.config import SimulationConfig, derive_seed
from taskqa.simulation.domain import Domain, load_domain, parse_domain
from taskqa.simulation.episode import EpisodeSimulator, EpisodeStuck, EpisodeTrace, plan_episode

DOMAIN_FILE = "domain.yaml"
CHUNK = 25  # episodes per unit of work: big enough to amortise process overhead


def corpus_domain_file(corpus: Path) -> Path | None:
    """The domain file of a corpus folder (``domain.yaml``), None where it carries none.

    A corpus whose ``corpus.json`` names the file but lacks it is refused (InvalidInputError
    naming the file): reading it with the built-in domain instead would be silently wrong.
    """
    path = corpus / DOMAIN_FILE
    if path.is_file():
        return path
    if is_corpus(corpus) and DOMAIN_FILE in read_manifest(corpus).files:
        message = "not found (corpus.json names it as the corpus's domain)"
        raise InvalidInputError([Problem(str(path), "", message)])
    return None


def corpus_domain(corpus: Path, recordings: Sequence[Recording]) -> Domain | None:
    """The world a corpus folder's ``recordings`` come from: the one rule every stage uses.

    The folder's own ``domain.yaml`` where it has one (a corpus whose ``corpus.json`` names the
    file but lacks it is refused); else the built-in world where the recordings are its own
    (``builtin_domain_for``); else None: annotations with no world, so no schema rules.
    """
    path = corpus_domain_file(corpus)
    if path is not None:
        return load_domain(path)
    return builtin_domain_for(recordings)


def builtin_domain_for(recordings: Sequence[Recording]) -> Domain | None:
    """The built-in world, for recordings that can only be its own: every one simulated, naming
    the built-in domain (or none) and using only verbs it has; None otherwise.

    A corpus simulated from another domain file carries that file (``taskqa simulate`` writes
    it), so this fallback is for in-memory recordings and corpora made before it did.
    """
    if not recordings or any(r.source is not Source.SIMULATED for r in recordings):
        return None
    builtin = load_domain()
    if any(r.metadata.get("domain", builtin.name) != builtin.name for r in recordings):
        return None
    verbs = {a.verb for r in recordings for a in r.actions}
    return builtin if verbs <= set(builtin.schemas) else None


def recording_id(index: int, room: str, agents: int, tasks: int) -> str:
    """``sim`` + room letter + agents + tasks + index, e.g. ``simk21-00012``.

    Like LEMMA's ids (``27k-22-11-2``), the number of people sits at character 4, which is
    where EgoTaskQA's code looks to tell one-person clips from two-person ones.
    """
    return f"sim{room[0]}{agents}{tasks}-{index:05d}"


def simulate_episode(domain: Domain, config: SimulationConfig, index: int) -> Recording:
    """Episode ``index`` of the corpus; each retry after a dead end draws from a fresh seed."""
    run = run_episode(domain, config, index)
    return run.recording()


@dataclass(frozen=True)
class EpisodeRun:
    """A simulated episode before annotation: its trace, its id, and the random state the
    annotation starts from (so that a changed trace can be annotated the same way)."""

    domain: Domain
    config: SimulationConfig
    trace: EpisodeTrace
    name: str
    attempt: int
    random_state: tuple[object, ...]

    def annotator(
        self,
        trace: EpisodeTrace | None = None,
        faces: Mapping[tuple[str, int | None], frozenset[str]] | None = None,
    ) -> Annotator:
        rng = random.Random()
        rng.setstate(self.random_state)
        return Annotator(self.domain, self.config, trace or self.trace, rng, faces)

    def recording(
        self,
        trace: EpisodeTrace | None = None,
        faces: Mapping[tuple[str, int | None], frozenset[str]] | None = None,
        name: str | None = None,
    ) -> Recording:
        """The annotated recording (of ``trace`` instead, seen with ``faces``, when given)."""
        recording = self.annotator(trace, faces).recording(name or self.name)
        recording.metadata["attempt"] = self.attempt
        return recording


def run_episode(domain: Domain, config: SimulationConfig, index: int) -> EpisodeRun:
    """Simulate episode ``index`` up to its trace (``simulate_episode`` annotates it)."""
    failures: list[str] = []
    for attempt in range(config.max_attempts):
        rng = random.Random(derive_seed(config.seed, index, attempt))
        plan = plan_episode(rng, domain, config)
        try:
            trace = EpisodeSimulator(domain, config, plan, rng).run()
        except EpisodeStuck as stuck:
            failures.append(str(stuck))
            continue
        name = recording_id(index, plan.room, len(plan.agents), len(plan.tasks))
        return EpisodeRun(domain, config, trace, name, attempt, rng.getstate())
    raise RuntimeError(
        f"episode {index} got stuck {config.max_attempts} times; last: {failures[-1]}"
    )


def check_rooms(config: SimulationConfig, domain: Domain) -> None:
    """Every weighted room must exist in the domain and have tasks to do."""
    problems = [
        Problem.at(
            "config", ["rooms", room], f"the {domain.name!r} domain has no tasks in this room"
        )
        for room, weight in config.rooms.items()
        if weight > 0 and not domain.tasks_in(room)
    ]
    if problems:
        raise InvalidInputError(problems)


# What every simulation shard shares: the domain file's text and name, and the config.
SimulationContext = tuple[str, str, SimulationConfig]


def _simulate_chunk(context: SimulationContext, bounds: tuple[int, int]) -> list[tuple[str, int]]:
    # JSON crosses the process boundary far faster than pickled pydantic models.
    domain_source, domain_file, config = context
    domain = parse_domain(domain_source, domain_file)
    return [_serialised(simulate_episode(domain, config, i)) for i in range(*bounds)]


def _serialised(recording: Recording) -> tuple[str, int]:
    return dump_recording(recording), len(recording.actions)


def simulate_corpus(
    config: SimulationConfig,
    domain: Domain | None = None,
    workers: int = 1,
    on_progress: Callable[[int], None] | None = None,
) -> list[Recording]:
    """Simulate ``config.episodes`` recordings; the result does not depend on ``workers``."""
    domain = domain or load_domain()
    check_rooms(config, domain)
    if workers > 1:
        lines = simulate_corpus_lines(config, domain, workers, on_progress)
        return [Recording.model_validate_json(text) for text, _ in lines]
    recordings: list[Recording] = []
    for chunk in _chunks(config.episodes, CHUNK):
        recordings += [simulate_episode(domain, config, i) for i in chunk]
        if on_progress:
            on_progress(len(chunk))
    return recordings


def simulate_corpus_lines(
    config: SimulationConfig,
    domain: Domain,
    workers: int = 1,
    on_progress: Callable[[int], None] | None = None,
    execution: Execution | None = None,
    journal: Path | None = None,
) -> list[tuple[str, int]]:
    """Simulated recordings as corpus lines with their action counts, in episode order.

    One shard is ``CHUNK`` consecutive episodes; ``execution`` says where shards run (default:
    ``workers`` local processes) and ``journal`` is the folder recording finished shards.
    """
    check_rooms(config, domain)
    execution = execution or Execution(workers=workers)
    chunks = _chunks(config.episodes, CHUNK)
    bounds = [(chunk.start, chunk.stop) for chunk in chunks]
    labels = [f"{i} (episodes {c.start}-{c.stop - 1})" for i, c in enumerate(chunks)]
    context: SimulationContext = (domain.source_text, domain.file_name, config)
    shards = None
    if journal is not None:
        run = fingerprint("simulate", domain.source_text, config.model_dump_json())
        shards = ShardJournal(journal, run, len(chunks), execution.resume)
    lines: list[tuple[str, int]] = []
    with execution.open() as executor:
        results = run_shards(executor, _simulate_chunk, context, bounds, labels, shards)
        for chunk, result in zip(chunks, results, strict=True):
            lines += [(text, count) for text, count in result]
            if on_progress:
                on_progress(len(chunk))
    if shards is not None:
        shards.finish()
    return lines


def _chunks(total: int, size: int) -> list[range]:
    return [range(start, min(start + size, total)) for start in range(0, total, size)]


def write_simulated_corpus(
    out: Path, config: SimulationConfig, recordings: list[Recording], domain: Domain
) -> CorpusManifest:
    lines = [_serialised(r) for r in recordings]
    return write_simulated_lines(out, config, lines, domain)


def write_simulated_lines(
    out: Path, config: SimulationConfig, lines: list[tuple[str, int]], domain: Domain
) -> CorpusManifest:
    manifest = CorpusManifest(
        generator=f"taskqa.simulation ({domain.name} domain)",
        seed=config.seed,
        config={**config.model_dump(mode="json"), "domain_sha256": domain.sha256},
        files={DOMAIN_FILE: "the domain the corpus was simulated from"},
    )
    texts = [text for text, _ in lines]
    actions = sum(count for _, count in lines)
    return write_corpus_lines(out, texts, actions, manifest, {DOMAIN_FILE: domain.source_text})
