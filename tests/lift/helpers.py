"""Shared helpers of the lift, validation and import tests."""

from __future__ import annotations

from pathlib import Path

from cfmodel.project import load_project
from cfmodel.transforms.cf.lift import DomainMetamodel, LiftOptions, lift
from cfmodel.transforms.cf.resolve import resolve

REPO = Path(__file__).resolve().parents[2]
RICH = Path(__file__).parent / "fixtures" / "rich"
WEBSHOP = REPO / "examples" / "webshop"


def lifted(project: Path, options: LiftOptions | None = None) -> DomainMetamodel:
    return lift(resolve(load_project(project)), options)
