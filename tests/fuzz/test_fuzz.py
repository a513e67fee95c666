"""The fuzzing harness, briefly (a fixed set of inputs, well under a minute): nothing a
user feeds in crashes (exit 3), hangs over 5 s or takes more than 1 GiB. The long run is
`scripts/fuzz.py`."""

from __future__ import annotations

import time

import pytest

from tests.fuzz import harness

BUDGET = (("cf", 800), ("bind", 300), ("cfenv", 200), ("yaml", 300), ("project", 100), ("template", 300))


@pytest.mark.parametrize(("target", "count"), BUDGET, ids=[t for t, _ in BUDGET])
def test_fuzzed_inputs_never_crash_hang_or_blow_up(target: str, count: int) -> None:
    # numbered from 1,000,000,000 so that CI does not repeat the long run's inputs
    report = harness.run(harness.schedule(count, start=1_000_000_000, weights=[(target, 1)]))
    assert report.total == count
    assert report.findings == []
    assert report.counts["ok"] > 0 and report.counts["error"] > 0  # both paths exercised


def test_inputs_are_reproducible() -> None:
    assert harness.reproduce("cf", 7) == harness.reproduce("cf", 7)
    assert harness.reproduce("cf", 7) != harness.reproduce("cf", 8)


def test_the_harness_reports_crashes_and_hangs(monkeypatch: pytest.MonkeyPatch) -> None:
    # the workers are forked after this patch, so they run the fake target
    def fake(target: str, number: int) -> str:
        if number == 1:
            raise harness.CrashError("boom")
        if number == 2:
            end = time.process_time() + 1.5  # CPU time, as a real hang spends it
            while time.process_time() < end:
                pass
        if number == 3:
            raise ZeroDivisionError
        return "ok"

    monkeypatch.setattr(harness, "run_one", fake)
    monkeypatch.setattr(harness, "HANG_SECONDS", 1.0)
    monkeypatch.setattr(harness, "warm_up", lambda targets: None)
    report = harness.run([("cf", n) for n in range(5)])
    assert [(n, kind) for _, n, kind, _ in report.findings] == [(1, "crash"), (2, "hang"), (3, "crash")]
    assert report.counts["ok"] == 2
