"""The graph form of a program: a post-ordered list of nodes, as in CLEVR's question programs.

Each node names a function, the earlier nodes whose results it consumes (``inputs``) and its
literal ``arguments`` (tokens of the one-line syntax, kept verbatim). The nodes form a tree whose
root is the last node, listed in post-order: exactly the order ``parse_program`` emits them, so
one tree has one ``Program`` and ``==`` compares trees.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterable, Mapping, Sequence
from typing import Any

from pydantic import BaseModel, ConfigDict, ValidationInfo, field_validator

from taskqa.programs import syntax


def known_functions() -> frozenset[str]:
    """The registered operators' names (``operators.FUNCTIONS``; imported here when asked,
    since the operators' module builds on this one)."""
    from taskqa.programs.operators import FUNCTIONS

    return FUNCTIONS


Argument = str | tuple[str, ...]
"""A bare token (``video``, ``obj$``, ``action@{a}``) or a list of tokens (``[k1, k2]``)."""

_FUNCTION_NAME = re.compile(r"[A-Za-z_][A-Za-z0-9_]*")
_SLOT_NAME = re.compile(r"[a-z]+[0-9]*")


class Node(BaseModel):
    """One call: ``function(*arguments, *results of inputs)``."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    function: str
    inputs: tuple[int, ...] = ()
    arguments: tuple[Argument, ...] = ()

    @field_validator("function")
    @classmethod
    def _identifier(cls, function: str) -> str:
        if not _FUNCTION_NAME.fullmatch(function):
            raise ValueError(f"function name {function!r} is not an identifier")
        return function

    @field_validator("arguments")
    @classmethod
    def _tokens(cls, arguments: tuple[Argument, ...]) -> tuple[Argument, ...]:
        # Every argument must print as text that parses back to itself, or round trips break.
        for argument in arguments:
            tokens = (argument,) if isinstance(argument, str) else argument
            if not tokens:
                raise ValueError("an argument list must not be empty")
            for token in tokens:
                if not syntax.is_token(token):
                    raise ValueError(
                        f"argument {token!r} is not a single token; "
                        "quote values with spaces or ,()[]{}' characters"
                    )
        return arguments


class Program(BaseModel):
    """A program tree; ``nodes[-1]`` is the output and every other node feeds exactly one node.

    Validation context ``{"functions": names}`` replaces the known operator names.
    """

    model_config = ConfigDict(frozen=True, extra="forbid")

    nodes: tuple[Node, ...]

    @field_validator("nodes")
    @classmethod
    def _tree(cls, nodes: tuple[Node, ...], info: ValidationInfo) -> tuple[Node, ...]:
        if not nodes:
            raise ValueError("a program needs at least one node")
        context = info.context if isinstance(info.context, Mapping) else {}
        given = context.get("functions")
        _check_functions(nodes, known_functions() if given is None else frozenset(given))
        _check_inputs(nodes)
        _check_post_order(nodes)
        return nodes

    @classmethod
    def from_json(
        cls, nodes: Iterable[Mapping[str, Any]], *, functions: Iterable[str] | None = None
    ) -> Program:
        """Read ``to_json`` output (CLEVR-style node dicts; missing lists default to empty)."""
        known = known_functions() if functions is None else frozenset(functions)
        return cls.model_validate({"nodes": list(nodes)}, context={"functions": known})

    def to_json(self) -> list[dict[str, Any]]:
        """``[{"function", "inputs", "arguments"}, ...]`` with JSON lists for tuples."""
        dumped: list[dict[str, Any]] = self.model_dump(mode="json")["nodes"]
        return dumped

    @property
    def output(self) -> Node:
        return self.nodes[-1]

    @property
    def text(self) -> str:
        """The canonical one-line form (``syntax.format_program``)."""
        return syntax.format_program(self)

    @property
    def size(self) -> int:
        return len(self.nodes)

    @property
    def depth(self) -> int:
        """Nodes on the longest chain from the output to a leaf (a single call has depth 1)."""
        depths: list[int] = []
        for node in self.nodes:  # inputs come first, so their depths are known
            depths.append(1 + max((depths[i] for i in node.inputs), default=0))
        return depths[-1]

    def placeholders(self) -> list[str]:
        """Slot names (``a`` for ``{a}``, ``o2`` for ``{o2}``) in the order ``text`` shows them.

        Braces inside quoted values are literal text, not slots.
        """
        seen: dict[str, None] = {}
        for token in self._tokens_in_text_order():
            seen.update(dict.fromkeys(syntax.token_placeholders(token)))
        return list(seen)

    def fill(self, values: Mapping[str, str]) -> Program:
        """Replace ``{name}`` by ``values[name]``, quoted when not plain ``[A-Za-z0-9_-]+``.

        Slots missing from ``values`` stay, so a template can be bound step by step.
        """
        for name in values:
            if not _SLOT_NAME.fullmatch(name):
                raise ValueError(f"slot name {name!r} should look like 'a', 'fv' or 'o2'")
        quoted = {name: syntax.quote_value(value) for name, value in values.items()}

        def fill_token(token: str) -> str:
            return syntax.substitute(token, quoted.get)

        nodes = tuple(
            Node(
                function=node.function,
                inputs=node.inputs,
                arguments=_map_arguments(node.arguments, fill_token),
            )
            for node in self.nodes
        )
        # The tree is unchanged, so skip re-validating it: that would need the caller's
        # ``functions``, which a Program does not keep.
        return self.model_copy(update={"nodes": nodes})

    def _tokens_in_text_order(self) -> Iterable[str]:
        stack = [len(self.nodes) - 1]
        while stack:
            node = self.nodes[stack.pop()]
            for argument in node.arguments:
                yield from (argument,) if isinstance(argument, str) else argument
            stack.extend(reversed(node.inputs))


def _map_arguments(
    arguments: tuple[Argument, ...], change: Callable[[str], str]
) -> tuple[Argument, ...]:
    return tuple(
        change(argument) if isinstance(argument, str) else tuple(map(change, argument))
        for argument in arguments
    )


def _check_functions(nodes: Sequence[Node], functions: frozenset[str]) -> None:
    for index, node in enumerate(nodes):
        if node.function not in functions:
            known = ", ".join(sorted(functions))
            raise ValueError(
                f"node {index}: unknown function {node.function!r}; expected one of {known}"
            )


def _check_inputs(nodes: Sequence[Node]) -> None:
    users: dict[int, list[int]] = {}
    for index, node in enumerate(nodes):
        for source in node.inputs:
            if not 0 <= source < index:
                raise ValueError(
                    f"node {index}: input {source} does not refer to an earlier node "
                    f"(expected 0..{index - 1})"
                )
            users.setdefault(source, []).append(index)
    for index in range(len(nodes) - 1):
        used_by = users.get(index, [])
        if len(used_by) != 1:
            how = f"used by nodes {used_by}" if used_by else "unused"
            raise ValueError(
                f"node {index} is {how}; every node but the last must feed exactly one node"
            )


def _check_post_order(nodes: Sequence[Node]) -> None:
    # For a tree, post-order means each node's input subtrees sit side by side right before it.
    first: list[int] = []  # first[i]: index of the first node of i's subtree
    for index, node in enumerate(nodes):
        expected_end = index - 1
        for source in reversed(node.inputs):
            if source != expected_end:
                raise ValueError(
                    f"node {index}: input {source} is out of order, expected {expected_end}; "
                    "nodes must be in post-order (each input's subtree right before the next "
                    "input's, the last one right before the node)"
                )
            expected_end = first[source] - 1
        first.append(first[node.inputs[0]] if node.inputs else index)
