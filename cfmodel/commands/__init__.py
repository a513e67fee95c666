"""The subcommands of ``cfmodel``, one module per area.

Every module in this package defines ``register(sub, common)``: ``sub`` is the
argparse sub-parser collection, ``common`` a parent parser with the options every
command shares (``--no-cache``, ``--cache-dir``). Modules are discovered, so adding
a command never touches ``cfmodel/cli.py``. A module may set ``ORDER`` (default 50)
to place its commands in ``cfmodel --help``.
"""

from __future__ import annotations

import argparse
import importlib
import pkgutil
from collections.abc import Callable
from types import ModuleType
from typing import TypeAlias

Command = Callable[[argparse.Namespace], int]
SubParsers: TypeAlias = "argparse._SubParsersAction[argparse.ArgumentParser]"


def command_modules() -> list[ModuleType]:
    """Every command module, in help order (``ORDER``, then name)."""
    modules = [
        importlib.import_module(f"{__name__}.{info.name}")
        for info in pkgutil.iter_modules(__path__)
        if not info.name.startswith("_")
    ]
    return sorted(modules, key=lambda module: (getattr(module, "ORDER", 50), module.__name__))
