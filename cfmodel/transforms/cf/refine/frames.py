"""Lexical scopes: one `Frame` per executed block.

A block (a namespace's top level, an implementation body, a branch of ``if``, the
body of ``for``, an anonymous implementation) declares the variables assigned in it;
they exist from the moment the block starts, so a statement can read a variable
before the statement that sets it has run. Name lookup walks outwards: the block's
own variables, then (in an implementation) ``self`` and the instance's attributes
and relations, then the enclosing blocks, ending at the namespace's variables.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from cfmodel.errors import Span
from cfmodel.grammars import nodes
from cfmodel.transforms.cf.refine.values import Constant, Instance, Slot, Var

if TYPE_CHECKING:
    from cfmodel.transforms.cf.program import LinkedNamespace

Declared = dict[str, Span]


def declared_by(statements: list[nodes.Statement]) -> Declared:
    """The variables a block declares (name → span of the first assignment).

    The compile caches it per block (`Evaluator.declared_in`)."""
    declared: Declared = {}
    for statement in statements:
        if isinstance(statement, nodes.Assignment) and isinstance(statement.target, nodes.Reference):
            name = statement.target.name.text
            if "::" not in name and name not in declared:
                declared[name] = statement.target.span
    return declared


class Frame:
    """The variables of one executed block and the way out to the enclosing ones."""

    __slots__ = ("declared", "instance", "ns", "parent", "selfslot", "vars")

    def __init__(
        self,
        declared: Declared,
        parent: Frame | None,
        ns: LinkedNamespace,
        instance: Instance | None = None,
        selfslot: Slot | None = None,
    ) -> None:
        self.vars: dict[str, Var] = {}
        self.declared = declared
        self.parent = parent
        self.ns = ns
        self.instance = instance
        self.selfslot = (
            selfslot if selfslot is not None else (Constant(instance) if instance is not None else None)
        )

    def lookup(self, name: str) -> Slot | None:
        """The slot a plain name means here, or None."""
        frame: Frame | None = self
        while frame is not None:
            if name in frame.declared:
                var = frame.vars.get(name)
                if var is None:
                    var = frame.vars[name] = Var(name)
                return var
            if frame.selfslot is not None and name == "self":
                return frame.selfslot
            instance = frame.instance
            if instance is not None:
                slot = instance.slot(name)
                if slot is not None:
                    return slot
            frame = frame.parent
        return None

    def own(self, name: str) -> Var:
        """The variable *name* of this very block (assignments always target it)."""
        var = self.vars.get(name)
        if var is None:
            var = self.vars[name] = Var(name)
        return var
