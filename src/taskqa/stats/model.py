"""The shape of ``stats.json``: every number ``taskqa stats`` reports about a corpus.

Dicts keep a fixed order (vocabulary order for attributes, values and error tags; count then
name for verbs and relations) so the same corpus always serializes to the same bytes.
"""

from __future__ import annotations

from pydantic import BaseModel, ConfigDict, Field

from taskqa.model import Attribute, AttributeKind, ErrorTag, RelationKind

STATS_FORMAT = "taskqa-stats"
STATS_FORMAT_VERSION = 1


class _Frozen(BaseModel):
    model_config = ConfigDict(frozen=True, extra="forbid")


class CountSummary(_Frozen):
    """A whole number taken once per recording (actions, agents): its spread and histogram."""

    total: int = 0
    mean: float = 0.0
    min: int = 0
    max: int = 0
    histogram: dict[int, int] = Field(
        default_factory=dict, description="Value -> number of recordings with it, by value."
    )


class DurationSummary(_Frozen):
    """Recording length in seconds."""

    total: float = 0.0
    mean: float = 0.0
    min: float = 0.0
    max: float = 0.0


class RelationCount(_Frozen):
    """How many snapshots hold a relation of this name and kind (at most once per snapshot)."""

    relation: str
    kind: RelationKind
    count: int


class RelationTriple(_Frozen):
    """One (subject, relation, object) triple and the number of snapshots that hold it."""

    subject: str
    relation: str
    object: str | None = None
    kind: RelationKind
    count: int


class AttributeValues(_Frozen):
    """Counts of each value of one attribute over every object snapshot, before and after."""

    attribute: Attribute
    kind: AttributeKind
    annotations: int = Field(description="Object snapshots that annotate this attribute.")
    counts: dict[str, int] = Field(description="Every allowed value, unknown last.")
    ratios: dict[str, float] = Field(description="counts / annotations, 0 when never annotated.")


class ProcedureStats(_Frozen):
    procedures: int = 0
    steps: int = Field(default=0, description="Annotated step executions.")
    missing_steps: int = Field(default=0, description="Steps without times or tagged missing.")
    steps_with_errors: int = 0
    recordings_with_errors: int = 0
    error_tags: dict[ErrorTag, int] = Field(
        default_factory=dict, description="Step errors per tag, every tag listed."
    )


class AnnotationStats(_Frozen):
    """How much of the attribute annotation is ``unknown``."""

    object_snapshots: int = 0
    agent_snapshots: int = 0
    attribute_annotations: int = Field(default=0, description="Attribute values on objects.")
    unknown_annotations: int = 0
    unknown_share: float = 0.0


class CorpusStats(_Frozen):
    format: str = STATS_FORMAT
    format_version: int = STATS_FORMAT_VERSION
    recordings: int
    actions: int
    sources: dict[str, int]
    environments: dict[str, int]
    episode_types: dict[str, int] = Field(
        description="metadata['episode_type'] -> recordings; recordings without it are left out."
    )
    agents_per_recording: CountSummary
    actions_per_recording: CountSummary
    duration_seconds: DurationSummary
    verbs: dict[str, int] = Field(description="Actions per verb, most frequent first.")
    relations: list[RelationCount]
    relation_kinds: dict[RelationKind, int]
    top_relation_triples: list[RelationTriple]
    attribute_values: list[AttributeValues]
    attribute_changes: dict[Attribute, int] = Field(
        description="Object transitions whose known before and after values differ."
    )
    spatial_relation_changes: int = Field(
        description="Entity transitions whose set of spatial relations differs before and after."
    )
    procedures: ProcedureStats
    annotations: AnnotationStats
