"""Indirect references (EgoTaskQA supplementary, Table 5), derived from the direct templates.

Where a template refers to an action directly — ``only(filter(hoi@{a}, video))``, said
"the person {a}" — an indirect variant refers to it through one step of temporal reasoning:

- first: ``iterate_until(forward, video)``, said "the first action";
- last: ``iterate_until(backward, video)``, "the last action";
- after: ``iterate_until(forward, localize(after, only(filter(hoi@{r}, video))))``,
  "the action right after {r:ing}";
- before: the same backward, "the action right before {r:ing}".

*after* and *before* are only used in templates that do no temporal reasoning of their own, so a
question never asks for "the action right before the action right after" something.

Texts keep their grammar by saying the reference with *do*: ``{a}`` becomes "does the first
action", ``{a:ing}`` "doing …", ``{a:base}`` "do …", ``{a:pp}`` "done …". Only one-step
references are made, as in the paper. Object references ("the object that changed first") are
asked by the teaching templates of ``indirect.yaml`` but not yet substituted into others.
"""

from __future__ import annotations

import re
from collections.abc import Iterator, Sequence

from taskqa.questions.template import ParamType, Template

REFERENCES: dict[str, tuple[str, str]] = {
    "first": ("iterate_until(forward, video)", "the first action"),
    "last": ("iterate_until(backward, video)", "the last action"),
    "after": (
        "iterate_until(forward, localize(after, only(filter(hoi@{ref}, video))))",
        "the action right after {ref:ing}",
    ),
    "before": (
        "iterate_until(backward, localize(before, only(filter(hoi@{ref}, video))))",
        "the action right before {ref:ing}",
    ),
}
DO = {None: "does", "ing": "doing", "base": "do", "pp": "done"}


def with_indirect(templates: Sequence[Template]) -> list[Template]:
    """The templates followed by every indirect variant they allow."""
    return [*templates, *(v for t in templates for v in indirect_variants(t))]


def indirect_variants(template: Template) -> Iterator[Template]:
    if template.reference != "direct":
        return
    for name, kind in template.params.items():
        direct = f"only(filter(hoi@{{{name}}}, video))"
        if kind is not ParamType.ACTION or template.program.count(direct) != 1:
            continue
        if template.program.count(f"{{{name}}}") != 1:
            continue  # the action is also used elsewhere; one substitution would not cover it
        fresh = _fresh_name(template)
        temporal = "localize(" in template.program or "iterate_until(" in template.program
        for reference, (program, phrase) in REFERENCES.items():
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


def _fresh_name(template: Template) -> str:
    index = 1
    while f"r{index}" in template.params:
        index += 1
    return f"r{index}"


def _say(text: str, name: str, phrase: str) -> str:
    pattern = re.compile(r"\{" + re.escape(name) + r"(?::(ing|base|pp))?\}")
    return pattern.sub(lambda m: f"{DO[m.group(1)]} {phrase}", text)
