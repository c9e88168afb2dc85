"""Clip views from clip records: what programs run on when questions are checked or answered.

A clip record carries the generation settings that cut it; the causal structure is built with
those settings' dependency rules, so the oracle and ``taskqa check`` see exactly what generation
saw.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence

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
