"""``inmanta.validation_type``: regex-constrained strings for pydantic-based plugin types."""

from __future__ import annotations

import importlib
import inspect
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
    """Check *value* against a type ``module.Name`` (pydantic, datetime, ipaddress, uuid), or raise.

    ``pydantic.constr`` also takes pydantic 1's ``regex`` (a Python regex that must match from
    the start, as ``re.match``), as inmanta-core keeps it for the modules that pass it.
    """
    module_name, _, type_name = fq_type_name.partition(".")
    if module_name not in _MODULES or not type_name:
        raise ValueError(f"unsupported type {fq_type_name!r}: types of {', '.join(_MODULES)} are supported")
    target = getattr(importlib.import_module(module_name), type_name)
    pydantic = importlib.import_module("pydantic")
    parameters = dict(validation_parameters or {})
    regex = parameters.pop("regex", None) if module_name == "pydantic" and type_name == "constr" else None
    if inspect.isroutine(target):  # a type maker: pydantic.constr, conint, ...
        target = target(**parameters)
    elif parameters:
        raise ValueError(f"{fq_type_name} takes no validation parameters, got {parameters}")
    if regex is not None:
        target = Annotated[target, pydantic.AfterValidator(_matching(str(regex)))]
    pydantic.TypeAdapter(target).validate_python(value)


def _matching(regex: str) -> Any:
    pattern = re.compile(regex)

    def check(text: str) -> str:
        if pattern.match(text) is None:
            raise ValueError(f"String should match pattern '{regex}'")
        return text

    return check
