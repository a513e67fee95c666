"""What the command line writes on stderr: diagnostics coloured on a terminal, or kept quiet.

``DiagnosticStream`` wraps stderr for the length of a command and reads what is written
line by line: a diagnostic line (``file:line:col: error: …``, ``warning: …``, ``note: …``,
``cfmodel: warning: …``) gets its severity coloured when ``color`` is on (stderr is a
terminal, ``NO_COLOR`` is not set, ``TERM`` is not ``dumb``); with ``quiet``, warnings
and the notes that follow them are dropped (errors and their notes always pass). Every
other line passes as written, and the progress line's carriage returns are left alone.
"""

from __future__ import annotations

import os
import re
from typing import TextIO

_SEVERITY = re.compile(
    r"^(?P<head>(?:[^\s:][^:]*:\d+:\d+: |cfmodel: )?)(?P<severity>error|warning|note)(?P<tail>: )"
)
_COLORS = {"error": "\x1b[1;31m", "warning": "\x1b[1;35m", "note": "\x1b[1;36m"}
_RESET = "\x1b[0m"


def color_wanted(stream: TextIO) -> bool:
    """Colour on a terminal only, and never when ``NO_COLOR`` is set (https://no-color.org)."""
    if os.environ.get("NO_COLOR") or os.environ.get("TERM") == "dumb":
        return False
    return bool(getattr(stream, "isatty", lambda: False)())


class DiagnosticStream:
    """A text stream in front of stderr (see the module docstring)."""

    def __init__(self, target: TextIO, color: bool, quiet: bool) -> None:
        self.target, self.color, self.quiet = target, color, quiet
        self._pending = ""
        self._dropping = False  # inside a dropped warning: its notes go too

    def write(self, text: str) -> int:
        self._pending += text
        while "\n" in self._pending:
            line, self._pending = self._pending.split("\n", 1)
            self._line(line + "\n")
        if self._pending.startswith("\r") or self._pending.endswith("\r\x1b[K"):
            self.target.write(self._pending)  # a progress line redraws itself: pass it now
            self._pending = ""
        return len(text)

    def _line(self, line: str) -> None:
        match = _SEVERITY.match(line)
        severity = match.group("severity") if match else None
        if severity in ("error", "warning"):
            self._dropping = self.quiet and severity == "warning"
        elif severity is None:
            self._dropping = False
        if self._dropping:
            return
        if match and self.color:
            colored = f"{_COLORS[match.group('severity')]}{match.group('severity')}{_RESET}"
            line = match.group("head") + colored + match.group("tail") + line[match.end() :]
        self.target.write(line)

    def flush(self) -> None:
        if self._pending:
            self._line(self._pending)
            self._pending = ""
        self.target.flush()

    def isatty(self) -> bool:
        return bool(getattr(self.target, "isatty", lambda: False)())

    @property
    def encoding(self) -> str:
        return str(getattr(self.target, "encoding", "utf-8"))
