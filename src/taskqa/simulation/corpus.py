"""Simulating a whole corpus, in parallel, with output independent of the number of workers."""

from __future__ import annotations

import random
from collections.abc import Callable
from concurrent.futures import ProcessPoolExecutor
from functools import partial
from pathlib import Path

from taskqa.corpus import CorpusManifest, write_corpus
from taskqa.model import Recording
from taskqa.simulation.annotate import Annotator
from taskqa.simulation.config import SimulationConfig, derive_seed
from taskqa.simulation.domain import Domain, load_domain, parse_domain
from taskqa.simulation.episode import EpisodeSimulator, EpisodeStuck, plan_episode

DOMAIN_FILE = "domain.yaml"


def recording_id(index: int) -> str:
    return f"sim-{index:05d}"


def simulate_episode(domain: Domain, config: SimulationConfig, index: int) -> Recording:
    """Episode ``index`` of the corpus; each retry after a dead end draws from a fresh seed."""
    failures: list[str] = []
    for attempt in range(config.max_attempts):
        rng = random.Random(derive_seed(config.seed, index, attempt))
        plan = plan_episode(rng, domain, config)
        try:
            trace = EpisodeSimulator(domain, config, plan, rng).run()
        except EpisodeStuck as stuck:
            failures.append(str(stuck))
            continue
        recording = Annotator(domain, config, trace, rng).recording(recording_id(index))
        recording.metadata["attempt"] = attempt
        return recording
    raise RuntimeError(
        f"episode {index} got stuck {config.max_attempts} times; last: {failures[-1]}"
    )


def _simulate_chunk(
    domain_source: str, domain_file: str, config: SimulationConfig, indices: range
) -> list[str]:
    # JSON crosses the process boundary far faster than pickled pydantic models.
    domain = parse_domain(domain_source, domain_file)
    return [simulate_episode(domain, config, i).model_dump_json() for i in indices]


def simulate_corpus(
    config: SimulationConfig,
    domain: Domain | None = None,
    workers: int = 1,
    on_progress: Callable[[int], None] | None = None,
) -> list[Recording]:
    domain = domain or load_domain()
    chunks = _chunks(config.episodes, 25)
    recordings: list[Recording] = []
    if workers <= 1:
        for chunk in chunks:
            recordings += [simulate_episode(domain, config, i) for i in chunk]
            if on_progress:
                on_progress(len(chunk))
        return recordings
    work = partial(_simulate_chunk, domain.source_text, domain.file_name, config)
    with ProcessPoolExecutor(max_workers=workers) as pool:
        for chunk, result in zip(chunks, pool.map(work, chunks), strict=True):
            recordings += [Recording.model_validate_json(text) for text in result]
            if on_progress:
                on_progress(len(chunk))
    return recordings


def _chunks(total: int, size: int) -> list[range]:
    return [range(start, min(start + size, total)) for start in range(0, total, size)]


def write_simulated_corpus(
    out: Path, config: SimulationConfig, recordings: list[Recording], domain: Domain
) -> CorpusManifest:
    manifest = CorpusManifest(
        generator=f"taskqa.simulation ({domain.name} domain)",
        seed=config.seed,
        config={**config.model_dump(mode="json"), "domain_sha256": domain.sha256},
        files={DOMAIN_FILE: "the domain the corpus was simulated from"},
    )
    return write_corpus(out, recordings, manifest, {DOMAIN_FILE: domain.source_text})
