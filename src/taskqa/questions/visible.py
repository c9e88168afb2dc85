"""What a viewer of the clip can see: the rules that keep a question off facts the frames do not
show, applied by generation after an instance has its answer.

A question rests on what the clip acts out. A review of the default build from its frame sheets
found every miss resting on something else:

- **tries**: at two frames a second a failed or partly done action looks like one done (a door
  that swings back, a pour that stops short), or its failure comes after the clip. A try is
  never an answer, never an action a question names, and a prediction never spans a next action
  that fails; a reference by verb is not asked where the clip also shows that verb only tried,
  and no question names a thing the clip shows a try on (a fridge door that swings a quarter
  open and falls back reads as opened and closed: "did the other person close the fridge?").
- **heat or dirt ahead**: no prediction asks how hot a thing will be: it rests on heating not yet
  seen (was the microwave switched on?), and viewers guessed such questions wrong most often;
  nor whether it will be clean: using a thing never dirties it in the world, but viewers
  expect a juicer just used to be dirty.
- **next step unforeseen**: a prediction of how a thing will stand after the next action is asked
  only where the clip points to that action (foreseen.py: it goes on with a step the clip shows
  started, or is the one step the task leaves ready); elsewhere blind viewers could only guess.
- **first / last of one**: "the first thing the person opened" is asked only where the clip
  shows them opening two things or more; with one, "first" is a riddle.
- **purposes**: a why-question's answer is a later action the clip shows done, not one after
  the clip ("why did they get the knife?" "to cut the tomato" when the cutting is never seen),
  and not merely putting down what was picked up ("why did they get the laptop?" "to put the
  laptop on the table" is the next move, not a reason; a review found such answers wrong or
  circular).
- **tasks**: a task is named (asked, or answered) only where the clip shows one of that task's
  own things, one no other task of the world uses ("making cereal" needs the cereal on screen,
  not just a bowl), the person does more than carry a thing or two for it (a doing, or three
  of its steps: a cloth carried to the counter is not yet wiping the table), and, where they
  work on two tasks in the clip, the step asked about is itself a doing (closing the fridge
  serves either).
- **references and attributes**: a thing referred to by what was done to it is asked about the
  attribute that doing is about ("will the last thing they turned on be on?", not "be open?").

Each rule returns the reason a question is dropped, counted by generation per reason.
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from functools import cache

from taskqa.causal.dependency import Link
from taskqa.causal.structure import Executability
from taskqa.model import ActionSegment, Recording
from taskqa.programs.clips import Clip as ProgramClip
from taskqa.programs.operators import AS_LEFT
from taskqa.programs.records import ClipView, Interval
from taskqa.questions.indirect import reference_attribute
from taskqa.questions.realize import parse_action_text
from taskqa.questions.template import ACTION_PARAMS, ParamType, Template
from taskqa.questions.words import unseen_at_end, words
from taskqa.simulation.domain import Domain
from taskqa.simulation.rules import AttributeIs, SetAttribute

TRY_ANSWER = "answer is an action only tried (a try does not show as one)"
TRY_NAMED = "names an action only tried (a try does not show as one)"
TRY_NEXT = "prediction across a next action that fails or is partly done"
HEAT_AHEAD = "prediction of how hot a thing will be"
CLEAN_AHEAD = "prediction of whether a thing will be clean"
NEXT_UNFORESEEN = "prediction of a state where the clip does not point to the next step"
TRY_OF_VERB = "reference by a verb the clip also shows only tried"
TRY_ON_THING = "names a thing the clip shows a failed try on"
ONE_CANDIDATE = "first or last of one thing"
PURPOSE_UNSEEN = "purpose after the clip"
PURPOSE_PUT_DOWN = "purpose only puts down what the action picked up"
PURPOSE_TAKES_BACK = "purpose only takes back what the action put down"
TWO_PURPOSES = "the action served two things the clip shows done"
TASK_UNSEEN = "task the clip does not show (its own things, what is done for it)"
OTHER_ATTRIBUTE = "thing referred to by a doing about another attribute"
DONE_BEFORE_CLIP = "a no to a doing the person did just before the clip"
USED_ON_THE_WAY = "a step before the answer handles what the removed action moved"
NOT_NEEDED = "why a thing was as an action found it, where the action does not need it so"
CHANGED_TWICE = "a route taken away from a thing the clip changes twice before the step"
RULE_ONLY = "a route taken away where only the world's rules say the step needs it"
SMALL_LIGHT = "how a clip shows a thing whose state shows only as a small light or lid"
REDONE = "why a thing was so, where the clip shows it given that state again while so"
FILL_OR_WASH = "prediction of how full a thing will be when next it is washed"
BLENDED_AHEAD = "prediction of a thing's shape when next it is blended"
# the scene state of a named thing: still-at-end, stopped-being, scene-state-verify
_SCENE_OF_NAMED = "filter(scene, obj@{o}"

DONE = "done"
# ``iterate_until(forward, filter(verb@open, video))``: the first/last doing of one verb
_FIRST_OF_VERB = re.compile(
    r"iterate_until\((?:forward|backward), filter\(verb@([^,()]+), video\)\)"
)
_FIRST_ACTION = re.compile(r"iterate_until\((?:forward|backward), filter\(video\)\)")
_VERB = re.compile(r"\bverb@([^,()\s]+)")
# ``exist(verb@open, obj@fridge, ...)``: did the person do this to that thing
_EXISTS_OF_VERB = re.compile(r"exist\(verb@([^,()\s]+), obj@([^,()\s<]+),")
# ``query(state, obj@..., type@after, ..., pred(video)))``: how a thing will be after the next
# step (``verify(...)``: whether it will be so)
_PREDICTED_STATE = re.compile(r"(?:query|verify)\(state, .*\bpred\(video\)")
_PLACEHOLDER = re.compile(r"\{([a-z]+[0-9]*)\}")


@dataclass(frozen=True)
class Clip:
    """What one clip shows, worked out once for all its candidate questions."""

    view: ClipView
    outcome_of: Mapping[str, str]
    tried: frozenset[str]  # action texts someone in the clip tried without doing
    # (verb, thing) of each thing whose last handling before the clip was the person's own:
    # "did the person need to open the fridge to get the milk?" is yes where they opened it
    # just before the clip, which the clip, opening on an open fridge, cannot show
    done_before: frozenset[tuple[str, str]] = frozenset()
    # whether the clip points to the person's next step (foreseen.py): a started step goes on,
    # or the task leaves one step ready
    next_foreseen: bool = True

    def done(self, interval_id: str) -> bool:
        return self.outcome_of.get(interval_id, DONE) == DONE


def _route_unfit(template: Template, values: Mapping[str, str], view: ClipView) -> str | None:
    """Why a route counterfactual ("ignoring anything anyone did to the cupboard before the
    person went to get the plate, ...") is not asked, if it is not:

    - ``RULE_ONLY``: the state taken away is not in english.yaml `undone` (no milk from a shut
      fridge, no water from a tap not running; a clean mug to pour into, or cheese unwrapped to
      cut, is the world's rule);
    - ``CHANGED_TWICE``: either person changes the thing's attribute more than once in the clip
      before the step. The words mean the cupboard as the clip began, while the program takes
      away only the changes that made it open: with the cupboard open at the start, shut by
      the other person and opened again, the two differ.
    """
    named = {kind: values[name] for name, kind in template.params.items()}
    if named.get(ParamType.VALUE) not in words().undone:
        return RULE_ONLY
    obj, attribute = named.get(ParamType.OBJECT), named.get(ParamType.ATTRIBUTE)
    steps = [i for i in view.observed if i.value("hoi")[:1] == (named.get(ParamType.ACTION),)]
    if obj is None or attribute is None or len(steps) != 1:
        return None
    changes = sum(
        1
        for i in (*view.observed, *view.others)
        if i.end <= steps[0].start
        for f in i.facts
        if f.kind == "change" and f.fields["obj"] == obj and f.fields["attribute"] == attribute
    )
    return CHANGED_TWICE if changes > 1 else None


def _asks_route(program: str) -> bool:
    """Whether a program asks how a thing came to be as an action found it: who left it so
    (``cause``) or whether the action could be done had nobody made it so
    (``counterfactual(undo, ...)``)."""
    if program.startswith("cause(") and f"type@{AS_LEFT}," in program:
        return False  # how the clip leaves a thing: no action is said to need it
    return program.startswith("cause(") or "counterfactual(undo," in program


def _ends_unseen(template: Template, values: Mapping[str, str]) -> bool:
    """Whether a question about how a thing stood (at the clip's end, or whether it stayed or
    stopped so) names a thing and value a frame shows only as a small light or lid (a kettle
    switched off, a milk carton's cap: english.yaml `caused.ended_unseen`)."""
    named = {kind: values[name] for name, kind in template.params.items()}
    obj, value = named.get(ParamType.OBJECT), named.get(ParamType.VALUE)
    return obj is not None and value is not None and unseen_at_end(obj, value)


def _redone(
    template: Template, values: Mapping[str, str], view: ClipView, domain: Domain | None
) -> bool:
    """Whether the clip shows someone do to the asked thing what makes it the asked value,
    while it already was so (a clean coffee table wiped, a clean floor mopped): "why was the
    coffee table clean at the end of the video?" is "it was already clean when the video began"
    by the states, but a viewer who saw the wiping says "the person had cleaned it" (two misses
    in issue 33's ninth viewer study)."""
    named = {kind: values[name] for name, kind in template.params.items()}
    obj, attribute, value = (
        named.get(ParamType.OBJECT),
        named.get(ParamType.ATTRIBUTE),
        named.get(ParamType.VALUE),
    )
    if domain is None or obj is None or attribute is None or value is None:
        return False
    for interval in (*view.observed, *view.others):
        schema = domain.schemas.get(next(iter(interval.value("verb")), ""))
        if schema is None:
            continue
        for effect in schema.effects:
            if (
                isinstance(effect, SetAttribute)
                and str(effect.attribute) == attribute
                and effect.value == value
                and obj in interval.value(effect.slot)
            ):
                return True
    return False


def _needed_so(template: Template, values: Mapping[str, str], domain: Domain) -> bool:
    """Whether the action a ``cause`` or route counterfactual names needs the thing in the state
    it asks about (its schema requires it of the thing's slot): "why was the fridge open when
    the person got the milk from it?" asks what let them, but "why was the soup can open when
    the person threw it away?" asks for a cause nothing in the clip turns on (most of the
    default world's candidates before this rule)."""
    named = {kind: values[name] for name, kind in template.params.items()}
    needed = (ParamType.ACTION, ParamType.OBJECT, ParamType.ATTRIBUTE, ParamType.VALUE)
    if any(kind not in named for kind in needed):
        return False
    action, obj, attribute, value = (named[kind] for kind in needed)
    said = parse_action_text(action)
    schema = domain.schemas.get(said.verb)
    slot = said.slot_of(obj)
    if schema is None or slot is None:
        return False
    return any(
        isinstance(c, AttributeIs)
        and c.slot == slot
        and str(c.attribute) == attribute
        and c.value == value
        and not c.negated
        for c in schema.requires
    )


def by_end(recording: Recording) -> list[ActionSegment]:
    """The recording's actions in the order they end (``done_before_clip`` reads them so)."""
    return sorted(recording.actions, key=lambda a: (a.end, a.start, a.id))


def done_before_clip(
    actions_by_end: Sequence[ActionSegment], clip: ProgramClip
) -> frozenset[tuple[str, str]]:
    """(verb, thing) for each thing whose last handling before ``clip`` began (by anyone) was an
    action of the clip's person (``Clip.done_before``); ``actions_by_end`` from ``by_end``.
    Taking a thing from it or putting one on it is no handling of a holder here: the person who
    turned on the stove and then put the pot on it did the turning on just before the clip (a
    strict review from the frames found the "no" to "did they need to turn on the stove?")."""
    last: dict[str, ActionSegment] = {}
    for action in actions_by_end:
        if action.end > clip.start:
            break
        for thing in action.slots.objects():
            if action.verb in _MOVES and thing not in action.slots.patient:
                continue
            last[thing] = action
    return frozenset((a.verb, thing) for thing, a in last.items() if a.agent == clip.agent)


def unseen(
    template: Template,
    values: Mapping[str, str],
    answer: str,
    clip: Clip,
    domain: Domain | None,
) -> str | None:
    """Why a question with these ``values`` and raw ``answer`` rests on what the clip does not
    show (None: it does not)."""
    program = _PLACEHOLDER.sub(lambda m: values.get(m.group(1), m.group(0)), template.program)
    view = clip.view
    if answer in clip.tried:
        return TRY_ANSWER
    if any(values[n] in clip.tried for n, kind in template.params.items() if kind in ACTION_PARAMS):
        return TRY_NAMED
    if "predictive" in template.types and not all(clip.done(i.id) for i in view.future):
        return TRY_NEXT
    if "predictive" in template.types and _asks_temperature(program, values):
        return HEAT_AHEAD
    if "predictive" in template.types and _asks_cleanliness(program, values):
        return CLEAN_AHEAD
    if _PREDICTED_STATE.match(program) and not clip.next_foreseen:
        return NEXT_UNFORESEEN
    if _PREDICTED_STATE.match(program) and (misread := _misread_next(program, values, view)):
        return misread
    if _names_a_tried_thing(template, values, clip):
        return TRY_ON_THING
    for verb in set(_VERB.findall(program)):
        shown = (*view.observed, *view.others)
        if any(i.value("verb") == (verb,) and not clip.done(i.id) for i in shown):
            return TRY_OF_VERB
    for verb in _FIRST_OF_VERB.findall(program):
        things = {
            p for i in view.observed if i.value("verb") == (verb,) for p in i.value("patient")
        }
        if len(things) < 2:
            return ONE_CANDIDATE
    if _FIRST_ACTION.search(program) and len(view.observed) < 2:
        return ONE_CANDIDATE
    done = _EXISTS_OF_VERB.match(program)
    if answer == "no" and done is not None and (done[1], done[2]) in clip.done_before:
        return DONE_BEFORE_CLIP
    if _asks_purpose(template):
        steps = _whose_steps(template, view)
        if answer not in {i.value("hoi")[0] for i in steps if clip.done(i.id)}:
            return PURPOSE_UNSEEN
        if _only_puts_down(answer, template, values):
            return PURPOSE_PUT_DOWN
        if _takes_back(answer, template, values):
            return PURPOSE_TAKES_BACK
        if _two_purposes(template, values, answer, view):
            return TWO_PURPOSES
    if _asks_route(program) and (domain is None or not _needed_so(template, values, domain)):
        return NOT_NEEDED  # annotations without schemas cannot say what an action needs
    if (
        program.startswith("cause(")
        and answer == "start"
        and _redone(template, values, view, domain)
    ):
        return REDONE
    if "counterfactual(undo," in program and (route := _route_unfit(template, values, view)):
        return route
    asks_standing = f"type@{AS_LEFT}," in template.program or _SCENE_OF_NAMED in template.program
    if asks_standing and _ends_unseen(template, values):
        # whether such a thing stood so, stayed so or stopped being so is asked no more than
        # why it ended so: in blind studies from the frames viewers missed "was the milk
        # opened at some point?" and "was the cereal box closed at the end, as at the start?"
        # (issue 33's seventh part)
        return SMALL_LIGHT
    if "executable@no" in template.program and _used_on_the_way(template, values, answer, view):
        return USED_ON_THE_WAY
    if ("task$" in program or "task@" in template.program) and domain is not None:
        # "which task was the person working on when they opened the fridge?", "was the person
        # making coffee when ...?": a viewer answers only where the clip shows the task the
        # action served
        asked = {values[n] for n, kind in template.params.items() if kind is ParamType.ACTION}
        acts = [i for i in view.observed if i.value("hoi")[0] in asked]
        actor = view.observed
        if "filter(others" in template.program:  # the other person's step meanwhile
            actor = view.others
            acts = [o for o in actor for i in acts if o.start < i.end and i.start < o.end]
        served = {t for i in acts for t in i.value("task")}
        if len(served) != 1 or not _task_shown(actor, served.pop(), acts, domain):
            return TASK_UNSEEN
    about = reference_attribute(template.id)
    if about is not None and any(
        values[n] != about for n, kind in template.params.items() if kind is ParamType.ATTRIBUTE
    ):
        return OTHER_ATTRIBUTE
    return None


# moving a thing or opening its holder serves any task; a viewer tells the task by what is done
_HANDLING = frozenset({"get", "put", "open", "close"})
_MOVES = frozenset({"get", "put"})  # they change where a thing is, not the holder's state


def _task_shown(
    shown: Sequence[Interval], task: str, asked: Sequence[Interval], domain: Domain
) -> bool:
    """Whether a viewer of the clip can name ``task`` as what the ``asked`` step served, from
    the ``shown`` steps of whoever took it: those steps handle a thing of that task alone; they
    do something for it beyond carrying a thing or two (a doing, or three steps of it: a cloth
    taken and put on the counter is not yet wiping the table, but bread, ham and cheese fetched
    is a sandwich under way); and where they work on another task in the clip too, the asked
    step is itself a doing (closing the fridge between a juice and a sandwich serves either, as
    far as a viewer can tell). Two reviews from the frames found each of these unseen."""
    shown_things = {o for i in shown for o in i.value("obj")}
    if not own_things(domain).get(task, frozenset()) & shown_things:
        return False
    steps = [i for i in shown if task in i.value("task")]
    if len(steps) < 3 and all(i.value("verb")[0] in _HANDLING for i in steps):
        return False
    other_tasks = {t for i in shown for t in i.value("task")} - {task}
    return not other_tasks or all(i.value("verb")[0] not in _HANDLING for i in asked)


def _only_puts_down(answer: str, template: Template, values: Mapping[str, str]) -> bool:
    """The purpose is putting down a thing the asked action picked up or moved ("why did they
    get the laptop?" "to put the laptop on the table"): the next move, not a reason a viewer
    would give, and circular where the thing goes back where it was."""
    said = parse_action_text(answer)
    if said.verb != "put":
        return False
    named = {
        o
        for name, kind in template.params.items()
        if kind in ACTION_PARAMS
        for o in parse_action_text(values[name]).objects()
    }
    moved = {o for o in said.objects() if said.slot_of(o) == "patient"}
    return bool(moved & named)


def _takes_back(answer: str, template: Template, values: Mapping[str, str]) -> bool:
    """The purpose is getting back the thing the asked action put down ("why did they put the
    pan on the counter?" "to get the pan from the counter"): the replay needs the pan there to
    take it from there, but a viewer would not call taking it back the reason for putting it."""
    said = parse_action_text(answer)
    if said.verb != "get":
        return False
    put = [
        parse_action_text(values[name])
        for name, kind in template.params.items()
        if kind in ACTION_PARAMS
    ]
    taken = {o for o in said.objects() if said.slot_of(o) == "patient"}
    return any(
        p.verb == "put" and taken & {o for o in p.objects() if p.slot_of(o) == "patient"}
        for p in put
    )


def _two_purposes(
    template: Template, values: Mapping[str, str], answer: str, view: ClipView
) -> bool:
    """Whether the removed action also made possible a second step the clip shows, on another
    thing and not by way of the purpose: "why did the person open the cupboard?" where they took
    the cereal box and then a bowl from it is "to get the cereal box and a bowl" to a viewer, and
    the first of the two alone is half an answer. Closing or switching off the very thing the
    action opened or switched on, and the steps that follow from the purpose (pouring the cereal
    it fetched), are no second purpose."""
    gone = _removed_step(template, values, view)
    if gone is None:
        return False
    steps = _whose_steps(template, view)
    served = [i for i in steps if i.value("hoi")[0] == answer and i.start >= gone.end]
    if not served:
        return False
    purpose = min(served, key=lambda i: (i.start, i.end))
    verdict = view.structure.counterfactual([gone.id])
    handled = set(gone.value("patient")) | set(purpose.value("patient"))
    return any(
        i.start >= gone.end
        and i.id != purpose.id
        and verdict.get(i.id) is Executability.NO
        and not handled & set(i.value("patient"))
        and view.structure.link(purpose.id, i.id) is not Link.DEPENDENT
        for i in steps
    )


def _removed_step(template: Template, values: Mapping[str, str], view: ClipView) -> Interval | None:
    """The one step that a counterfactual's removal names, among the person's steps
    (``counterfactual(hoi@{a}, video)``) or the other person's; None where the program removes
    none or the words name more than one. Looking among both people's steps lost the step
    where the other person did the same ("get the yellow bowl from the counter"), and with it
    the checks that rest on it (issue 33: a first-impossible question skipped the washing of
    the bowl on the way)."""
    match = _REMOVED.search(template.program)
    if match is None:
        return None
    own = template.program[match.end() :].startswith(", video)")
    removed = [
        i
        for i in (view.observed if own else view.others)
        if i.value("hoi")[0] == values[match.group(1)]
    ]
    return removed[0] if len(removed) == 1 else None


def _whose_steps(template: Template, view: ClipView) -> tuple[Interval, ...]:
    """The steps a purpose is one of: the person's, or the other person's where the question
    asks why they did something (a counterfactual over ``other_video``)."""
    return view.others if "other_video)" in template.program else view.observed


def _names_a_tried_thing(template: Template, values: Mapping[str, str], clip: Clip) -> bool:
    """The question names a thing the clip shows someone try and fail at (a fridge door that
    swings a quarter open and falls back reads as opened and closed again; a pour that stops
    short leaves the can full): whatever it asks of that thing, a viewer may read the try as
    something else."""
    view = clip.view
    tried = {
        thing
        for i in (*view.observed, *view.others)
        if not clip.done(i.id)
        for thing in _acted_on(i.value("hoi")[0])
    }
    if not tried:
        return False
    named: set[str] = set()
    for name, kind in template.params.items():
        if kind in ACTION_PARAMS:
            named.update(parse_action_text(values[name]).objects())
        elif kind is ParamType.OBJECT:
            named.add(values[name])
    return bool(named & tried)


def _asks(attribute: str, program: str, values: Mapping[str, str]) -> bool:
    """Whether the question asks the thing's ``attribute`` (named in its program or bound)."""
    return f"attribute@{attribute}" in program or attribute in values.values()


def _asks_cleanliness(program: str, values: Mapping[str, str]) -> bool:
    """Whether the question asks whether something is or will be clean. In the world only
    washing and wiping change it (using a juicer or a bowl leaves it clean), while a viewer
    expects a thing just used for food to be dirty: viewers missed "will the juicer be clean or
    dirty after the person's next action?" (issue 33's eighth part) and "will the last thing
    they took be clean or dirty after the next action?" (its seventh)."""
    return _asks("cleanliness", program, values)


# (attribute, the next action's verb) -> why a prediction of it is not asked: a viewer reads
# that action otherwise than the world does. Held under the running tap, a pot being washed
# looks like one being filled (viewers predicted "full", issue 33's eighth and ninth studies);
# the world calls blended fruit "liquid", while a viewer who sees the orange halves go into
# the juicer says they will be cut (its ninth)
_MISREAD_NEXT = {("emptiness", "wash"): FILL_OR_WASH, ("shape", "blend"): BLENDED_AHEAD}


def _misread_next(program: str, values: Mapping[str, str], view: ClipView) -> str | None:
    """Why a prediction of a state is not asked given the person's next action (None: it may
    be), from ``_MISREAD_NEXT``."""
    upcoming = {verb for i in view.future[:1] for verb in i.value("verb")}
    for (attribute, verb), reason in _MISREAD_NEXT.items():
        if verb in upcoming and _asks(attribute, program, values):
            return reason
    return None


def _asks_temperature(program: str, values: Mapping[str, str]) -> bool:
    """Whether the question asks how hot something is or will be. A prediction of it rests on
    heating nobody sees yet (whether the microwave was ever switched on, how long a kettle takes):
    three of the twelve questions viewers missed in two studies were such guesses."""
    return _asks("temperature", program, values)


def _acted_on(action: str) -> tuple[str, ...]:
    """The things an action works on, not the tool it uses: a partial pour leaves both the can
    it pours from and the pot it pours into in a state the frames do not settle."""
    said = parse_action_text(action)
    return tuple(o for o in said.objects() if said.slot_of(o) != "instrument")


_REMOVED = re.compile(r"counterfactual\(hoi@\{([a-z]+[0-9]*)\}")


def _used_on_the_way(
    template: Template, values: Mapping[str, str], answer: str, view: ClipView
) -> bool:
    """Whether a step between the removed action and the answer (what it made possible, or
    served) handles the thing the removed action moved: "if the person had not got the watering
    can, what could they first not have done?" is watering the plant to a viewer, whatever the
    schemas say (this world's pour needs no can in hand, so the replay answered "put the can on
    the shelf"; a strict review from the frames found it wrong)."""
    gone = _removed_step(template, values, view)
    if gone is None:
        return False
    start, moved = gone.end, set(gone.value("patient"))
    steps = _whose_steps(template, view)
    answered = [i.start for i in steps if i.value("hoi")[0] == answer and i.start >= start]
    if not moved or not answered:
        return False
    return any(
        start <= i.start and i.end <= min(answered) and moved & set(i.value("obj")) for i in steps
    )


def _asks_purpose(template: Template) -> bool:
    """A why-question answered by a later action: the purpose it served, or what an action made
    possible ("what could the person do because the other person opened the fridge?")."""
    return template.answer_form == "to" or (
        "explanatory" in template.types
        and template.program.startswith("query(hoi$")
        and ("intent" in template.scopes or "executable@no" in template.program)
    )


def own_things(domain: Domain) -> dict[str, frozenset[str]]:
    """Each task's own things: the objects its steps name (roles expanded) that no other task
    of the world names."""
    return _own_things(domain)


@cache
def _own_things(domain: Domain) -> dict[str, frozenset[str]]:
    named: dict[str, set[str]] = {}
    for task, spec in domain.spec.tasks.items():
        things: set[str] = set()
        for step in spec.steps.values():
            for action in step.actions:
                for name in re.findall(r"\[([^\]]+)\]", action):
                    things.update(spec.roles.get(name, [name]))
        named[task] = things
    return {
        task: frozenset(t for t in things if sum(t in other for other in named.values()) == 1)
        for task, things in named.items()
    }
