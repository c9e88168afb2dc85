"""A simulated corpus written to a folder of its own, as module fixtures build them."""

from __future__ import annotations

from pathlib import Path

import pytest

from taskqa.simulation.config import SimulationConfig
from taskqa.simulation.corpus import simulate_corpus, write_simulated_corpus
from taskqa.simulation.domain import Domain


def simulated_corpus(
    factory: pytest.TempPathFactory, domain: Domain, name: str, episodes: int, seed: int
) -> Path:
    """``episodes`` recordings of ``domain`` simulated with ``seed``, in ``<tmp>/<name>/corpus``."""
    config = SimulationConfig(episodes=episodes, seed=seed)
    out = factory.mktemp(name) / "corpus"
    write_simulated_corpus(out, config, simulate_corpus(config, domain), domain)
    return out
