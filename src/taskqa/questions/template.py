"""Question templates as data: text variants, a program with typed placeholders, and tags.

A template file is a YAML list of templates (see ``templates/*.yaml`` and
docs/templates.md). Placeholders are written ``{name}`` in the program and ``{name}`` or
``{name:form}`` in the texts; each is declared in ``params`` with one of the types below.
"""

from __future__ import annotations

import hashlib
from enum import StrEnum
from importlib import resources
from pathlib import Path
from typing import Any, Literal

import yaml
from pydantic import BaseModel, ConfigDict, Field, ValidationError

from taskqa.problems import InvalidInputError, Problem, problems_from_validation_error
from taskqa.programs import Program, ProgramSyntaxError, parse_program


class ParamType(StrEnum):
    ACTION = "action"  # one of the person's actions in the clip (program value: hoi text)
    OTHER_ACTION = "other_action"  # one of the other person's overlapping actions
    FUTURE_ACTION = "future_action"  # one of the person's next actions, not shown
    ANY_ACTION = "any_action"  # the person's shown or future actions
    CLIP_ACTION = "clip_action"  # either person's actions in the clip, or the person's next ones
    OBJECT = "object"  # an object involved in the clip's actions
    ATTRIBUTE = "attribute"  # an attribute name: openness, emptiness, ...
    VALUE = "value"  # an attribute value; pairs with the template's attribute parameter
    MOMENT = "moment"  # before / after
    # a verb of the clip's actions (either person's, or the person's next) that names what was
    # done to a thing ("the first thing the person opened"): references resolve over the actions
    # a viewer sees acted out, not over the state log
    VERB = "verb"
    # a task label of either person's actions in the clip or the person's next ones ("making
    # coffee"): a yes/no about which task an action served names the other person's task too
    TASK = "task"


ACTION_PARAMS = frozenset(
    {
        ParamType.ACTION,
        ParamType.OTHER_ACTION,
        ParamType.FUTURE_ACTION,
        ParamType.ANY_ACTION,
        ParamType.CLIP_ACTION,
    }
)
"""Parameter types whose values are actions: texts inflect them, programs match them by hoi."""

Type = Literal["descriptive", "predictive", "counterfactual", "explanatory"]
Scope = Literal["world", "intent", "multi-agent"]
Semantic = Literal["action", "object", "state", "change"]
Structural = Literal["query", "verify"]


class Template(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)

    id: str = Field(pattern=r"^[a-z0-9-]+(/[a-z0-9-]+)*$")
    texts: tuple[str, ...] = Field(min_length=1)
    program: str
    params: dict[str, ParamType] = Field(default_factory=dict)
    types: tuple[Type, ...] = Field(min_length=1)
    scopes: tuple[Scope, ...] = Field(min_length=1)
    semantic: Semantic
    structural: Structural
    reference: Literal["direct", "indirect"] = "direct"
    # a yes/no program over the same parameters that must answer "yes" for the question to be
    # asked: what the text takes for granted ("would it *still* change" presupposes it did)
    presupposes: str | None = None
    # what the video must show for a viewer to answer (``gaze``: where each person looks);
    # built-in templates needing what the renderer does not draw yet are left out by default
    needs: tuple[Literal["gaze"], ...] = ()
    # ``carried``: the template's objects are things a person carries, never fixtures or places
    # ("what did the person do with the counter next?" is no question); needs the world's domain.
    # ``room``: also the fixtures the clip shows untouched by its actions ("why was the fridge
    # closed at the end of the video?" of a fridge nobody opened: "it was already closed when
    # the video began"), in the states english.yaml `caused.untouched` lists; needs the domain
    objects: Literal["any", "carried", "room"] = "any"
    # how an action answer is said: ``base`` ("put the egg in the microwave"), ``to`` for a
    # why-question ("to put the egg in the microwave"), ``ing`` for "what was X doing ...?"
    # ("putting the egg in the microwave"); the base form stays a right answer
    answer_form: Literal["base", "to", "ing", "will"] = "base"
    # true: the generator never says an action's objects as "something" ("if the person had not
    # washed something, would the pan have been clean?" leaves a viewer unsure what was washed)
    actions_in_full: bool = False
    # the indirect variants that refer to an object by what was done to it (questions/indirect.py):
    # ``taken`` keeps only "the first / last thing they took", where the doing says nothing of the
    # attribute asked ("was the thing they closed still open at the end?" reads as a riddle,
    # "did the thing they closed stop being open?" as a tautology)
    object_references: Literal["all", "taken"] = "all"
    # parameters the texts need not say, because the others fix them: a route counterfactual
    # says the action and the thing ("ignoring anything anyone did to the fridge before the
    # person went to get the milk"), and the action's schema fixes the state it needs (open)
    unsaid: tuple[str, ...] = ()
    # false: left out of the built-in default set because its wording failed a review done
    # from the clips' frames (the reason is in `notes`); still usable with --templates
    default: bool = True
    notes: str = ""

    @property
    def parsed(self) -> Program:
        return parse_program(self.program)

    def digest(self) -> str:
        """A hash of everything that decides the template's questions."""
        text = self.model_dump_json()
        return hashlib.sha256(text.encode("utf-8")).hexdigest()[:16]


BUILTIN = "taskqa.questions.templates"
# What rendered videos show of the `needs` a template may name. Gaze is not drawn yet (figures'
# heads do not turn to what they look at), so awareness and visibility questions, whose answers
# depend on where a person looked, are not answerable from the video and stay out by default.
SHOWN_IN_VIDEO: frozenset[str] = frozenset()


def load_templates(paths: list[Path] | None = None, everything: bool = False) -> list[Template]:
    """The built-in templates, or those in ``paths`` (files or folders of ``*.yaml``).

    Built-in templates whose ``needs`` the video does not show (``SHOWN_IN_VIDEO``) are left
    out unless ``everything``; templates from ``paths`` are all kept (the user chose them).
    """
    sources: list[tuple[str, str]] = []
    if paths is None:
        folder = resources.files(BUILTIN)
        for entry in sorted(folder.iterdir(), key=lambda e: e.name):
            if entry.name.endswith(".yaml"):
                sources.append((entry.name, entry.read_text(encoding="utf-8")))
    else:
        for path in paths:
            files = sorted(path.glob("*.yaml")) if path.is_dir() else [path]
            sources += [(f.name, f.read_text(encoding="utf-8")) for f in files]
    templates: list[Template] = []
    problems: list[Problem] = []
    for name, text in sources:
        try:
            templates += parse_templates(text, name)
        except InvalidInputError as error:
            problems += error.problems
    seen: set[str] = set()
    for template in templates:
        if template.id in seen:
            problems.append(Problem(template.id, "", "template id repeats; ids must be unique"))
        seen.add(template.id)
    if problems:
        raise InvalidInputError(problems)
    if paths is None and not everything:
        templates = [t for t in templates if set(t.needs) <= SHOWN_IN_VIDEO and t.default]
    return templates


def parse_templates(text: str, file_name: str) -> list[Template]:
    try:
        raw: Any = yaml.safe_load(text)
    except yaml.YAMLError as error:
        raise InvalidInputError([Problem(file_name, "", f"invalid YAML: {error}")]) from None
    if not isinstance(raw, list):
        raise InvalidInputError([Problem(file_name, "", "expected a list of templates")])
    templates: list[Template] = []
    problems: list[Problem] = []
    for index, item in enumerate(raw):
        try:
            template = Template.model_validate(item)
        except ValidationError as error:
            problems += problems_from_validation_error(file_name, [index], error)
            continue
        try:
            template.parsed  # noqa: B018 - parsing is the check
        except ProgramSyntaxError as error:
            problems.append(Problem.at(file_name, [index, "program"], str(error)))
            continue
        templates.append(template)
    if problems:
        raise InvalidInputError(problems)
    return templates
