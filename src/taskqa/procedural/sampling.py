"""Seeded stratified sampling of candidates, by the rules of ProMQA's release.

Per type, each recording contributes at most one candidate to each (noisy?, has target?) bucket;
candidates with a crowded history or too many targets are set aside. Then each type draws its
quota evenly over the buckets, filling a short bucket from its sibling. The draws consume one
``random.Random(seed)`` in the release's order (types, then recordings, in order of first
appearance), so seed 42 gives the released sample.
"""

from __future__ import annotations

import random
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

from taskqa.procedural.candidates import TARGET_FIELDS

MAX_ERROR_STEPS = 5
MAX_TARGETS = 5
QUOTA_TARGETED = 400  # next and missing
QUOTA_ERROR = 50  # each error type
NO_ERROR_PREFIX = "This step does not contain any"  # how the release marks error-free targets

Candidate = dict[str, Any]


@dataclass
class SampleResult:
    samples: list[Candidate] = field(default_factory=list)
    remainder: list[Candidate] = field(default_factory=list)


def sample_candidates(candidates: Sequence[Candidate], seed: int = 42) -> SampleResult:
    rng = random.Random(seed)
    result = SampleResult()
    for question_type, by_recording in _group(candidates).items():
        quota = QUOTA_TARGETED if question_type in TARGET_FIELDS else QUOTA_ERROR
        _sample_type(rng, question_type, by_recording, quota, result)
    return result


def _group(candidates: Sequence[Candidate]) -> dict[str, dict[str, list[Candidate]]]:
    grouped: dict[str, dict[str, list[Candidate]]] = {}
    for candidate in candidates:
        by_recording = grouped.setdefault(candidate["type"], {})
        by_recording.setdefault(candidate["recording_id"], []).append(candidate)
    return grouped


def has_target(candidate: Candidate) -> bool:
    target_field = TARGET_FIELDS.get(candidate["type"])
    if target_field is not None:
        return len(candidate[target_field]) > 0
    return not str(candidate["error_description"]).startswith(NO_ERROR_PREFIX)


def error_step_count(candidate: Candidate) -> int:
    """Erroneous steps in the history; a history clean for this type counts as none."""
    if not candidate["is_noisy"]:
        return 0
    return sum("errors" in step for step in candidate["previous_steps"])


def is_crowded(candidate: Candidate) -> bool:
    target_field = TARGET_FIELDS.get(candidate["type"])
    too_many_targets = target_field is not None and len(candidate[target_field]) > MAX_TARGETS
    return too_many_targets or error_step_count(candidate) > MAX_ERROR_STEPS


Buckets = dict[bool, dict[bool, list[Candidate]]]


def _sample_type(
    rng: random.Random,
    question_type: str,
    by_recording: dict[str, list[Candidate]],
    quota: int,
    result: SampleResult,
) -> None:
    pooled: Buckets = {}
    for candidates in by_recording.values():
        buckets: Buckets = {}
        for candidate in candidates:
            if is_crowded(candidate):
                result.remainder.append(candidate)
                continue
            noisy = buckets.setdefault(candidate["is_noisy"], {})
            noisy.setdefault(has_target(candidate), []).append(candidate)
        for noisy_flag, by_target in buckets.items():
            for target_flag, members in by_target.items():
                rng.shuffle(members)
                pooled.setdefault(noisy_flag, {}).setdefault(target_flag, []).append(members[0])
                result.remainder.extend(members[1:])
    if question_type in TARGET_FIELDS:
        for by_target in pooled.values():
            with_target = by_target.get(True, [])
            without_target = by_target.get(False, [])
            wanted = _split(quota // 4, len(with_target), len(without_target))
            _draw(rng, with_target, wanted[0], result)
            _draw(rng, without_target, wanted[1], result)
    else:
        noisy_targeted = pooled.get(True, {}).get(True, [])
        clean_targeted = pooled.get(False, {}).get(True, [])
        wanted = _split(quota // 2, len(noisy_targeted), len(clean_targeted))
        _draw(rng, noisy_targeted, wanted[0], result)
        _draw(rng, clean_targeted, wanted[1], result)


def _split(each: int, left: int, right: int) -> tuple[int, int]:
    """Quotas for two sibling buckets; a short side hands its shortfall to the other."""
    if left < each <= right:
        return left, each + (each - left)
    if right < each <= left:
        return each + (each - right), right
    return each, each


def _draw(rng: random.Random, members: list[Candidate], count: int, result: SampleResult) -> None:
    rng.shuffle(members)
    result.samples.extend(members[:count])
    result.remainder.extend(members[count:])
