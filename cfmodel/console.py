"""What the command line writes on stderr: diagnostics coloured on a terminal, or kept quiet,
and a progress line below them.

``DiagnosticStream`` wraps stderr for the length of a command and reads what is written
line by line: a diagnostic line (``file:line:col: error: …``, ``warning: …``, ``note: …``,
``cfmodel: warning: …``) gets its severity coloured when ``color`` is on (stderr is a
terminal, ``NO_COLOR`` is not set, ``TERM`` is not ``dumb``); with ``quiet``, warnings
and the notes that follow them are dropped (errors and their notes always pass). Every
other line passes as written.

The progress line (`Progress`: stage, counts, seconds since the command started) is drawn
by the stream itself, at the bottom: a line written while it shows is put above it, and
it is drawn again after. A ticker thread redraws it four times a second, so the time
moves on during a long step with no counts (writing a file). It is shown only when
stderr is a terminal, never with ``-q`` or ``--format json``; it is erased when the
command ends, so a finished command leaves only its output.
"""

from __future__ import annotations

import os
import re
import shutil
import threading
import time
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
        self._status = ""  # the progress line shown now
        self._lock = threading.RLock()  # the progress ticker writes too

    def write(self, text: str) -> int:
        with self._lock:
            self._pending += text
            if "\n" not in self._pending:
                return len(text)
            self._erase_status()
            while "\n" in self._pending:
                line, self._pending = self._pending.split("\n", 1)
                self._line(line + "\n")
            self._draw_status()
        return len(text)

    def status(self, text: str) -> None:
        """Show *text* as the progress line ("" erases it)."""
        with self._lock:
            if not text:
                self._erase_status()
            self._status = text
            self._draw_status()
            self.target.flush()

    def _draw_status(self) -> None:
        if self._status:
            width = shutil.get_terminal_size((80, 24)).columns
            self.target.write("\r\x1b[K" + self._status[: max(width - 1, 1)])

    def _erase_status(self) -> None:
        if self._status:
            self.target.write("\r\x1b[K")

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
        with self._lock:
            if self._pending:
                self._erase_status()
                self._line(self._pending)
                self._pending = ""
                self._draw_status()
            self.target.flush()

    def isatty(self) -> bool:
        return bool(getattr(self.target, "isatty", lambda: False)())

    @property
    def encoding(self) -> str:
        return str(getattr(self.target, "encoding", "utf-8"))


#: What a stage's two counts are (``(stage, done, count)``), for the stages that have counts.
UNITS = {"loading": ("file", "line"), "evaluating": ("step", "instance")}


class Progress:
    """The progress callback of a command: ``progress(stage, done=0, count=0)`` (the
    signature of `cfmodel.pipeline.Progress`). With no stream it does nothing; with one, it
    shows ``cfmodel: STAGE — COUNTS · SECONDS s`` as the stream's progress line until
    `close`."""

    def __init__(self, stream: DiagnosticStream | None, interval: float = 0.25) -> None:
        self.stream = stream
        self.interval = interval
        self.started = time.monotonic()
        self.stage = ""
        self.counts = (0, 0)
        self._drawn = 0.0  # when __call__ last drew
        self._stop = threading.Event()
        self._ticker: threading.Thread | None = None

    @property
    def enabled(self) -> bool:
        return self.stream is not None

    def __call__(self, stage: str, done: int = 0, count: int = 0) -> None:
        if self.stream is None:
            return
        same_stage = stage == self.stage
        self.stage, self.counts = stage, (done, count)
        now = time.monotonic()
        if same_stage and now - self._drawn < 0.1:
            return  # counts come faster than a terminal needs them: the ticker shows them
        self._drawn = now
        self._draw()
        if self._ticker is None:
            self._ticker = threading.Thread(target=self._tick, name="cfmodel-progress", daemon=True)
            self._ticker.start()

    def text(self) -> str:
        """The line shown now: stage, counts, seconds since the command started."""
        done, count = self.counts
        units = UNITS.get(self.stage)
        shown = f"cfmodel: {self.stage}"
        if units is not None and (done or count):
            shown += f" — {_counted(done, units[0])}, {_counted(count, units[1])}"
        return f"{shown} · {time.monotonic() - self.started:.1f} s"

    def _draw(self) -> None:
        if self.stream is not None and self.stage:
            self.stream.status(self.text())

    def _tick(self) -> None:
        while not self._stop.wait(self.interval):
            self._draw()

    def close(self) -> None:
        """Stop the ticker and erase the line."""
        self._stop.set()
        if self._ticker is not None:
            self._ticker.join()
        if self.stream is not None:
            self.stream.status("")


def _counted(number: int, unit: str) -> str:
    return f"{number:,} {unit}{'' if number == 1 else 's'}"
