"""The timeline of an EgoTV kitchen episode: when each segment happens and what the kitchen
looks like before and after each action.

Each high-level action lasts a fixed time per verb (``verify/looks/kitchen.yaml``), so segment
``k`` spans ``[start_k, end_k)`` seconds and, at ``fps`` frames per second, its boundary frames
are ``round(start_k * fps)`` and ``round(end_k * fps)``. The world is replayed from the actions:
where the person is, where the target object and the knife are, which receptacles are open, and
the target's states (from each segment's ``state_after``).
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import cache
from importlib import resources
from typing import Any

import yaml

from taskqa.verify.kitchen import Episode, Scene


@cache
def load_look() -> dict[str, Any]:
    """The built-in kitchen look (``verify/looks/kitchen.yaml``), parsed."""
    text = resources.files("taskqa.verify").joinpath("looks/kitchen.yaml").read_text()
    look: dict[str, Any] = yaml.safe_load(text)
    return look


@dataclass(frozen=True)
class Moment:
    """The kitchen as the picture shows it at one instant."""

    agent_at: str
    target_at: str  # a receptacle or "agent"
    knife_at: str
    states: frozenset[str]
    opened: frozenset[str]


@dataclass(frozen=True)
class Step:
    """One action on the timeline (consecutive windows of one action are one step)."""

    action: str
    start: float
    end: float
    before: Moment
    after: Moment


# --- the timeline --------------------------------------------------------------------------------


def segment_times(episode: Episode) -> list[tuple[float, float]]:
    """``(start, end)`` seconds of every segment, back to back from 0."""
    seconds = load_look()["seconds"]
    times: list[tuple[float, float]] = []
    clock = 0.0
    for segment in episode.segments:
        verb = segment.action.split(" ", 1)[0]
        length = float(seconds[verb])
        times.append((round(clock, 6), round(clock + length, 6)))
        clock += length
    return times


def boundary_frames(times: list[tuple[float, float]], fps: float) -> list[tuple[int, int]]:
    return [(round(start * fps), round(end * fps)) for start, end in times]


def timeline(episode: Episode) -> list[Step]:
    """The episode's actions with the kitchen before and after each, in time order."""
    times = segment_times(episode)
    knife_at = Scene.generate(episode.scene).knife_at
    moment = Moment("countertop", _start_of(episode), knife_at, frozenset(), frozenset())
    steps: list[Step] = []
    index = 0
    while index < len(episode.segments):
        segment = episode.segments[index]
        last = index
        while (
            last + 1 < len(episode.segments) and episode.segments[last + 1].action == segment.action
        ):
            last += 1  # the windows of one long action
        after = _apply(moment, episode, segment.action, episode.segments[last].state_after)
        steps.append(Step(segment.action, times[index][0], times[last][1], moment, after))
        moment = after
        index = last + 1
    return steps


def _start_of(episode: Episode) -> str:
    """Where the target object lies at the start: where the person first picks it up."""
    agent_at = "countertop"
    for segment in episode.segments:
        verb, *args = segment.action.split(" ")
        if verb == "GotoLocation":
            agent_at = args[0]
        if verb == "PickupObject" and args[0] == episode.obj:
            return agent_at
    return agent_at


def _apply(moment: Moment, episode: Episode, action: str, after: dict[str, object]) -> Moment:
    verb, *args = action.split(" ")
    agent_at, target_at, knife_at = moment.agent_at, moment.target_at, moment.knife_at
    opened = set(moment.opened)
    states = moment.states
    if verb == "GotoLocation":
        agent_at = args[0]
    elif verb == "OpenObject":
        opened.add(args[0])
    elif verb == "CloseObject":
        opened.discard(args[0])
    elif verb == "PickupObject":
        if args[0] == episode.obj:
            target_at = "agent"
        else:
            knife_at = "agent"
    elif verb == "PutObject":
        if args[0] == episode.obj:
            target_at = args[1]
        else:
            knife_at = args[1]
    else:
        listed = after.get("states", [])
        states = frozenset(str(s) for s in listed) if isinstance(listed, list) else states
    return Moment(agent_at, target_at, knife_at, states, frozenset(opened))
