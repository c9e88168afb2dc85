"""World state around an action: attribute values and relations, before and after."""

from __future__ import annotations

from enum import StrEnum

from pydantic import BaseModel, ConfigDict, Field, field_validator, model_validator

from taskqa.model.attributes import Attribute, allowed_values


class RelationKind(StrEnum):
    SPATIAL = "spatial"  # object-object: on-top-of, in, attached-to, ...
    ACTING = "acting"  # actor-object: getting, putting, pouring, getting-with, cutting-with, ...
    MULTI_AGENT = "multi-agent"  # actor-actor/object: aware-of, looking-at, visible-to


SPATIAL_RELATIONS = (
    "on-top-of",
    "in",
    "inside",
    "under",
    "next-to",
    "attached-to",
    "held-by",
    "plugged-in",
)
MULTI_AGENT_RELATIONS = (
    "aware-of-other-action",
    "looking-at",
    "visible-to",
)


class Relation(BaseModel):
    """A (subject, relation, object) triple; ``object`` is None for unary relations."""

    model_config = ConfigDict(frozen=True, extra="forbid", allow_inf_nan=False)

    subject: str = Field(min_length=1)
    relation: str = Field(min_length=1)
    object: str | None = None
    kind: RelationKind = RelationKind.SPATIAL

    def __str__(self) -> str:
        tail = f" {self.object}" if self.object is not None else ""
        return f"{self.subject} [{self.relation}]{tail}"


class Snapshot(BaseModel):
    """What is true of one entity (an object or an agent) at one moment."""

    model_config = ConfigDict(extra="forbid", allow_inf_nan=False)

    attributes: dict[Attribute, str] = Field(default_factory=dict)
    relations: list[Relation] = Field(default_factory=list)

    @field_validator("attributes")
    @classmethod
    def _values_in_vocabulary(cls, attributes: dict[Attribute, str]) -> dict[Attribute, str]:
        for attribute, value in attributes.items():
            if value not in allowed_values(attribute):
                expected = " | ".join(allowed_values(attribute))
                raise ValueError(f"{attribute.value!r} = {value!r}; expected one of {expected}")
        return attributes

    def relations_of(self, kind: RelationKind) -> list[Relation]:
        return [r for r in self.relations if r.kind == kind]


class EntityTransition(BaseModel):
    """An entity's snapshot just before and just after one action."""

    model_config = ConfigDict(extra="forbid", allow_inf_nan=False)

    entity: str = Field(min_length=1)
    is_agent: bool = False
    before: Snapshot = Field(default_factory=Snapshot)
    after: Snapshot = Field(default_factory=Snapshot)

    @model_validator(mode="after")
    def _relations_belong_to_entity(self) -> EntityTransition:
        for moment, snapshot in (("before", self.before), ("after", self.after)):
            for relation in snapshot.relations:
                if relation.subject != self.entity:
                    raise ValueError(
                        f"{moment} relation {relation} has subject {relation.subject!r}; "
                        f"expected the entity {self.entity!r}"
                    )
        return self

    def changed_attributes(self) -> list[Attribute]:
        keys = set(self.before.attributes) | set(self.after.attributes)
        return sorted(
            (a for a in keys if self.before.attributes.get(a) != self.after.attributes.get(a)),
            key=list(Attribute).index,
        )
