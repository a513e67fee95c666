"""What the parsers and the unparser share: the operator table and the size of an
integer literal (the paused collector every parser uses is `cfmodel.collector`)."""

from __future__ import annotations

# Binding power of binary operators (higher binds tighter), as in the reference
# compiler; all left-associative. The parser (`cf.py`) climbs them and the unparser
# (`transforms/cf/unparse.py`) uses them to put back only the parentheses needed.
BINDING_POWER: dict[str, int] = {
    "or": 1,
    "and": 2,
    "==": 3,
    "!=": 3,
    "<": 3,
    ">": 3,
    "<=": 3,
    ">=": 3,
    "is": 3,
    "+": 4,
    "-": 4,
    "*": 5,
    "/": 5,
    "%": 5,
    "**": 6,
    "in": 8,
    "not in": 8,
}
NOT_BINDING_POWER = 7

# Longer integer literals are refused with a located error (Python itself refuses to
# convert more than 4,300 digits, and a number that size is no configuration value).
MAX_INTEGER_DIGITS = 4300
# A multiplicity bound is a count: at most 18 digits (it fits in 64 bits).
MAX_MULTIPLICITY_DIGITS = 18  # `not x in y` is `not (x in y)`; `not x == y` is `(not x) == y`
