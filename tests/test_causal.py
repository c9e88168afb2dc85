from __future__ import annotations

from pathlib import Path

from typer.testing import CliRunner

from taskqa.causal import DependencyRules, Executability, Link, action_link, build_structure
from taskqa.causal.render import to_dot
from taskqa.cli import app
from taskqa.model import (
    ActionSegment,
    ActionSlots,
    Agent,
    Attribute,
    EntityTransition,
    Recording,
    Relation,
    Snapshot,
    Source,
)

OPEN, CLOSED = "open", "closed"


def _action(
    action_id: str,
    start: float,
    verb: str,
    changes: dict[str, tuple[dict[Attribute, str], dict[Attribute, str]]],
    places: dict[str, tuple[str | None, str | None]] | None = None,
) -> ActionSegment:
    """An action whose objects go from the first attribute dict to the second."""
    transitions = []
    for name, (before, after) in changes.items():
        where = (places or {}).get(name, (None, None))
        transitions.append(
            EntityTransition(
                entity=name,
                before=Snapshot(attributes=before, relations=_at(name, where[0])),
                after=Snapshot(attributes=after, relations=_at(name, where[1])),
            )
        )
    return ActionSegment(
        id=action_id,
        agent="P1",
        start=start,
        end=start + 1,
        verb=verb,
        slots=ActionSlots(patient=list(changes)),
        transitions=transitions,
    )


def _at(name: str, place: str | None) -> list[Relation]:
    return [] if place is None else [Relation(subject=name, relation="on-top-of", object=place)]


def _state(value: str) -> dict[Attribute, str]:
    return {Attribute.OPENNESS: value}


RULES = DependencyRules()


def test_changed_then_changed_again_is_dependent() -> None:
    opening = _action("a", 0, "open", {"fridge": (_state(CLOSED), _state(OPEN))})
    closing = _action("b", 2, "close", {"fridge": (_state(OPEN), _state(CLOSED))})
    assert action_link(opening, closing, RULES) is Link.DEPENDENT


def test_changed_then_left_alone_is_related() -> None:
    opening = _action("a", 0, "open", {"fridge": (_state(CLOSED), _state(OPEN))})
    looking = _action("b", 2, "get", {"fridge": (_state(OPEN), _state(OPEN))})
    assert action_link(opening, looking, RULES) is Link.RELATED


def test_no_shared_object_or_no_change_is_unrelated() -> None:
    opening = _action("a", 0, "open", {"fridge": (_state(CLOSED), _state(OPEN))})
    other = _action("b", 2, "close", {"drawer": (_state(OPEN), _state(CLOSED))})
    assert action_link(opening, other, RULES) is Link.UNRELATED
    idle = _action("c", 0, "get", {"fridge": (_state(OPEN), _state(OPEN))})
    closing = _action("d", 2, "close", {"fridge": (_state(OPEN), _state(CLOSED))})
    assert action_link(idle, closing, RULES) is Link.UNRELATED


def test_the_later_action_must_find_what_the_earlier_left() -> None:
    opening = _action("a", 0, "open", {"fridge": (_state(CLOSED), _state(OPEN))})
    stale = _action("b", 2, "open", {"fridge": (_state(CLOSED), _state(OPEN))})
    assert action_link(opening, stale, RULES) is Link.UNRELATED


def test_unknown_values_never_link() -> None:
    opening = _action("a", 0, "open", {"fridge": (_state(CLOSED), _state("unknown"))})
    closing = _action("b", 2, "close", {"fridge": (_state("unknown"), _state(CLOSED))})
    assert action_link(opening, closing, RULES) is Link.UNRELATED


def test_any_dependent_attribute_wins_whatever_the_order() -> None:
    before = {Attribute.EMPTINESS: "empty", Attribute.OPENNESS: CLOSED}
    after = {Attribute.EMPTINESS: "full", Attribute.OPENNESS: OPEN}
    filling = _action("a", 0, "fill", {"jar": (before, after)})
    # emptiness is left alone (related) but openness changes again (dependent)
    later = _action("b", 2, "close", {"jar": (after, {**after, Attribute.OPENNESS: CLOSED})})
    assert action_link(filling, later, RULES) is Link.DEPENDENT


def test_spatial_rule_is_the_released_code_option() -> None:
    placing = _action("a", 0, "put", {"cup": ({}, {})}, {"cup": (None, "counter")})
    taking = _action("b", 2, "get", {"cup": ({}, {})}, {"cup": ("counter", None)})
    assert action_link(placing, taking, RULES) is Link.DEPENDENT
    assert action_link(placing, taking, DependencyRules(spatial=False)) is Link.UNRELATED


def test_visibility_only_counts_when_asked() -> None:
    seen = {Attribute.VISIBILITY_TO_ME: "visible"}
    hidden = {Attribute.VISIBILITY_TO_ME: "invisible"}
    turning = _action("a", 0, "get", {"cup": (hidden, seen)})
    again = _action("b", 2, "put", {"cup": (seen, hidden)})
    assert action_link(turning, again, RULES) is Link.UNRELATED
    assert action_link(turning, again, DependencyRules(include_visibility=True)) is Link.DEPENDENT


def _recording(actions: list[ActionSegment]) -> Recording:
    return Recording(
        id="r",
        source=Source.SIMULATED,
        duration=20,
        fps=24,
        agents=[Agent(id="P1")],
        actions=actions,
    )


def test_closure_marks_paths_through_related_links_as_related() -> None:
    # a -> b dependent (fridge), b -> c related (jar), a -> d -> e dependent chain
    a = _action("a", 0, "open", {"fridge": (_state(CLOSED), _state(OPEN))})
    b = _action(
        "b",
        2,
        "close",
        {"fridge": (_state(OPEN), _state(CLOSED)), "jar": (_state(CLOSED), _state(OPEN))},
    )
    c = _action("c", 4, "get", {"jar": (_state(OPEN), _state(OPEN))})
    d = _action("d", 6, "open", {"fridge": (_state(CLOSED), _state(OPEN))})
    structure = build_structure(_recording([a, b, c, d]))
    assert structure.links[("a", "b")] is Link.DEPENDENT
    assert structure.links[("b", "c")] is Link.RELATED
    assert structure.dependants["a"] == {
        "b": Link.DEPENDENT,
        "c": Link.RELATED,
        "d": Link.DEPENDENT,
    }
    verdict = structure.counterfactual(["a"])
    assert verdict == {
        "a": Executability.NO,
        "b": Executability.NO,
        "c": Executability.UNKNOWN,
        "d": Executability.NO,
    }
    assert structure.counterfactual(["c"])["d"] is Executability.YES


def test_simulated_structures_point_forward_in_time(small_corpus: list[Recording]) -> None:
    linked = 0
    for recording in small_corpus[:20]:
        structure = build_structure(recording)
        starts = {a.id: a.start for a in recording.actions}
        ends = {a.id: a.end for a in recording.actions}
        for (earlier, later), _ in structure.links.items():
            assert ends[earlier] <= starts[later]
            linked += 1
        for root, closure in structure.dependants.items():
            assert all(starts[a] >= ends[root] for a in closure)
    assert linked > 100


def test_dot_quotes_every_name() -> None:
    a = _action("a", 0, "open", {'odd "box"': (_state(CLOSED), _state(OPEN))})
    b = _action("b", 2, "close", {'odd "box"': (_state(OPEN), _state(CLOSED))})
    recording = _recording([a, b])
    dot = to_dot(build_structure(recording), recording)
    assert '"a" -> "b" [label="dependent", style=solid' in dot
    assert '[odd \\"box\\"]' in dot


def test_causal_command_writes_dot_and_png(
    tmp_path: Path, small_corpus_dir: Path, small_corpus: list[Recording]
) -> None:
    wanted = small_corpus[0].id
    result = CliRunner().invoke(
        app, ["causal", str(small_corpus_dir), "--recording", wanted, "--out", str(tmp_path)]
    )
    assert result.exit_code == 0, result.output
    assert (tmp_path / f"{wanted}.dot").read_text().startswith(f'digraph "{wanted}"')
    assert (tmp_path / f"{wanted}.png").read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
    result = CliRunner().invoke(app, ["causal", str(small_corpus_dir)])
    assert result.exit_code == 1
    assert "several recordings; pass --recording ID" in result.output
