"""The build's self-check: every reference a question makes, worked out again from the actions
the clip shows, must agree with what its program says.

A question refers to things by what the clip acts out: "the first thing the person opened" is
the thing the first opening shown was done to, "what did they do first?" the first action
shown, "what did they do that changed the cloth?" an action that names the cloth. This module
recomputes each from the recording's own actions (the person's, in the order seen; ids from
the clip), independently of the program executor that generation, ``taskqa check`` and the
oracle share, and lists the questions where the two disagree. ``taskqa build`` refuses to write
a benchmark with any (``--allow-reference-mismatch`` to override).
"""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from taskqa.model import ActionSegment, Recording
from taskqa.programs.clips import ClipRecord
from taskqa.programs.executor import result
from taskqa.programs.syntax import parse_program
from taskqa.questions.realize import Speaker, parse_action_text
from taskqa.questions.world import CorpusWorld

# the thing the first/last doing of a verb shown was done to: a root query or a nested reference
# (``only``: the one doing of the verb the clip shows, "the thing they opened")
_BY_VERB = re.compile(
    r"query\(patient\$, (?:iterate_until\((forward|backward), |(only)\()"
    r"filter\(verb@([^,()]+), video\)\)\)"
)
# the first/last action shown (indirect/action/*)
_FIRST_ACTION = re.compile(
    r"^query\(hoi\$, iterate_until\((forward|backward), filter\(video\)\)\)$"
)
# the one shown action that changed a named thing (explanatory/world/how-changed and kin)
_CHANGED = re.compile(r"^query\(hoi\$, only\(filter\(change, obj@([^,()]+),")


@dataclass
class SelfCheck:
    """Questions whose references disagree with the clip's shown actions."""

    checked: int = 0
    referring: int = 0  # of them, questions making a reference the check recomputes
    by_template: Counter[str] = field(default_factory=Counter)
    examples: list[dict[str, str]] = field(default_factory=list)

    @property
    def disagreeing(self) -> int:
        return sum(self.by_template.values())

    def summary(self) -> dict[str, Any]:
        return {
            "checked": self.checked,
            "referring": self.referring,
            "disagreeing": self.disagreeing,
            "by_template": dict(sorted(self.by_template.items())),
            "examples": self.examples[:10],
        }


def shown_actions(recording: Recording, ids: Iterable[str]) -> list[ActionSegment]:
    """The recording's actions with these ids, in the order a viewer sees them."""
    wanted = set(ids)
    return sorted((a for a in recording.actions if a.id in wanted), key=lambda a: (a.start, a.end))


def referent_by_verb(actions: Sequence[ActionSegment], verb: str, direction: str) -> str | None:
    """The thing the first (``forward``), last (``backward``) or one (``only``) shown doing of
    ``verb`` was done to."""
    doings = [a for a in actions if a.verb == verb and a.slots.patient]
    if not doings or (direction == "only" and len(doings) != 1):
        return None
    chosen = doings[-1] if direction == "backward" else doings[0]
    return chosen.slots.patient[0] if len(chosen.slots.patient) == 1 else None


def check_records(
    records: Iterable[Mapping[str, Any]],
    world: CorpusWorld,
    clips: Mapping[str, ClipRecord],
    clips_file: str,
) -> SelfCheck:
    """Recompute every kept question's references from its clip's shown actions."""
    found = SelfCheck()
    speaker = world.speaker
    for recording, wanted, views in world.grouped(records, clips, clips_file):
        for _, record in wanted:
            chosen = clips.get(str(record["clip"]))
            view = views.get(str(record["clip"]))
            if chosen is None or view is None:
                continue
            shown = shown_actions(recording, chosen.clip.observed)
            problem = _disagreement(record, shown, view, recording, speaker)
            found.checked += 1
            found.referring += _refers(str(record["program"]))
            if problem is not None:
                found.by_template[str(record["template"])] += 1
                found.examples.append(
                    {"id": str(record["id"]), "question": str(record["question"]), "why": problem}
                )
    return found


def _disagreement(
    record: Mapping[str, Any],
    shown: Sequence[ActionSegment],
    view: Any,
    recording: Recording,
    speaker: Speaker,
) -> str | None:
    program = str(record["program"])
    answers = {str(record["answer"]), *map(str, record.get("answer_aliases") or ())}
    for match in _BY_VERB.finditer(program):
        direction, verb = match.group(1) or match.group(2), match.group(3).strip("'")
        expected = referent_by_verb(shown, verb, direction)
        got = result(parse_program(match.group(0)), view)
        if expected is None or got != expected:
            order = _order(direction)
            return f"the {order} {verb} shown was done to {expected}, the program says {got}"
        said = speaker.object_phrase(expected)
        if match.start() == 0 and said not in answers:
            return f"answer {record['answer']!r}, the clip shows {said!r}"
    whole = _FIRST_ACTION.match(program)
    if whole is not None and shown:
        action = shown[0] if whole.group(1) == "forward" else shown[-1]
        said = speaker.action(_hoi(action, view), "base")
        if said not in answers and f"to {said}" not in answers:
            order = _order(whole.group(1))
            return f"answer {record['answer']!r}, the {order} action shown is {said!r}"
    changed = _CHANGED.match(program)
    if changed is not None:
        thing = changed.group(1).strip("'")
        raw = result(parse_program(program), view)
        if raw is not None and thing not in parse_action_text(raw).objects():
            return f"answer {raw!r} does not act on {thing}"
    return None


def _refers(program: str) -> bool:
    return bool(_BY_VERB.search(program) or _FIRST_ACTION.match(program) or _CHANGED.match(program))


def _hoi(action: ActionSegment, view: Any) -> str:
    interval = view.by_id.get(action.id)
    return str(interval.value("hoi")[0]) if interval is not None else ""


def _order(direction: str) -> str:
    return {"forward": "first", "backward": "last"}.get(direction, "one")
