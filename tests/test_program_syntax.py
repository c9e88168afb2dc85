"""Program representation: graph form, one-line form, and the round trips between them."""

from __future__ import annotations

import re
from dataclasses import dataclass, field

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from taskqa.programs import (
    FUNCTIONS,
    Argument,
    Node,
    Program,
    ProgramSyntaxError,
    format_program,
    parse_program,
    quote_value,
    unquote,
)

# --- the examples of the design, node by node ------------------------------------------------

EXAMPLES: dict[str, list[Node]] = {
    "query(change, obj$, only(filter(action@{a}, video)))": [
        Node(function="filter", arguments=("action@{a}", "video")),
        Node(function="only", inputs=(0,)),
        Node(function="query", arguments=("change", "obj$"), inputs=(1,)),
    ],
    "depend(only(filter(action@{a1}, video)), only(filter(action@{a2}, video)))": [
        Node(function="filter", arguments=("action@{a1}", "video")),
        Node(function="only", inputs=(0,)),
        Node(function="filter", arguments=("action@{a2}", "video")),
        Node(function="only", inputs=(2,)),
        Node(function="depend", inputs=(1, 3)),
    ],
    "counterfactual(action@{a}, all)": [
        Node(function="counterfactual", arguments=("action@{a}", "all")),
    ],
    "query([aware@yes, action@], only(filter(action@getting, video)))": [
        Node(function="filter", arguments=("action@getting", "video")),
        Node(function="only", inputs=(0,)),
        Node(function="query", arguments=(("aware@yes", "action@"),), inputs=(1,)),
    ],
    "localize(before, only(filter(action@{a}, video)), filter(video))": [
        Node(function="filter", arguments=("action@{a}", "video")),
        Node(function="only", inputs=(0,)),
        Node(function="filter", arguments=("video",)),
        Node(function="localize", arguments=("before",), inputs=(1, 2)),
    ],
}


@pytest.mark.parametrize("text", list(EXAMPLES))
def test_examples_parse_to_nodes_and_print_back(text: str) -> None:
    program = parse_program(text)
    assert list(program.nodes) == EXAMPLES[text]
    assert program.text == text
    assert format_program(program) == text
    assert Program.from_json(program.to_json()) == program


def test_graph_properties() -> None:
    program = parse_program(
        "depend(only(filter(action@{a1}, video)), only(filter(action@{a2}, video)))"
    )
    assert program.output.function == "depend"
    assert (program.size, program.depth) == (5, 3)
    assert parse_program("counterfactual(action@{a}, all)").depth == 1
    assert program.to_json()[4] == {"function": "depend", "inputs": [1, 3], "arguments": []}
    assert parse_program("query([aware@yes, action@], filter(video))").to_json()[1] == {
        "function": "query",
        "inputs": [0],
        "arguments": [["aware@yes", "action@"]],
    }


# --- non-canonical text ------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("text", "canonical"),
    [
        (  # arguments after inputs, a brace list, spaces and newlines
            " query ( only( filter( video , {obj@spoon,change@cleanliness} ) ) ,\n [aware@yes] ) ",
            "query([aware@yes], only(filter(video, [obj@spoon, change@cleanliness])))",
        ),
        (  # the paper's one-element brace list; {a} alone is a placeholder, not a list
            "only(filter({action@putting}, {a}))",
            "only(filter([action@putting], {a}))",
        ),
        ("filter({{a}}, { a })", "filter([{a}], [a])"),
        (  # interleaved: the order within arguments and within inputs is kept
            "localize(only(filter(video)), before, filter(all), x)",
            "localize(before, x, only(filter(video)), filter(all))",
        ),
        ("verify(\t[ change@openedness ,obj@closet ],filter(video))", None),
    ],
)
def test_non_canonical_text_prints_canonically(text: str, canonical: str | None) -> None:
    printed = parse_program(text).text
    if canonical is not None:
        assert printed == canonical
    assert parse_program(printed) == parse_program(text)
    assert " ," not in printed and "( " not in printed


# --- quoting --------------------------------------------------------------------------------


@pytest.mark.parametrize(
    "token",
    [
        "obj@'salad bowl'",
        "change@'state of mixture'",
        "action@'Put [juicer] to (base), then wait'",
        r"obj@'it\'s a \\ backslash'",
        "obj@'{a} is literal here'",
        "'all quoted'@x",
        "action@<query(action$, only(iterate_until(forward, filter(video))))>",
    ],
)
def test_quoted_values_round_trip(token: str) -> None:
    text = f"query(obj$, [{token}, x], only(filter({token}, video)))"
    program = parse_program(text)
    assert program.nodes[0].arguments[0] == token
    assert program.text == text


def test_unquote_decodes_quoted_parts_only() -> None:
    assert unquote("obj@'salad bowl'") == "obj@salad bowl"
    assert unquote(r"obj@'it\'s \\ ok'") == "obj@it's \\ ok"
    nested = "action@<filter(obj@'a b', video)>"
    assert unquote(nested) == nested


def test_fill_quotes_only_when_needed() -> None:
    template = parse_program("query(obj@{o}, [state@{fv}, x], only(filter(action@{a}, video)))")
    filled = template.fill({"a": "Get [orange] from [fridge]", "o": "cup-2", "fv": "it's"})
    assert filled.text == (
        r"query(obj@cup-2, [state@'it\'s', x], "
        "only(filter(action@'Get [orange] from [fridge]', video)))"
    )
    assert parse_program(filled.text) == filled
    assert filled.placeholders() == []
    assert template.fill({"a": r"back\slash"}).nodes[0].arguments[0] == r"action@'back\\slash'"
    assert template.fill({"a": ""}).nodes[0].arguments[0] == "action@''"


def test_placeholders_and_partial_fill() -> None:
    template = parse_program(
        "depend(obj@{o}, only(filter(action@{a1}, {a1}, video)), "
        "only(filter(action@{a2}, obj@'{quoted}', video)))"
    )
    # text order, each name once; braces inside quotes are literal
    assert template.placeholders() == ["o", "a1", "a2"]
    partial = template.fill({"a1": "getting", "unused": "x"})
    assert partial.placeholders() == ["o", "a2"]
    assert partial.nodes[0].arguments == ("action@getting", "getting", "video")
    assert "obj@'{quoted}'" in partial.text
    with pytest.raises(ValueError, match="slot name '{a}'"):
        template.fill({"{a}": "x"})


def test_quote_value() -> None:
    assert quote_value("Plain_value-2") == "Plain_value-2"
    assert quote_value("1.5") == "'1.5'"
    assert quote_value("a'b\\c") == "'a\\'b\\\\c'"


# --- errors ---------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("text", "message"),
    [
        (
            "foo(video)",
            "position 0: unknown function 'foo'; expected one of cause, counterfactual, ",
        ),
        ("only(bar(video))", "position 5: unknown function 'bar'"),
        (
            "only(filter(video)",
            "position 18: expected ')' or ',' after argument, found end of input",
        ),
        ("filter(video))", "position 13: expected end of input after the program, found ')'"),
        ("filter(video) x", "position 14: expected end of input after the program, found 'x'"),
        ("filter(, video)", "position 7: expected an argument or a call, found ','"),
        ("filter(video, )", "position 14: expected an argument or a call, found ')'"),
        ("filter(video,,all)", "position 13: expected an argument or a call, found ','"),
        ("filter(obj@x y)", "position 13: expected ')' or ',' after argument, found 'y'"),
        ("filter(obj@'x)", "position 11: unterminated quoted value"),
        ("filter(action@{a)", "position 14: unbalanced '{' in a token"),
        ("filter([a, [b]])", "position 11: expected a token in a list (lists do not nest)"),
        ("filter([])", "position 8: expected a token in a list, found ']'"),
        ("filter({a, b)", "position 12: expected '}' or ',' in a list, found ')'"),
        ("filter(action@<x)", "position 14: unterminated '<'"),
        ("video", "position 5: expected '(' after function name 'video', found end of input"),
        ("", "position 0: expected a function call, found end of input"),
        ("only(" * 101 + "filter(video)" + ")" * 101, "position 500: calls nested deeper than 100"),
    ],
)
def test_syntax_errors(text: str, message: str) -> None:
    with pytest.raises(ProgramSyntaxError) as caught:
        parse_program(text)
    assert str(caught.value).startswith(message)
    assert caught.value.position == int(message.split(":")[0].removeprefix("position "))


def test_extra_functions() -> None:
    program = parse_program("count(filter(video))", functions=FUNCTIONS | {"count"})
    assert program.output.function == "count"
    assert Program.from_json(program.to_json(), functions=FUNCTIONS | {"count"}) == program
    with pytest.raises(ValueError, match="node 1: unknown function 'count'"):
        Program.from_json(program.to_json())


FILTER = {"function": "filter", "arguments": ["video"]}


@pytest.mark.parametrize(
    ("nodes", "message"),
    [
        ([], "a program needs at least one node"),
        (
            [{"function": "only", "inputs": [1]}, FILTER],
            "node 0: input 1 does not refer to an earlier node",
        ),
        (
            [
                FILTER,
                {"function": "only", "inputs": [0]},
                {"function": "only", "inputs": [0]},
                {"function": "depend", "inputs": [1, 2]},
            ],
            "node 0 is used by nodes \\[1, 2\\]; every node but the last must feed exactly one",
        ),
        ([FILTER, FILTER], "node 0 is unused"),
        (
            [
                FILTER,
                FILTER,
                {"function": "only", "inputs": [0]},
                {"function": "only", "inputs": [1]},
                {"function": "depend", "inputs": [2, 3]},
            ],
            "node 2: input 0 is out of order, expected 1; nodes must be in post-order",
        ),
        ([{"function": "filter", "arguments": ["salad bowl"]}], "'salad bowl' is not a single"),
        ([{"function": "filter", "arguments": ["{Obj}x"]}], "'{Obj}x' is not a single token"),
        ([{"function": "filter", "arguments": [[]]}], "an argument list must not be empty"),
        ([{"function": "filter", "arguments": [["a,b"]]}], "'a,b' is not a single token"),
        ([{"function": "fil ter"}], "function name 'fil ter' is not an identifier"),
        ([{"function": "filter", "argument": []}], "Extra inputs are not permitted"),
    ],
)
def test_invalid_graphs(nodes: list[dict[str, object]], message: str) -> None:
    with pytest.raises(ValueError, match=message):
        Program.from_json(nodes)


def test_programs_are_frozen_and_hashable() -> None:
    program = parse_program("counterfactual(action@{a}, all)")
    assert hash(program) == hash(parse_program(" counterfactual( action@{a} ,all )"))
    with pytest.raises(ValueError, match="frozen"):
        program.nodes = ()  # type: ignore[misc]


# --- properties -------------------------------------------------------------------------------

AWKWARD = st.text(alphabet=st.sampled_from(list("ab Z09_-.,()[]{}<>'\"\\@$é\n")), max_size=8)
LITERALS = ["video", "all", "forward", "backward", "before", "after", "while", "is", "others"]
KEYS = ["action", "obj", "change", "state", "aware", "executable", "cleanliness"]
SLOTS = ["{a}", "{o}", "{f}", "{fv}", "{t}", "{a1}", "{o2}"]
NESTED = [
    "<query(action$, only(iterate_until(forward, filter(video))))>",
    "<query(obj$, only(filter(obj@'a, b', video)))>",
]

values = st.one_of(
    st.just(""),
    st.from_regex(r"[A-Za-z0-9_-]{1,6}", fullmatch=True),
    st.sampled_from(SLOTS),
    AWKWARD.map(quote_value),
    st.sampled_from(NESTED),
)
tokens = st.one_of(
    st.sampled_from(LITERALS + SLOTS),
    st.builds(lambda k, sep, v: k + sep + v, st.sampled_from(KEYS), st.sampled_from("@$"), values),
)
arguments: st.SearchStrategy[Argument] = st.one_of(
    tokens, st.lists(tokens, min_size=1, max_size=3).map(tuple)
)


@dataclass
class Tree:
    function: str
    arguments: list[Argument]
    children: list[Tree] = field(default_factory=list)

    def to_program(self) -> Program:
        nodes: list[Node] = []

        def emit(tree: Tree) -> int:  # post-order, as the parser does
            inputs = tuple(emit(child) for child in tree.children)
            nodes.append(
                Node(function=tree.function, arguments=tuple(tree.arguments), inputs=inputs)
            )
            return len(nodes) - 1

        emit(self)
        return Program(nodes=tuple(nodes))


@st.composite
def trees(draw: st.DrawFn, depth: int = 5) -> Tree:
    children = draw(st.lists(trees(depth - 1), max_size=2)) if depth > 1 else []
    return Tree(
        function=draw(st.sampled_from(sorted(FUNCTIONS))),
        arguments=draw(st.lists(arguments, max_size=3)),
        children=children,
    )


@st.composite
def loose_text(draw: st.DrawFn, tree: Tree) -> str:
    """``tree`` written non-canonically: items interleaved, brace lists, random whitespace."""
    space = st.sampled_from(["", " ", "  ", "\n", "\t "])
    parts = [_loose_argument(draw, argument, space) for argument in tree.arguments]
    calls = [draw(loose_text(child)) for child in tree.children]
    items: list[str] = []
    while parts or calls:  # a random merge keeps each sequence's own order
        source = parts if parts and (not calls or draw(st.booleans())) else calls
        items.append(source.pop(0))
    gaps = [draw(space) + item + draw(space) for item in items]
    return tree.function + draw(space) + "(" + ",".join(gaps) + ")"


def _loose_argument(draw: st.DrawFn, argument: Argument, space: st.SearchStrategy[str]) -> str:
    if isinstance(argument, str):
        return argument
    body = ",".join(draw(space) + token + draw(space) for token in argument)
    # ``{a}`` alone is a placeholder, not a list; brackets keep such a list a list
    if draw(st.booleans()) and not re.fullmatch(r"[a-z]+[0-9]*", body):
        return f"{{{body}}}"
    return f"[{body}]"


@settings(max_examples=200, deadline=None)
@given(trees())
def test_random_programs_round_trip(tree: Tree) -> None:
    program = tree.to_program()
    assert parse_program(format_program(program)) == program
    assert Program.from_json(program.to_json()) == program
    assert program.depth <= 5


@settings(max_examples=100, deadline=None)
@given(trees().map(lambda tree: format_program(tree.to_program())))
def test_canonical_text_round_trips(text: str) -> None:
    assert format_program(parse_program(text)) == text


@settings(max_examples=100, deadline=None)
@given(st.data())
def test_loose_text_parses_to_the_same_program(data: st.DataObject) -> None:
    tree = data.draw(trees(depth=4))
    assert parse_program(data.draw(loose_text(tree))) == tree.to_program()


@given(st.text(max_size=12))
def test_quote_value_is_one_token_part_and_unquotes(value: str) -> None:
    token = "obj@" + quote_value(value)
    assert unquote(token) == "obj@" + value
    assert parse_program(f"filter({token})").nodes[0].arguments == (token,)


@settings(max_examples=100, deadline=None)
@given(trees(depth=3), st.dictionaries(st.sampled_from(["a", "o", "fv", "a1"]), AWKWARD))
def test_fill_keeps_programs_printable(tree: Tree, values: dict[str, str]) -> None:
    filled = tree.to_program().fill(values)
    assert parse_program(filled.text) == filled
    assert not set(values) & set(filled.placeholders())
