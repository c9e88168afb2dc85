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

Where a template names an object ``{o}`` only through ``obj@{o}`` keys, variants refer to it as
"the only thing they changed" (when one shown action changes something), or "the first / last
thing they changed". The key then holds a nested program, ``obj@<query(change, obj$,
iterate_until(forward, filter(change, video)))>``, which the executor runs on the clip.

Only one-step references are made, as in the paper: a template gets either one action or one
object reference, never both.
"""

from __future__ import annotations

import re
from collections.abc import Iterator, Mapping, Sequence

from taskqa.questions.template import ParamType, Template

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
OBJECT_REFERENCES: dict[str, tuple[str, str]] = {
    "changed": (
        "query(change, obj$, only(filter(change, video)))",
        "the only thing they changed",
    ),
    "first-changed": (
        "query(change, obj$, iterate_until(forward, filter(change, video)))",
        "the first thing they changed",
    ),
    "last-changed": (
        "query(change, obj$, iterate_until(backward, filter(change, video)))",
        "the last thing they changed",
    ),
}
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
        for reference, (program, phrase) in references.items():
            yield template.model_copy(
                update={
                    "id": f"{template.id}/{reference}-{name}",
                    "program": template.program.replace(key, f"obj@<{program}>"),
                    "presupposes": template.presupposes
                    and template.presupposes.replace(key, f"obj@<{program}>"),
                    "texts": tuple(_name_object(text, name, phrase) for text in template.texts),
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


def _name_object(text: str, name: str, phrase: str) -> str:
    # "{o}'s {f}" cannot take a long phrase ("the first object ... in the video's openness")
    possessive = r"\{" + re.escape(name) + r"\}'s (\{[a-z]+[0-9]*\})"
    text = re.sub(possessive, rf"the \1 of {phrase}", text)
    return text.replace(f"{{{name}}}", phrase)


def _fresh_name(template: Template) -> str:
    index = 1
    while f"r{index}" in template.params:
        index += 1
    return f"r{index}"


def _say(text: str, name: str, phrase: str) -> str:
    pattern = re.compile(r"\{" + re.escape(name) + r"(?::(ing|base|pp|past|np))?\}")
    return pattern.sub(lambda m: f"{DO[m.group(1)]} {phrase}".lstrip(), text)
