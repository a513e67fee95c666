"""``inmanta.validation_type``: regex-constrained strings for pydantic-based plugin types."""

from __future__ import annotations

import importlib
import re
from typing import Annotated, Any

__all__ = ["Regex", "regex_string", "validate_type"]


class Regex:
    def __init__(self, regex: str) -> None:
        self.regex = regex
        self.pattern = re.compile(regex)


def regex_string(regex: str) -> Any:
    pydantic = importlib.import_module("pydantic")  # only module code that uses it needs pydantic
    return Annotated[str, pydantic.StringConstraints(pattern=regex)]


_MODULES = ("pydantic", "datetime", "ipaddress", "uuid")


def validate_type(fq_type_name: str, value: Any, validation_parameters: dict[str, Any] | None = None) -> None:
    """Check *value* against a type ``module.Name`` (pydantic, datetime, ipaddress, uuid), or raise."""
    module_name, _, type_name = fq_type_name.partition(".")
    if module_name not in _MODULES or not type_name:
        raise ValueError(f"unsupported type {fq_type_name!r}: types of {', '.join(_MODULES)} are supported")
    target = getattr(importlib.import_module(module_name), type_name)
    if validation_parameters:
        target = target(**validation_parameters)
    pydantic = importlib.import_module("pydantic")
    pydantic.TypeAdapter(target).validate_python(value)
