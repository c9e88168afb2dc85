"""The one-line program form: tokens, quoting, a recursive-descent parser and the printer.

A program reads ``function(argument, ..., input, ...)``; an input is a nested call, an argument
is a bare token (``video``, ``obj$``, ``action@{a}``, ``change@'state of mixture'``) or a list of
tokens written ``[k1, k2]`` or, as in the paper, ``{k1, k2}``. See docs/program-language.md.

Tokens are kept verbatim, quotes included: the graph form stores exactly what the text says, so
printing is trivial and round-trips, and decoding a value (``unquote``) is left to the executor,
which must split ``key@value`` before it decodes the value.

This module is the lexical layer ``graph`` validates arguments with, so it imports ``graph``
only where it builds nodes (``graph`` imports this module at load time).
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterable
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from taskqa.programs.graph import Argument, Program

PLACEHOLDER = re.compile(r"\{([a-z]+[0-9]*)\}")
"""A template slot such as ``{a}``, ``{fv}`` or ``{o2}``; group 1 is its name."""

_PLAIN_VALUE = re.compile(r"[A-Za-z0-9_-]+")
_FUNCTION_NAME = re.compile(r"[A-Za-z_][A-Za-z0-9_]*")
_TERMINATORS = frozenset(",()[]")
MAX_NESTING = 100
"""Calls nested deeper than this are refused, so hostile text cannot exhaust the stack."""


class ProgramSyntaxError(ValueError):
    """Text that is not a program; ``position`` is the 0-based character offset of the problem."""

    def __init__(self, position: int, reason: str) -> None:
        super().__init__(f"position {position}: {reason}")
        self.position = position
        self.reason = reason


def _describe(text: str, pos: int) -> str:
    return repr(text[pos]) if pos < len(text) else "end of input"


# --- tokens ------------------------------------------------------------------------------


def _scan_quoted(text: str, pos: int) -> int:
    """End of the quoted part opening at ``text[pos] == "'"``; a backslash escapes any char."""
    i = pos + 1
    while i < len(text):
        if text[i] == "\\":
            i += 2
        elif text[i] == "'":
            return i + 1
        else:
            i += 1
    raise ProgramSyntaxError(pos, 'unterminated quoted value; expected a closing "\'"')


def _scan_angle(text: str, pos: int) -> int:
    """End of the ``<...>`` group opening at ``pos``.

    The released DSL splices a nested program's result into a key (``action@<query(...)>``), so
    the group is opaque: commas, parentheses and spaces inside it belong to the token.
    """
    depth = 0
    i = pos
    while i < len(text):
        char = text[i]
        if char == "'":
            i = _scan_quoted(text, i)
            continue
        if char == "<":
            depth += 1
        elif char == ">":
            depth -= 1
            if depth == 0:
                return i + 1
        i += 1
    raise ProgramSyntaxError(pos, "unterminated '<'; expected a matching '>'")


def _token_end(text: str, pos: int) -> int:
    """End of the bare token starting at ``pos`` (``pos`` itself when there is none)."""
    open_braces: list[int] = []
    i = pos
    while i < len(text):
        char = text[i]
        if char == "'":
            i = _scan_quoted(text, i)
            continue
        if char == "<":
            i = _scan_angle(text, i)
            continue
        if char == "{":
            open_braces.append(i)
        elif char == "}":
            if not open_braces:
                break  # closes an enclosing ``{k1, k2}`` list
            open_braces.pop()
        elif char.isspace() or char in _TERMINATORS:
            break
        i += 1
    if open_braces:
        raise ProgramSyntaxError(open_braces[-1], "unbalanced '{' in a token; expected '}'")
    return i


def starts_list(text: str, pos: int) -> bool:
    """Whether the argument at ``pos`` is a list: ``[``, or a ``{`` that opens no placeholder."""
    if text.startswith("[", pos):
        return True
    return text.startswith("{", pos) and PLACEHOLDER.match(text, pos) is None


def is_token(text: str) -> bool:
    """Whether ``text`` reads back as exactly this one bare token."""
    if not text or starts_list(text, 0):
        return False
    try:
        return _token_end(text, 0) == len(text)
    except ProgramSyntaxError:
        return False


def quote_value(value: str) -> str:
    """``value`` as it goes into a token: verbatim when plain ``[A-Za-z0-9_-]+``, else in single
    quotes with ``'`` and ``\\`` escaped by a backslash."""
    if _PLAIN_VALUE.fullmatch(value):
        return value
    escaped = value.replace("\\", "\\\\").replace("'", "\\'")
    return f"'{escaped}'"


def unquote(token: str) -> str:
    """Decode the quoted parts of a token (``obj@'salad bowl'`` -> ``obj@salad bowl``).

    ``<...>`` groups are nested programs and stay verbatim; they are decoded when parsed.
    """
    out: list[str] = []
    i = 0
    while i < len(token):
        if token[i] == "<":
            end = _scan_angle(token, i)
            out.append(token[i:end])
            i = end
        elif token[i] == "'":
            end = _scan_quoted(token, i)
            out.append(re.sub(r"\\(.)", r"\1", token[i + 1 : end - 1], flags=re.DOTALL))
            i = end
        else:
            out.append(token[i])
            i += 1
    return "".join(out)


def _unquoted_spans(token: str) -> Iterable[tuple[int, int]]:
    """The (start, end) spans of ``token`` outside quotes; quoted text is literal."""
    start = i = 0
    while i < len(token):
        if token[i] == "'":
            yield start, i
            i = start = _scan_quoted(token, i)
        else:
            i += 1
    yield start, len(token)


def token_placeholders(token: str) -> list[str]:
    """Placeholder names in ``token`` outside quotes, in order (repeats kept)."""
    return [
        match.group(1)
        for start, end in _unquoted_spans(token)
        for match in PLACEHOLDER.finditer(token, start, end)
    ]


def substitute(token: str, replace: Callable[[str], str | None]) -> str:
    """Replace each placeholder outside quotes by ``replace(name)``; None keeps it."""
    pieces: list[str] = []
    previous = 0
    for start, end in _unquoted_spans(token):
        for match in PLACEHOLDER.finditer(token, start, end):
            value = replace(match.group(1))
            if value is not None:
                pieces += [token[previous : match.start()], value]
                previous = match.end()
    pieces.append(token[previous:])
    return "".join(pieces)


# --- printer -----------------------------------------------------------------------------


def format_argument(argument: Argument) -> str:
    if isinstance(argument, str):
        return argument
    return "[" + ", ".join(argument) + "]"


def format_program(program: Program) -> str:
    """The canonical one-line form: arguments first, then inputs, separated by ``", "``."""
    nodes = program.nodes

    def call(index: int) -> str:
        node = nodes[index]
        parts = [format_argument(a) for a in node.arguments] + [call(i) for i in node.inputs]
        return f"{node.function}({', '.join(parts)})"

    return call(len(nodes) - 1)


# --- parser ------------------------------------------------------------------------------


class _Parser:
    """Recursive descent over the text, appending nodes in post-order as calls close."""

    def __init__(self, text: str, functions: frozenset[str]) -> None:
        self.text = text
        self.pos = 0
        self.functions = functions
        self.nodes: list[dict[str, object]] = []

    def fail(self, reason: str) -> ProgramSyntaxError:
        return ProgramSyntaxError(self.pos, f"{reason}, found {_describe(self.text, self.pos)}")

    def skip_space(self) -> None:
        while self.pos < len(self.text) and self.text[self.pos].isspace():
            self.pos += 1

    def peek(self) -> str:
        return self.text[self.pos] if self.pos < len(self.text) else ""

    def program(self) -> list[dict[str, object]]:
        self.skip_space()
        start = self.pos
        name = self.token("expected a function call")
        self.skip_space()
        if self.peek() != "(":
            raise self.fail(f"expected '(' after function name {name!r}")
        self.call(name, start, depth=1)
        self.skip_space()
        if self.pos < len(self.text):
            raise self.fail("expected end of input after the program")
        return self.nodes

    def token(self, expected: str) -> str:
        start = self.pos
        end = _token_end(self.text, start)
        if end == start:
            raise self.fail(expected)
        self.pos = end
        return self.text[start:end]

    def call(self, name: str, start: int, depth: int) -> int:
        """Parse ``(items)`` after ``name`` (which began at ``start``); return the node index."""
        if not _FUNCTION_NAME.fullmatch(name) or name not in self.functions:
            known = ", ".join(sorted(self.functions))
            raise ProgramSyntaxError(start, f"unknown function {name!r}; expected one of {known}")
        if depth > MAX_NESTING:
            raise ProgramSyntaxError(start, f"calls nested deeper than {MAX_NESTING}")
        self.pos += 1  # the '('
        arguments: list[Argument] = []
        inputs: list[int] = []
        self.skip_space()
        if self.peek() != ")":
            while True:
                self.item(arguments, inputs, depth)
                self.skip_space()
                if self.peek() == ")":
                    break
                if self.peek() != ",":
                    raise self.fail("expected ')' or ',' after argument")
                self.pos += 1
                self.skip_space()
        self.pos += 1  # the ')'
        self.nodes.append({"function": name, "inputs": inputs, "arguments": arguments})
        return len(self.nodes) - 1

    def item(self, arguments: list[Argument], inputs: list[int], depth: int) -> None:
        if starts_list(self.text, self.pos):
            arguments.append(self.list())
            return
        start = self.pos
        token = self.token("expected an argument or a call")
        self.skip_space()
        if self.peek() == "(":
            inputs.append(self.call(token, start, depth + 1))
        else:
            arguments.append(token)

    def list(self) -> tuple[str, ...]:
        close = "]" if self.peek() == "[" else "}"
        self.pos += 1
        tokens: list[str] = []
        while True:
            self.skip_space()
            if starts_list(self.text, self.pos):
                raise self.fail("expected a token in a list (lists do not nest)")
            tokens.append(self.token("expected a token in a list"))
            self.skip_space()
            if self.peek() == close:
                self.pos += 1
                return tuple(tokens)
            if self.peek() != ",":
                raise self.fail(f"expected {close!r} or ',' in a list")
            self.pos += 1


def parse_program(text: str, *, functions: Iterable[str] | None = None) -> Program:
    """Parse the one-line form into a ``Program``; raise ``ProgramSyntaxError`` on bad text.

    ``functions`` replaces the known operator names (default: the registered operators).
    """
    from taskqa.programs.graph import Program, known_functions  # graph imports this module

    known = known_functions() if functions is None else frozenset(functions)
    nodes = _Parser(text, known).program()
    return Program.model_validate({"nodes": nodes}, context={"functions": known})
