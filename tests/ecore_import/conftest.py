"""Fixtures for the import tests: the real EMF checker (as in tests/lift)."""

from tests.lift.conftest import emf

__all__ = ["emf"]
