"""Knobs of the simulated world; every one has a default a researcher can override."""

from __future__ import annotations

import hashlib
from pathlib import Path
from typing import Any

from pydantic import BaseModel, ConfigDict, Field, ValidationError, field_validator

from taskqa.jsonio import load_json
from taskqa.problems import InvalidInputError, Problem, problems_from_validation_error

EPISODE_TYPES = ("1x1", "1x2", "2x1", "2x2")  # LEMMA's agents x tasks


class SimulationConfig(BaseModel):
    model_config = ConfigDict(extra="forbid")

    episodes: int = Field(default=400, ge=1)
    seed: int = 0
    episode_types: dict[str, float] = Field(
        default_factory=lambda: {"1x1": 0.25, "1x2": 0.3, "2x1": 0.2, "2x2": 0.25},
        description="Relative weights of LEMMA's episode types (agents x tasks).",
    )
    rooms: dict[str, float] = Field(
        default_factory=lambda: {"kitchen": 0.65, "living-room": 0.35},
        description="Relative weights of the rooms an episode takes place in.",
    )
    unknown_rate: float = Field(
        default=0.0,
        ge=0,
        le=1,
        description="Share of attribute annotations written as unknown: an opt-in noise layer "
        "for studying the generator on imperfect annotations. The default 0 keeps the "
        "annotations equal to the simulated truth that `taskqa render` draws, so every answer "
        "is what the video shows.",
    )
    look_around_rate: float = Field(
        default=0.7,
        ge=0,
        le=1,
        description="Chance that a person, at each of their actions, faces each zone beside "
        "their own (and so sees it and the other person there).",
    )
    detour_rate: float = Field(
        default=0.15, ge=0, le=1, description="Chance of an unnecessary detour before a step."
    )
    error_episode_rate: float = Field(
        default=0.3, ge=0, le=1, description="Share of episodes with procedural errors."
    )
    step_error_rate: float = Field(
        default=0.25, ge=0, le=1, description="In an error episode, chance that a step goes wrong."
    )
    order_error_rate: float = Field(
        default=0.08,
        ge=0,
        le=1,
        description="In an error episode, chance of a step taken too early.",
    )
    vary_initial_rate: float = Field(
        default=1.0,
        ge=0,
        le=1,
        description="Chance that an attribute an object lists under `vary` starts at a value "
        "drawn from those alternatives rather than at its default.",
    )
    distractor_rate: float = Field(
        default=0.5, ge=0, le=1, description="Chance that each distractor object is present."
    )
    vary_roles: bool = Field(
        default=True,
        description="Bind each task role to a random one of its objects; false: always the first.",
    )
    leave_out_rate: float = Field(
        default=0.3,
        ge=0,
        le=1,
        description="Chance that a person leaves out a step action marked optional with a "
        "trailing `?` (closing a cupboard), when the rest of the step allows it.",
    )
    failure_rate: float = Field(
        default=0.1,
        ge=0,
        le=0.9,
        description="Chance that an action whose schema `fails` has no effect and is retried.",
    )
    partial_rate: float = Field(
        default=0.15,
        ge=0,
        le=1,
        description="Chance that an action with a `partial` list has only those effects.",
    )
    interruption_rate: float = Field(
        default=0.1,
        ge=0,
        le=1,
        description="In a two-person episode, chance that a person, at a turn where one of the "
        "domain's `interruptions` applies to a thing the other person (or the start) left, "
        "first does it (closes the fridge the other left open).",
    )
    max_interruptions: int = Field(
        default=2, ge=0, description="At most this many interruptions in one episode."
    )
    gap_seconds: tuple[float, float] = Field(
        default=(0.2, 1.5), description="Pause between two actions of one agent."
    )
    max_attempts: int = Field(
        default=25, ge=1, description="Retries of an episode that gets stuck."
    )

    @field_validator("episode_types")
    @classmethod
    def _known_episode_types(cls, weights: dict[str, float]) -> dict[str, float]:
        unknown = sorted(set(weights) - set(EPISODE_TYPES))
        if unknown:
            raise ValueError(
                f"unknown episode types {unknown}; expected {', '.join(EPISODE_TYPES)}"
            )
        return _positive_weights(weights)

    @field_validator("rooms")
    @classmethod
    def _room_weights(cls, weights: dict[str, float]) -> dict[str, float]:
        return _positive_weights(weights)

    @field_validator("gap_seconds")
    @classmethod
    def _ordered_gap(cls, gap: tuple[float, float]) -> tuple[float, float]:
        if not 0 <= gap[0] <= gap[1]:
            raise ValueError("expected 0 <= min <= max")
        return gap


def _positive_weights(weights: dict[str, float]) -> dict[str, float]:
    if any(w < 0 for w in weights.values()) or sum(weights.values()) <= 0:
        raise ValueError("expected weights >= 0 with a positive sum")
    return weights


def load_config(path: Path | None, **fixed: Any) -> SimulationConfig:
    """Config from a JSON file of overrides (all optional), with ``fixed`` fields on top."""
    overrides = load_json(path) if path is not None else {}
    if not isinstance(overrides, dict):
        name = path.name if path is not None else "config"
        raise InvalidInputError([Problem(name, "", "expected a JSON object of config fields")])
    try:
        return SimulationConfig.model_validate({**overrides, **fixed})
    except ValidationError as error:
        name = path.name if path is not None else "config"
        raise InvalidInputError(problems_from_validation_error(name, [], error)) from None


def derive_seed(*parts: int | str) -> int:
    """A 64-bit seed from the global seed and a unit's coordinates, stable across processes."""
    digest = hashlib.sha256(":".join(str(p) for p in parts).encode("utf-8")).digest()
    return int.from_bytes(digest[:8], "big")
