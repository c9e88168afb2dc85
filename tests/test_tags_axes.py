"""The tag vocabulary the build report reads categories from matches what templates declare."""

from typing import get_args

from taskqa.questions.tags import AXIS_OF_TAG
from taskqa.questions.template import Scope, Semantic, Structural, Template, Type


def test_every_declared_tag_has_its_axis() -> None:
    declared = {
        "type": set(get_args(Type)),
        "scope": set(get_args(Scope)),
        "semantic": set(get_args(Semantic)),
        "structural": set(get_args(Structural)),
        "reference": set(get_args(Template.model_fields["reference"].annotation)),
    }
    expected = {tag: axis for axis, tags in declared.items() for tag in tags}
    assert expected == AXIS_OF_TAG
