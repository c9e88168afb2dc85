"""Count what a corpus holds, the way the EgoTaskQA supplementary describes its annotation.

Counting rules (docs/stats.md explains them for readers of the output):

* a relation counts once per snapshot that holds it; before and after are separate snapshots,
  so a relation true on both sides of an action counts twice;
* attribute value ratios cover every object snapshot (agents excluded), before and after;
* an attribute *change* is an object transition whose before and after values are both known
  and differ; a flip to or from ``unknown`` is an annotation gap, not a change;
* a spatial relation change is any entity transition whose set of spatial relations differs.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable, Iterator, Sequence

from taskqa.model import (
    ATTRIBUTE_VALUES,
    UNKNOWN,
    Attribute,
    EntityTransition,
    ErrorTag,
    Procedure,
    Recording,
    Relation,
    RelationKind,
    Snapshot,
    allowed_values,
    attribute_kind,
)
from taskqa.stats.model import (
    AnnotationStats,
    AttributeValues,
    CorpusStats,
    CountSummary,
    DurationSummary,
    ProcedureStats,
    RelationCount,
    RelationTriple,
)

TOP_TRIPLES = 25
# Rounding keeps stats.json readable; sums are taken in input order, so it is stable anyway.
MEAN_DIGITS = 4
RATIO_DIGITS = 6
_KIND_ORDER = list(RelationKind)


def compute_stats(recordings: Sequence[Recording]) -> CorpusStats:
    transitions = list(_transitions(recordings))
    objects = [t for t in transitions if not t.is_agent]
    object_snapshots = list(_snapshots(objects))
    relation_snapshots = [set(s.relations) for s in _snapshots(transitions)]
    triples = Counter(r for relations in relation_snapshots for r in relations)
    return CorpusStats(
        recordings=len(recordings),
        actions=sum(len(r.actions) for r in recordings),
        sources=_by_count(Counter(r.source.value for r in recordings)),
        environments=_by_count(Counter(r.environment for r in recordings if r.environment)),
        episode_types=_episode_types(recordings),
        agents_per_recording=_count_summary([len(r.agents) for r in recordings]),
        actions_per_recording=_count_summary([len(r.actions) for r in recordings]),
        duration_seconds=_duration_summary([r.duration for r in recordings]),
        verbs=_by_count(Counter(a.verb for r in recordings for a in r.actions)),
        relations=_relation_counts(triples),
        relation_kinds=_relation_kinds(triples),
        top_relation_triples=_top_triples(triples),
        attribute_values=_attribute_values(object_snapshots),
        attribute_changes=_attribute_changes(objects),
        spatial_relation_changes=sum(_spatial_changed(t) for t in transitions),
        procedures=_procedure_stats(recordings),
        annotations=_annotation_stats(object_snapshots, len(transitions) - len(objects)),
    )


def _transitions(recordings: Iterable[Recording]) -> Iterator[EntityTransition]:
    for recording in recordings:
        for action in recording.actions:
            yield from action.transitions


def _snapshots(transitions: Iterable[EntityTransition]) -> Iterator[Snapshot]:
    for transition in transitions:
        yield transition.before
        yield transition.after


def _by_count(counter: Counter[str]) -> dict[str, int]:
    """Most frequent first, ties by name, so the order never depends on input order."""
    return dict(sorted(counter.items(), key=lambda item: (-item[1], item[0])))


def _episode_types(recordings: Iterable[Recording]) -> dict[str, int]:
    found = Counter(
        str(r.metadata["episode_type"]) for r in recordings if "episode_type" in r.metadata
    )
    return dict(sorted(found.items()))


def _count_summary(values: Sequence[int]) -> CountSummary:
    if not values:
        return CountSummary()
    return CountSummary(
        total=sum(values),
        mean=round(sum(values) / len(values), MEAN_DIGITS),
        min=min(values),
        max=max(values),
        histogram=dict(sorted(Counter(values).items())),
    )


def _duration_summary(values: Sequence[float]) -> DurationSummary:
    if not values:
        return DurationSummary()
    return DurationSummary(
        total=round(sum(values), MEAN_DIGITS),
        mean=round(sum(values) / len(values), MEAN_DIGITS),
        min=min(values),
        max=max(values),
    )


def _relation_counts(triples: Counter[Relation]) -> list[RelationCount]:
    names: Counter[tuple[str, RelationKind]] = Counter()
    for relation, count in triples.items():
        names[(relation.relation, relation.kind)] += count
    ordered = sorted(
        names.items(), key=lambda item: (-item[1], _KIND_ORDER.index(item[0][1]), item[0][0])
    )
    return [RelationCount(relation=name, kind=kind, count=n) for (name, kind), n in ordered]


def _relation_kinds(triples: Counter[Relation]) -> dict[RelationKind, int]:
    kinds: dict[RelationKind, int] = {kind: 0 for kind in RelationKind}
    for relation, count in triples.items():
        kinds[relation.kind] += count
    return kinds


def _top_triples(triples: Counter[Relation]) -> list[RelationTriple]:
    def key(item: tuple[Relation, int]) -> tuple[int, str, str, str, int]:
        r, count = item
        return (-count, r.relation, r.subject, r.object or "", _KIND_ORDER.index(r.kind))

    return [
        RelationTriple(
            subject=r.subject, relation=r.relation, object=r.object, kind=r.kind, count=count
        )
        for r, count in sorted(triples.items(), key=key)[:TOP_TRIPLES]
    ]


def _attribute_values(snapshots: Iterable[Snapshot]) -> list[AttributeValues]:
    found: Counter[tuple[Attribute, str]] = Counter(
        (attribute, value) for s in snapshots for attribute, value in s.attributes.items()
    )
    rows: list[AttributeValues] = []
    for attribute in Attribute:
        counts = {v: found[(attribute, v)] for v in allowed_values(attribute)}
        total = sum(counts.values())
        ratios = {v: round(n / total, RATIO_DIGITS) if total else 0.0 for v, n in counts.items()}
        rows.append(
            AttributeValues(
                attribute=attribute,
                kind=attribute_kind(attribute),
                annotations=total,
                counts=counts,
                ratios=ratios,
            )
        )
    return rows


def _attribute_changes(objects: Iterable[EntityTransition]) -> dict[Attribute, int]:
    changes = dict.fromkeys(ATTRIBUTE_VALUES, 0)
    for transition in objects:
        before, after = transition.before.attributes, transition.after.attributes
        for attribute in before.keys() & after.keys():
            old, new = before[attribute], after[attribute]
            if old != new and UNKNOWN not in (old, new):
                changes[attribute] += 1
    return changes


def _spatial_changed(transition: EntityTransition) -> bool:
    before = set(transition.before.relations_of(RelationKind.SPATIAL))
    return before != set(transition.after.relations_of(RelationKind.SPATIAL))


def _procedure_stats(recordings: Sequence[Recording]) -> ProcedureStats:
    procedures: list[Procedure] = [p for r in recordings for p in r.procedures]
    steps = [s for p in procedures for s in p.steps]
    tags = Counter(tag for s in steps for tag in s.tags)
    return ProcedureStats(
        procedures=len(procedures),
        steps=len(steps),
        missing_steps=sum(s.is_missing for s in steps),
        steps_with_errors=sum(bool(s.errors) for s in steps),
        recordings_with_errors=sum(any(p.has_errors for p in r.procedures) for r in recordings),
        error_tags={tag: tags[tag] for tag in ErrorTag},
    )


def _annotation_stats(
    object_snapshots: Sequence[Snapshot], agent_transitions: int
) -> AnnotationStats:
    values = [v for s in object_snapshots for v in s.attributes.values()]
    unknown = values.count(UNKNOWN)
    return AnnotationStats(
        object_snapshots=len(object_snapshots),
        agent_snapshots=2 * agent_transitions,
        attribute_annotations=len(values),
        unknown_annotations=unknown,
        unknown_share=round(unknown / len(values), RATIO_DIGITS) if values else 0.0,
    )
