"""Run the real Eclipse EMF (Java) on files cfmodel wrote: the test harness's consumer.

Input: `.ecore` and XMI paths. Output: an `EmfReport` parsed from the JSON lines that
`EmfChecker.java` prints (load errors, unresolved proxies, Diagnostician diagnostics,
canonical dumps, re-saved paths), or the bench timings. The checker is compiled once
with javac into a cache directory keyed by the source and jar contents, so a test
session (or a benchmark run) pays for compilation at most once.
"""

from __future__ import annotations

import hashlib
import json
import os
import shutil
import subprocess
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

HERE = Path(__file__).resolve().parent
SOURCE = HERE / "EmfChecker.java"
JAR_DIR = Path("/usr/share/java")
JARS = ("eclipse-emf-common.jar", "eclipse-emf-ecore.jar", "eclipse-emf-ecore-xmi.jar")
CACHE = HERE.parent.parent / ".cache" / "emf-checker"


class EmfUnavailableError(RuntimeError):
    """Java or the EMF jars are missing (see scripts/system-packages.txt)."""


@dataclass
class EmfReport:
    """What EMF said about a set of files."""

    records: list[dict[str, Any]]
    summary: dict[str, int] = field(default_factory=dict)

    def of_kind(self, kind: str) -> list[dict[str, Any]]:
        return [r for r in self.records if r["kind"] == kind]

    def dump(self, file_name: str) -> list[str]:
        for r in self.of_kind("dump"):
            if r["file"] == file_name:
                return list(r["lines"])
        raise KeyError(file_name)

    def structure(self, file_name: str) -> list[str]:
        """The structural dump of one ``.ecore`` file (a run with ``structure=True``)."""
        for r in self.of_kind("structure"):
            if r["file"] == file_name:
                return list(r["lines"])
        raise KeyError(file_name)

    def problems(self) -> list[str]:
        bad = ("error", "warning", "unresolved", "diagnostic")
        return [
            f"{r['kind']} in {r['file']}: {r.get('message') or r.get('proxy')}"
            for r in self.records
            if r["kind"] in bad
        ]

    @property
    def clean(self) -> bool:
        return not self.problems() and not any(self.summary.values())


class EmfChecker:
    """A compiled EmfChecker.java, ready to run."""

    def __init__(self, classes: Path, classpath: list[Path], java: str) -> None:
        self.classes = classes
        self.classpath = os.pathsep.join([str(classes), *map(str, classpath)])
        self.java = java

    def check(
        self,
        ecores: Sequence[Path] = (),
        xmis: Sequence[Path] = (),
        resave_dir: Path | None = None,
        dump: bool = True,
        structure: bool = False,
        extended_metadata: bool = False,
    ) -> EmfReport:
        args: list[str] = []
        args += [a for p in ecores for a in ("--ecore", str(p))]
        args += [a for p in xmis for a in ("--xmi", str(p))]
        if resave_dir is not None:
            args += ["--resave-dir", str(resave_dir)]
        if not dump:
            args.append("--no-dump")
        if structure:
            args.append("--structure")
        if extended_metadata:  # XMI loaded and re-saved with OPTION_EXTENDED_META_DATA
            args.append("--extended-metadata")
        records = [json.loads(line) for line in self._run(args).splitlines() if line.strip()]
        summary = records.pop() if records and records[-1]["kind"] == "summary" else {}
        counts = {k: int(v) for k, v in summary.items() if k != "kind"}
        return EmfReport(records, counts)

    def bench(self, ecore: Path, n: int, rounds: int = 5) -> dict[str, Any]:
        out = self._run(["--ecore", str(ecore), "--bench", str(n), "--rounds", str(rounds)], heap="4g")
        result: dict[str, Any] = json.loads(out.strip().splitlines()[-1])
        return result

    def _run(self, args: list[str], heap: str = "512m") -> str:
        cmd = [self.java, f"-Xmx{heap}", "-cp", self.classpath, "EmfChecker", *args]
        proc = subprocess.run(cmd, capture_output=True, text=True, timeout=600, check=False)
        if proc.returncode != 0:
            raise RuntimeError(f"EmfChecker failed ({proc.returncode}):\n{proc.stderr}\n{proc.stdout}")
        return proc.stdout


def find_jars() -> list[Path]:
    jars = [JAR_DIR / j for j in JARS]
    missing = [str(j) for j in jars if not j.is_file()]
    if missing:
        raise EmfUnavailableError(f"EMF jars missing: {', '.join(missing)}; run ./dev setup")
    return jars


def build_checker(cache: Path = CACHE) -> EmfChecker:
    """Compile EmfChecker.java once (keyed by source and jars) and return a runner.

    Raises:
        EmfUnavailableError: no java/javac or no EMF jars on this machine.
    """
    java, javac = shutil.which("java"), shutil.which("javac")
    if java is None or javac is None:
        raise EmfUnavailableError("java/javac not found; run ./dev setup (default-jdk-headless)")
    jars = find_jars()
    key = hashlib.sha256(SOURCE.read_bytes())
    for j in jars:
        key.update(j.resolve().name.encode())
    classes = cache / key.hexdigest()[:16]
    if not (classes / "EmfChecker.class").is_file():
        tmp = classes.with_name(classes.name + f".tmp{os.getpid()}")
        tmp.mkdir(parents=True, exist_ok=True)
        cp = os.pathsep.join(map(str, jars))
        subprocess.run([javac, "-d", str(tmp), "-cp", cp, str(SOURCE)], check=True, capture_output=True)
        try:
            tmp.rename(classes)
        except OSError:  # a parallel session won the race; use its classes
            shutil.rmtree(tmp, ignore_errors=True)
    return EmfChecker(classes, jars, java)
