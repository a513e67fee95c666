"""Fixtures for the lift tests: the real EMF checker (skipped locally, required in CI)."""

from __future__ import annotations

import pytest

from tests.conftest import skip_or_fail
from tests.emf.emf import EmfChecker, EmfUnavailableError, build_checker


@pytest.fixture(scope="session")
def emf() -> EmfChecker:
    try:
        return build_checker()
    except EmfUnavailableError as exc:
        skip_or_fail(f"real EMF unavailable: {exc}")
        raise  # unreachable: skip_or_fail raises
