"""Character offsets to 1-based spans and back, for one source text.

textX records character offsets (``_tx_position``, ``_tx_position_end``); every tree
builder turns them into `Span`s through a `LineIndex`, which bisects a table of line
starts built once per file.
"""

from __future__ import annotations

import bisect
import itertools
import operator

from cfmodel.errors import Span


class LineIndex:
    """Maps offsets of *text* to line/column positions in *file*."""

    def __init__(self, text: str, file: str) -> None:
        self.file = file
        # a line starts one past the end of the one before (computed in C, not per line)
        with_newline = map(operator.add, map(len, text.split("\n")[:-1]), itertools.repeat(1))
        self.line_starts: list[int] = [0, *itertools.accumulate(with_newline)]

    def span(self, start: int, end: int) -> Span:
        """The span from offset *start* up to offset *end* (exclusive)."""
        starts = self.line_starts
        line = bisect.bisect_right(starts, start)
        if line == len(starts) or end < starts[line]:  # most spans end on the line they start
            end_line = line
        else:
            end_line = bisect.bisect_right(starts, end, lo=line)
        return Span(self.file, line, start - starts[line - 1] + 1, end_line, end - starts[end_line - 1] + 1)

    def offset(self, line: int, col: int) -> int:
        """The offset of a 1-based line and column."""
        return self.line_starts[line - 1] + col - 1

    def end_offset(self, span: Span) -> int:
        """The offset just past the end of *span*."""
        return self.offset(span.end_line, span.end_col)
