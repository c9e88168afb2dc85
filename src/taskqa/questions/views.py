"""Clip views from clip records: what programs run on when questions are checked or answered.

A clip record carries the generation settings that cut it; the causal structure is built with
those settings' dependency rules, so the oracle and ``taskqa check`` see exactly what generation
saw.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator, Mapping, Sequence
from typing import Any

from pydantic import ValidationError

from taskqa.causal import CausalStructure, DependencyRules, build_structure
from taskqa.model import Recording
from taskqa.problems import InvalidInputError, problems_from_validation_error
from taskqa.programs.clips import ClipRecord
from taskqa.programs.records import ClipView, build_view
from taskqa.questions.generate import GenerationConfig
from taskqa.simulation.domain import Domain


def generation_of(record: ClipRecord, file: str) -> GenerationConfig:
    """The generation settings a clip record carries (how its questions were made)."""
    try:
        return GenerationConfig.model_validate(record.generation)
    except ValidationError as error:
        where: list[str | int] = [record.id, "generation"]
        raise InvalidInputError(problems_from_validation_error(file, where, error)) from None


def clip_views(
    recording: Recording,
    clips: Sequence[ClipRecord],
    verb_templates: Mapping[str, str] | None,
    file: str,
    domain: Domain | None = None,
) -> dict[str, ClipView]:
    """The views of ``recording``'s clips (``clips``), one causal structure per generation
    setting; ``file`` names the clips file in problems. ``domain`` is the world a simulated
    corpus came from, as generation was given it (default: the built-in one it names)."""
    views: dict[str, ClipView] = {}
    structures: dict[DependencyRules, CausalStructure] = {}
    for record in clips:
        config = generation_of(record, file)
        rules = config.rules
        if rules not in structures:
            structures[rules] = build_structure(recording, rules, domain)
        views[record.id] = build_view(recording, record.clip, structures[rules], verb_templates)
    return views


def views_by_recording(
    records: Iterable[Mapping[str, Any]],
    recordings: Sequence[Recording],
    clips: Mapping[str, ClipRecord],
    verb_templates: Mapping[str, str] | None,
    file: str,
    domain: Domain | None = None,
) -> Iterator[tuple[Recording, list[Any], dict[str, ClipView]]]:
    """Question records grouped by recording, in the recordings' order, each group with the
    views of that recording's clips: what a pass that asks stored programs again (the evidence
    audit, the self-check) walks. Recordings with no record are skipped."""
    by_recording: dict[str, list[Any]] = {}
    for record in records:
        by_recording.setdefault(str(record["recording"]), []).append(record)
    clips_of: dict[str, list[ClipRecord]] = {}
    for clip in clips.values():
        clips_of.setdefault(clip.recording, []).append(clip)
    for recording in recordings:
        wanted = by_recording.get(recording.id)
        if wanted:
            views = clip_views(
                recording, clips_of.get(recording.id, []), verb_templates, file, domain
            )
            yield recording, wanted, views
