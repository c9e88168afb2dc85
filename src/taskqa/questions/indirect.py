"""Indirect references (EgoTaskQA supplementary, Table 5), derived from the direct templates.

Where a template refers to an action directly — ``only(filter(hoi@{a}, video))``, said
"the person {a}" — an indirect variant refers to it through one step of temporal reasoning:

- first: ``iterate_until(forward, video)``, said "the first action";
- last: ``iterate_until(backward, video)``, "the last action";
- after / before (``NESTED_REFERENCES``, not made by default): ``iterate_until(forward,
  localize(after, only(filter(hoi@{r}, video))))``, "the action right after {r:ing}".

Texts keep their grammar by saying the reference with *do*: ``{a}`` becomes "does the first
action", ``{a:past}`` "did …", ``{a:ing}`` "doing …", ``{a:base}`` "do …", ``{a:pp}`` "done …";
``{a:np}`` is the reference alone ("what task was the first action part of?").

Where a template names an object ``{o}`` only through ``obj@{o}`` keys (and no action), variants
refer to it by what was done to it: "the first / last thing they opened" (turned on, filled,
cut, washed). The key then holds a nested program, ``obj@<query(patient$, iterate_until(forward,
filter(verb@open, video)))>``, which the executor runs on the clip: the thing the first opening
shown was done to.

Only one-step references are made, as in the paper: a template gets either one action or one
object reference, never both.
"""

from __future__ import annotations

import re
from collections.abc import Iterator, Mapping, Sequence

from taskqa.questions.template import ACTION_PARAMS, ParamType, Template

# A review from the clips' frames found every question that said "did the first / last action"
# in place of an action not ok (a meta-reference a viewer must resolve, in words no one uses):
# by default no direct template refers to an action indirectly, and the indirect action
# questions are the templates written as such (indirect.yaml: "what did the person do
# first?"). Objects are referred to as "the first / last / only thing they changed" (below);
# pass ``ACTION_REFERENCES`` or ``NESTED_REFERENCES`` to ``with_indirect`` for the others.
REFERENCES: dict[str, tuple[str, str]] = {}
ACTION_REFERENCES: dict[str, tuple[str, str]] = {
    "first": ("iterate_until(forward, video)", "the first action"),
    "last": ("iterate_until(backward, video)", "the last action"),
}
# "the action right after/before {r}" (Table 5's other two) are not made by default: a viewer
# has to find {r}, then count one step, and a review found such references the most common
# reason a question read as vague. They stay available for a template set that wants them.
NESTED_REFERENCES: dict[str, tuple[str, str]] = {
    "after": (
        "iterate_until(forward, localize(after, only(filter(hoi@{ref}, video))))",
        "the action right after {ref:ing}",
    ),
    "before": (
        "iterate_until(backward, localize(before, only(filter(hoi@{ref}, video))))",
        "the action right before {ref:ing}",
    ),
}
DO = {None: "does", "ing": "doing", "base": "do", "pp": "done", "past": "did", "np": ""}
# "they" (the person), not "in the video": the nested program reads the person's own actions
# only, and in a two-person clip the other person's changes would give the words a second
# reading; where the question names the other person too, "they" is said "the person".
#
# The reference says what was done to the thing ("the last thing they opened"): a review from the
# frames found "the last thing they changed" vague, since a viewer cannot tell whether moving or
# picking up a thing counts as changing it. It resolves over the actions shown, by verb and the
# thing acted on (``patient``), not over the state log: eating an egg halves it in the log, and
# a frames review found "the first thing the person cut" answered "the egg" where nothing was cut.
# Each reference names the attribute its verb is about: a question on another attribute of the
# thing ("will the last thing they turned on be open or closed?") reads as a riddle, and is not
# asked (``reference_attribute``, questions/generate.py).
# (a thing taken is about no one attribute: any may be asked of it)
_DONE: dict[str, tuple[str, str | None]] = {
    "opened": ("open", "openness"), "closed": ("close", "openness"),
    "turned on": ("turn-on", "poweredness"), "turned off": ("turn-off", "poweredness"),
    "filled": ("fill", "emptiness"), "cut": ("cut", "shape"),
    "washed": ("wash", "cleanliness"), "took": ("get", None)}  # fmt: skip
# "First" and "last" are asked only where the clip shows the doing to two things or more
# (questions/visible.py); where it shows one doing, the thing is "the thing they opened".
_ORDERS = {
    "first": ("the first thing", "iterate_until(forward, {})"),
    "last": ("the last thing", "iterate_until(backward, {})"),
    "only": ("the thing", "only({})"),
}
OBJECT_REFERENCES: dict[str, tuple[str, str]] = {
    f"{order}-{said.replace(' ', '-')}": (
        f"query(patient$, {pick.format(f'filter(verb@{verb}, video)')})",
        f"{thing} they {said}",
    )
    for said, (verb, _) in _DONE.items()
    for order, (thing, pick) in _ORDERS.items()
}
_REFERENCE_ATTRIBUTES = {
    f"{order}-{said.replace(' ', '-')}": attribute
    for said, (_, attribute) in _DONE.items()
    if attribute is not None
    for order in _ORDERS
}


def reference_attribute(template_id: str) -> str | None:
    """The attribute an object-reference variant's verb is about (``…/last-turned-on-o``:
    ``poweredness``), or None for a template that is no such variant."""
    variant = template_id.rpartition("/")[2]
    reference = variant.rpartition("-")[0]
    return _REFERENCE_ATTRIBUTES.get(reference)


THING_REFERENCES = OBJECT_REFERENCES


References = Mapping[str, tuple[str, str]]


def with_indirect(
    templates: Sequence[Template],
    actions: References = REFERENCES,
    objects: References = OBJECT_REFERENCES,
) -> list[Template]:
    """The templates followed by every indirect variant they allow with the given references
    (none by default; ``ACTION_REFERENCES``, ``NESTED_REFERENCES``, ``THING_REFERENCES``)."""
    return [*templates, *(v for t in templates for v in indirect_variants(t, actions, objects))]


def indirect_variants(
    template: Template,
    actions: References = REFERENCES,
    objects: References = OBJECT_REFERENCES,
) -> Iterator[Template]:
    if template.reference != "direct":
        return
    yield from _action_variants(template, actions)
    yield from _object_variants(template, objects)


def _object_variants(template: Template, references: References) -> Iterator[Template]:
    for name, kind in template.params.items():
        key = f"obj@{{{name}}}"
        if kind is not ParamType.OBJECT:
            continue
        if template.program.count(key) != template.program.count(f"{{{name}}}"):
            continue  # the object is used other than as a key value
        if f"filter(change, {key}" in template.program:
            continue  # "which action changed the last thing they changed" would be circular
        if "explanatory" in template.types:
            # "why did the person change whether the first thing they opened was open?"
            # answers itself: the reference already says what was done and so why it was
            continue
        if any(kind in ACTION_PARAMS for kind in template.params.values()):
            # "after the person got the milk, what did they do with the last thing they
            # changed?": the reference and the action are two steps (the paper makes one),
            # and a review from the frames found every such question vague
            continue
        for reference, (program, phrase) in references.items():
            if template.object_references == "taken" and reference_attribute(
                f"{template.id}/{reference}-{name}"
            ):
                continue
            texts = [_name_object(text, name, phrase) for text in template.texts]
            said = tuple(text for text in texts if text is not None)
            if not said:
                continue
            yield template.model_copy(
                update={
                    "id": f"{template.id}/{reference}-{name}",
                    "program": template.program.replace(key, f"obj@<{program}>"),
                    "presupposes": template.presupposes
                    and template.presupposes.replace(key, f"obj@<{program}>"),
                    "texts": said,
                    "params": {k: v for k, v in template.params.items() if k != name},
                    "reference": "indirect",
                }
            )


def _action_variants(template: Template, references: References) -> Iterator[Template]:
    for name, kind in template.params.items():
        direct = f"only(filter(hoi@{{{name}}}, video))"
        if kind is not ParamType.ACTION or template.program.count(direct) != 1:
            continue
        if template.program.count(f"{{{name}}}") != 1 or f"{{{name}}}" in (
            template.presupposes or ""
        ):
            continue  # the action is also used elsewhere; one substitution would not cover it
        fresh = _fresh_name(template)
        temporal = "localize(" in template.program or "iterate_until(" in template.program
        for reference, (program, phrase) in references.items():
            if temporal and reference in ("after", "before"):
                continue
            program = program.replace("{ref}", f"{{{fresh}}}")
            phrase = phrase.replace("{ref", f"{{{fresh}")
            params = {k: v for k, v in template.params.items() if k != name}
            if "{" + fresh in program:
                params[fresh] = ParamType.ACTION
            yield template.model_copy(
                update={
                    "id": f"{template.id}/{reference}-{name}",
                    "program": template.program.replace(direct, program),
                    "texts": tuple(_say(text, name, phrase) for text in template.texts),
                    "params": params,
                    "reference": "indirect",
                }
            )


def _name_object(text: str, name: str, phrase: str) -> str | None:
    """``text`` with the object slot said as ``phrase`` ("the last thing they changed"); None
    where that would put "they" before the person it stands for and the person is then named
    as a subject ("what about the last thing they changed will the person do?")."""
    # "{o}'s {f}" cannot take a long phrase ("the first object ... in the video's openness")
    possessive = r"\{" + re.escape(name) + r"\}'s (\{[a-z]+[0-9]*\})"
    text = re.sub(possessive, rf"the \1 of {phrase}", text)
    slot = text.find(f"{{{name}}}")
    person = _PERSON.search(text)
    if slot < 0 or person is None or person.start() < slot:
        return text.replace(f"{{{name}}}", phrase)
    # the reference comes first: it names the person, and the later mention becomes "their"
    if not person.group(0).endswith("'s"):
        return None
    named = phrase.replace("they", "the person")
    text = text[: person.start()] + "their" + text[person.end() :]
    return text.replace(f"{{{name}}}", named)


_PERSON = re.compile(r"\bthe person(?:'s)?(?! \{)", re.IGNORECASE)


def _fresh_name(template: Template) -> str:
    index = 1
    while f"r{index}" in template.params:
        index += 1
    return f"r{index}"


def _say(text: str, name: str, phrase: str) -> str:
    pattern = re.compile(r"\{" + re.escape(name) + r"(?::(ing|base|pp|past|np))?\}")
    return pattern.sub(lambda m: f"{DO[m.group(1)]} {phrase}".lstrip(), text)
