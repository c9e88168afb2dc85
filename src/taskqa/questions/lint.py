"""Checks on question templates beyond what loading them validates.

``load_templates`` already rejects YAML that does not fit the ``Template`` model or whose program
does not parse. ``lint_templates`` checks that each template is *consistent*: its program, params
and texts agree, its tags match its program, and its program is one the executor answers the way
the template means. Each problem names the template id as its file and a location such as
``.texts[1]``, ``.program`` or ``.params.fv``.

See docs/templates.md for the rules and the reasons behind them.
"""

from __future__ import annotations

import re
from collections.abc import Iterator, Sequence

from taskqa.problems import Location, Problem
from taskqa.programs import FUNCTIONS, Program, ProgramSyntaxError, parse_program
from taskqa.programs.operators import BINARY_ROOTS, ROOTS
from taskqa.programs.syntax import PLACEHOLDER
from taskqa.questions.realize import ATTRIBUTE_FORMS, FORMS, VALUE_FORMS
from taskqa.questions.template import ACTION_PARAMS, ParamType, Template

# The roots a program may end in, and those (a yes/no answer) whose template is ``verify``:
# declared with each operator (``programs.operators``)
VERIFY_ROOTS = BINARY_ROOTS


KEYS: dict[ParamType, tuple[str, ...]] = {
    ParamType.ACTION: ("hoi",),
    ParamType.OTHER_ACTION: ("hoi",),
    ParamType.FUTURE_ACTION: ("hoi",),
    ParamType.ANY_ACTION: ("hoi",),
    ParamType.CLIP_ACTION: ("hoi",),
    ParamType.OBJECT: ("obj", "source", "destination", "instrument", "subject", "object"),
    ParamType.ATTRIBUTE: ("attribute",),
    ParamType.VALUE: ("value", "before", "after"),
    ParamType.MOMENT: ("type",),
    ParamType.VERB: ("verb",),
    ParamType.TASK: ("task",),
}
"""The condition keys a parameter of each type may fill in a program: ``hoi@{a}``, ``obj@{o}``."""

_TEXT_SLOT = re.compile(r"\{([^{}]*)\}")
_TEXT_SLOT_BODY = re.compile(r"([a-z]+[0-9]*)(?::([a-z]+))?")
_UNKNOWN_FUNCTION = re.compile(r"unknown function '([^']*)'")


def lint_templates(templates: Sequence[Template]) -> list[Problem]:
    """Every problem found in ``templates``, in template order; empty when all is well."""
    problems: list[Problem] = []
    seen: set[str] = set()
    for template in templates:
        if template.id in seen:
            problems.append(
                Problem.at(template.id, ["id"], "template id repeats; ids must be unique")
            )
        seen.add(template.id)
        problems += lint_template(template)
    return problems


def lint_template(template: Template) -> list[Problem]:
    """The problems of one template (not counting a repeated id)."""

    def problem(location: Location, message: str) -> Problem:
        return Problem.at(template.id, location, message)

    problems = [problem(location, message) for location, message in _params(template)]
    problems += [problem(location, message) for location, message in _texts(template)]
    try:
        program = parse_program(template.program)
    except ProgramSyntaxError as error:
        problems.append(problem(["program"], _syntax_message(error)))
        return problems
    problems += [problem(location, message) for location, message in _program(template, program)]
    problems += [problem(location, message) for location, message in _presupposition(template)]
    return problems


def _presupposition(template: Template) -> Iterator[tuple[Location, str]]:
    if template.presupposes is None:
        return
    try:
        program = parse_program(template.presupposes)
    except ProgramSyntaxError as error:
        yield ["presupposes"], _syntax_message(error)
        return
    if program.nodes[-1].function not in VERIFY_ROOTS:
        yield ["presupposes"], "a presupposition must be a yes/no program (verify or depend)"
    for name in program.placeholders():
        if name not in template.params:
            yield ["presupposes"], f"placeholder {{{name}}} is not declared in params"


# --- parameters -----------------------------------------------------------------------------
def _params(template: Template) -> Iterator[tuple[Location, str]]:
    attributes = [n for n, t in template.params.items() if t is ParamType.ATTRIBUTE]
    for name, kind in template.params.items():
        if kind is ParamType.VALUE and len(attributes) != 1:
            yield (
                ["params", name],
                f"a value parameter needs exactly one attribute parameter (found "
                f"{len(attributes)})",
            )


# --- texts -----------------------------------------------------------------------------------
def _texts(template: Template) -> Iterator[tuple[Location, str]]:
    declared = template.params
    for name in template.unsaid:
        if name not in declared:
            yield ["unsaid"], f"{{{name}}} is not declared in params"
    for index, text in enumerate(template.texts):
        location: Location = ["texts", index]
        if not text.rstrip().endswith("?"):
            yield location, "a question text should end with '?'"
        if _TEXT_SLOT.sub("", text).count("{") or _TEXT_SLOT.sub("", text).count("}"):
            yield location, "unbalanced brace; placeholders are written {name} or {name:form}"
        used: list[str] = []
        for match in _TEXT_SLOT.finditer(text):
            body = _TEXT_SLOT_BODY.fullmatch(match.group(1))
            if body is None:
                yield location, f"malformed placeholder {match.group(0)}"
                continue
            name, form = body.group(1), body.group(2)
            used.append(name)
            if name not in declared:
                yield location, f"{{{name}}} is not a declared parameter"
                continue
            if form is None:
                continue
            if declared[name] is ParamType.ATTRIBUTE and form in ATTRIBUTE_FORMS:
                continue
            if declared[name] in (ParamType.VALUE, ParamType.VERB) and form in VALUE_FORMS:
                continue  # "the first thing the person opened" (english.yaml `made`, `done_to`)
            if form not in FORMS:
                yield (
                    location,
                    f"unknown form {match.group(0)}; forms are "
                    + ", ".join(FORMS)
                    + " for actions, "
                    + ", ".join(ATTRIBUTE_FORMS)
                    + " for attributes, "
                    + ", ".join(VALUE_FORMS)
                    + " for values",
                )
            elif declared[name] not in ACTION_PARAMS:
                yield (
                    location,
                    f"{match.group(0)}: forms apply only to action parameters, "
                    f"{{{name}}} is {declared[name].value}",
                )
        says_value = any(declared.get(name) is ParamType.VALUE for name in used)
        for name, kind in declared.items():
            # a value names its attribute ("was the fridge open"): {f} need not be said then
            if name in template.unsaid:
                continue
            if name not in used and not (kind is ParamType.ATTRIBUTE and says_value):
                yield location, f"the text does not mention {{{name}}}"
        yield from ((location, m) for m in _agreement(text, declared))


_PAST_QUESTION = re.compile(r"\b(did|was|were|had)\b", re.IGNORECASE)
_THEY_BASE = re.compile(r"\bthey \{([a-z]+[0-9]*)(?::base)?\}")


def _agreement(text: str, declared: dict[str, ParamType]) -> Iterator[str]:
    """Tense and agreement a realizer cannot fix (docs/templates.md, text forms)."""
    present = [
        m.group(0)
        for m in _TEXT_SLOT.finditer(text)
        if m.group(1) in declared and declared[m.group(1)] in ACTION_PARAMS
    ]
    if _PAST_QUESTION.search(text) and any(":" not in slot for slot in present):
        yield "a question in the past names an action in the present; use {name:past}"
    for match in _THEY_BASE.finditer(text):
        if declared.get(match.group(1)) in ACTION_PARAMS:
            yield (
                f"'they {match.group(0)[5:]}' breaks agreement where 'they' becomes 'the "
                "person' (two people); use a past or modal form"
            )


# --- program ---------------------------------------------------------------------------------
def _syntax_message(error: ProgramSyntaxError) -> str:
    unknown = _UNKNOWN_FUNCTION.match(error.reason)
    if unknown:
        return (
            f"unknown function {unknown.group(1)!r}; templates use only the operators ("
            + ", ".join(sorted(FUNCTIONS))
            + ")"
        )
    return f"the program does not parse: {error}"


def _program(template: Template, program: Program) -> Iterator[tuple[Location, str]]:
    functions = {node.function for node in program.nodes}
    root = program.nodes[-1].function
    if root not in ROOTS:
        yield (
            ["program"],
            f"the program ends in {root}, which gives no answer; end it in " + ", ".join(ROOTS),
        )
    elif (root in VERIFY_ROOTS) != (template.structural == "verify"):
        wanted = "verify" if root in VERIFY_ROOTS else "query"
        yield (
            ["structural"],
            f"structural is {template.structural} but a {root} program is a {wanted} question",
        )

    placeholders = program.placeholders()
    for name in placeholders:
        if name not in template.params:
            yield ["program"], f"placeholder {{{name}}} is not declared in params"
    for name in template.params:
        if name not in placeholders:
            yield ["params", name], f"parameter {name} is not used in the program"

    yield from _slot_keys(template, program)

    types = set(template.types)
    future = [n for n, t in template.params.items() if t is ParamType.FUTURE_ACTION]
    if ("pred" in functions or future) and "predictive" not in types:
        reason = "pred" if "pred" in functions else f"the future_action parameter {future[0]}"
        yield ["types"], f"the program uses {reason}, so types must include predictive"
    if "counterfactual" in functions and "counterfactual" not in types:
        yield ["types"], "the program uses counterfactual, so types must include counterfactual"
    if "depend" in functions and "explanatory" not in types:
        yield ["types"], "the program uses depend, so types must include explanatory"


def _slot_keys(template: Template, program: Program) -> Iterator[tuple[Location, str]]:
    """Each placeholder fills the value of a condition whose key suits its type."""
    for token in _tokens(program):
        names = PLACEHOLDER.findall(token)
        if not names:
            continue
        key, at, value = token.partition("@")
        for name in names:
            kind = template.params.get(name)
            if kind is None:
                continue  # reported as undeclared
            keys = KEYS[kind]
            if not at or value != f"{{{name}}}" or key not in keys:
                article = "an" if kind.value[0] in "aeiou" else "a"
                yield (
                    ["program"],
                    f"{token}: {article} {kind.value} parameter is compared as "
                    + " or ".join(f"{k}@{{{name}}}" for k in keys),
                )


def _tokens(program: Program) -> Iterator[str]:
    for node in program.nodes:
        yield from _node_tokens(node.arguments)


def _node_tokens(arguments: Sequence[str | tuple[str, ...]]) -> Iterator[str]:
    for argument in arguments:
        yield from (argument,) if isinstance(argument, str) else argument
