"""Question programs: a typed node graph (CLEVR style) and a readable one-line form.

>>> from taskqa.programs import parse_program
>>> program = parse_program("query(change, obj$, only(filter(action@{a}, video)))")
>>> [node.function for node in program.nodes]
['filter', 'only', 'query']
>>> program.fill({"a": "Get [orange] from [fridge]"}).text
"query(change, obj$, only(filter(action@'Get [orange] from [fridge]', video)))"
"""

from taskqa.programs.graph import Argument, Node, Program
from taskqa.programs.operators import FUNCTIONS
from taskqa.programs.syntax import (
    ProgramSyntaxError,
    format_program,
    parse_program,
    quote_value,
    unquote,
)

__all__ = [
    "FUNCTIONS",
    "Argument",
    "Node",
    "Program",
    "ProgramSyntaxError",
    "format_program",
    "parse_program",
    "quote_value",
    "unquote",
]
