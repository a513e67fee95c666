"""Fixtures for the real-EMF tests: a compiled checker, or skip (locally) / fail (in CI)."""

from __future__ import annotations

import os

import pytest

from .emf import EmfChecker, EmfUnavailableError, build_checker


@pytest.fixture(scope="session")
def emf() -> EmfChecker:
    try:
        return build_checker()
    except EmfUnavailableError as exc:
        if os.environ.get("CI"):
            pytest.fail(f"CI requires real EMF but it is unavailable: {exc}", pytrace=False)
        pytest.skip(f"real EMF unavailable: {exc}")
