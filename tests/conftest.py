"""Shared fixtures: the built-in domain and a small simulated corpus."""

from __future__ import annotations

from pathlib import Path

import pytest

from taskqa.model import Recording
from taskqa.simulation.config import SimulationConfig
from taskqa.simulation.corpus import simulate_corpus, write_simulated_corpus
from taskqa.simulation.domain import Domain, load_domain


@pytest.fixture(scope="session")
def domain() -> Domain:
    return load_domain()


@pytest.fixture(scope="session")
def small_config() -> SimulationConfig:
    # A high error and unknown rate so that 60 episodes exercise every mechanism.
    return SimulationConfig(episodes=60, seed=7, error_episode_rate=0.6, unknown_rate=0.05)


@pytest.fixture(scope="session")
def small_corpus(small_config: SimulationConfig, domain: Domain) -> list[Recording]:
    return simulate_corpus(small_config, domain)


@pytest.fixture(scope="session")
def small_corpus_dir(
    tmp_path_factory: pytest.TempPathFactory,
    small_config: SimulationConfig,
    small_corpus: list[Recording],
    domain: Domain,
) -> Path:
    out = tmp_path_factory.mktemp("corpus") / "corpus"
    write_simulated_corpus(out, small_config, small_corpus, domain)
    return out
