"""Evaluation: the value of every expression that runs (the function engine's first values).

Input: the `Resolution` (scope), the `Typing` (unify), the function `Library` and the
`World` (facts, files). Output: an `Evaluator` whose ``value(expr, frame)`` is the first
value of the expression's stream, as mgmt's engine produces it and mgmt's own language
tests take it: every built-in function runs as a generator and its first value is used.
Binds are computed once per run of their owner (the top level, one iteration of a loop,
one call of a function) and kept in that run's `Frame`.

Values: bool, str, int (int64: arithmetic wraps as Go's does), float, list (a tuple),
map (a dict), struct (`core.Struct`, a dict in field order), function (`Closure`).

Errors (``mcl-runtime``, a `RuntimeFailure`): a stream failed (a function raised,
produced no value), an index out of range or a key missing without ``|| default``,
division by zero, a call nested too deeply.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from cfmodel.errors import CfEvaluationError, Span
from cfmodel.grammars import mcl_nodes as n
from cfmodel.transforms.mcl.core import Struct
from cfmodel.transforms.mcl.funcs import Function, StreamError, Value, World, first_value
from cfmodel.transforms.mcl.scope import Binding, Constant, LoopVar, Owner, Resolution
from cfmodel.transforms.mcl.types import FLOAT
from cfmodel.transforms.mcl.unify import Typing

MAX_DEPTH = 200


_METHODS = {cls: "eval_" + re.sub(r"(?<!^)(?=[A-Z])", "_", cls.__name__).lower() for cls in n.Expr.__args__}


class RuntimeFailure(CfEvaluationError):  # noqa: N818 - the stage's failure, not a Python error
    code = "mcl-runtime"


class Frame:
    """One run of an owner (top level, a loop iteration, a function call)."""

    __slots__ = ("owner", "parent", "values")

    def __init__(self, owner: Owner, parent: Frame | None, values: dict[object, Value] | None = None) -> None:
        self.owner = owner
        self.parent = parent
        self.values: dict[object, Value] = values if values is not None else {}

    def find_run(self, owner: Owner) -> Frame:
        frame: Frame | None = self
        while frame is not None:
            if frame.owner is owner:
                return frame
            frame = frame.parent
        raise AssertionError(f"no run of {owner!r} encloses this use")  # scope guarantees one


@dataclass(eq=False)
class Closure:
    """A function value: a literal and the run it was made in."""

    func: n.FuncLit
    frame: Frame

    def __repr__(self) -> str:
        return "func"


_INT_BITS = 1 << 64


def wrap_int(value: int) -> int:
    """Go's int64 wrap-around."""
    value &= _INT_BITS - 1
    return value - _INT_BITS if value >= 1 << 63 else value


class Evaluator:
    def __init__(self, resolution: Resolution, typing: Typing, world: World) -> None:
        self.res = resolution
        self.typing = typing
        self.world = world
        self.depth = 0
        self.computing: set[tuple[int, object]] = set()
        self.call_span: Span | None = None
        world.caller = self.call_value

    def fail(self, span: Span | None, message: str) -> RuntimeFailure:
        return RuntimeFailure(message, span, "mcl-runtime")

    # --- bindings -------------------------------------------------------------------------

    def binding_value(self, binding: Binding, frame: Frame, span: Span) -> Value:
        if isinstance(binding, Constant):
            return binding.value
        if isinstance(binding, LoopVar):
            return frame.find_run(binding.loop).values[binding]
        if isinstance(binding, n.Param) and binding not in self.res.class_args:
            return self._argument(frame, binding)
        run = frame.find_run(self.res.owner.get(binding))
        if binding in run.values:
            return run.values[binding]
        expr = self.res.class_args[binding] if isinstance(binding, n.Param) else binding.value
        key = (id(run), binding)
        if key in self.computing:  # scope refuses cycles; a guard against a bug looping forever
            raise self.fail(span, "recursive reference")
        self.computing.add(key)
        try:
            value = self.value(expr, run)
        finally:
            self.computing.discard(key)
        run.values[binding] = value
        return value

    @staticmethod
    def _argument(frame: Frame, param: n.Param) -> Value:
        run: Frame | None = frame
        while run is not None:
            if param in run.values:
                return run.values[param]
            run = run.parent
        raise AssertionError("a function parameter outside its call")  # scope guarantees a call

    # --- expressions ----------------------------------------------------------------------

    def value(self, node: n.Expr, frame: Frame) -> Value:
        method = getattr(self, _METHODS[type(node)])
        return method(node, frame)

    def eval_bool_lit(self, node: n.BoolLit, frame: Frame) -> Value:
        return node.value

    eval_int_lit = eval_float_lit = eval_str_lit = eval_bool_lit

    def eval_interpolated(self, node: n.Interpolated, frame: Frame) -> Value:
        return "".join(self.value(part, frame) for part in node.parts)

    def eval_list_lit(self, node: n.ListLit, frame: Frame) -> Value:
        return tuple(self.value(item, frame) for item in node.items)

    def eval_map_lit(self, node: n.MapLit, frame: Frame) -> Value:
        return {self.value(p.key, frame): self.value(p.value, frame) for p in node.pairs}

    def eval_struct_lit(self, node: n.StructLit, frame: Frame) -> Value:
        return Struct((name, self.value(value, frame)) for name, value in node.fields)

    def eval_var(self, node: n.Var, frame: Frame) -> Value:
        return self.binding_value(self.res.targets[node], frame, node.span)

    def eval_func_lit(self, node: n.FuncLit, frame: Frame) -> Value:
        return Closure(node, frame)

    def eval_if_expr(self, node: n.IfExpr, frame: Frame) -> Value:
        branch = node.then if self.value(node.condition, frame) else node.otherwise
        return self.value(branch, frame)

    def eval_not(self, node: n.Not, frame: Frame) -> Value:
        return not self.value(node.operand, frame)

    def eval_binary(self, node: n.Binary, frame: Frame) -> Value:
        op = node.op
        left = self.value(node.left, frame)
        if op == "and":  # both operands are typed; mgmt evaluates both, the result is the same
            return bool(left) and bool(self.value(node.right, frame))
        if op == "or":
            return bool(left) or bool(self.value(node.right, frame))
        right = self.value(node.right, frame)
        if op == "in":
            return left in right
        if op == "==":
            return left == right
        if op == "!=":
            return left != right
        if op in ("<", ">", "<=", ">="):
            return {"<": left < right, ">": left > right, "<=": left <= right, ">=": left >= right}[op]
        is_float = self.typing.types.get(node) == FLOAT
        if op == "+":
            result = left + right
        elif op == "-":
            result = left - right
        elif op == "*":
            result = left * right
        else:
            if right == 0:
                raise self.fail(node.span, f"division by zero in `{op}`")
            if is_float:
                result = left / right
            else:
                quotient = abs(left) // abs(right)
                result = quotient if (left >= 0) == (right >= 0) else -quotient
        if isinstance(result, int) and not isinstance(result, bool):
            return wrap_int(result)
        return result

    def eval_index(self, node: n.Index, frame: Frame) -> Value:
        target = self.value(node.target, frame)
        index = self.value(node.index, frame)
        if isinstance(target, tuple):
            if 0 <= index < len(target):
                return target[index]
            if node.default is not None:
                return self.value(node.default, frame)
            raise self.fail(node.span, f"index {index} out of range (the list has {len(target)} items)")
        if index in target:
            return target[index]
        if node.default is not None:
            return self.value(node.default, frame)
        raise self.fail(node.span, f"key {index!r} not found in the map")

    def eval_field_lookup(self, node: n.FieldLookup, frame: Frame) -> Value:
        target = self.value(node.target, frame)
        if node.field in target:
            return target[node.field]
        if node.default is not None:
            return self.value(node.default, frame)
        raise self.fail(node.span, f"struct has no field {node.field!r}")

    def eval_call(self, node: n.Call, frame: Frame) -> Value:
        args = [self.value(arg, frame) for arg in node.args]
        target = self.res.calls.get(node)
        if isinstance(target, Function):
            outer, self.call_span = self.call_span, node.span
            self.world.signature = self.typing.signatures.get(node)
            try:
                return first_value(target, self.world, args)
            except StreamError as err:
                raise self.fail(node.span, str(err)) from None
            finally:
                self.call_span = outer
        if isinstance(target, n.FuncLit):
            parent = frame.find_run(self.res.owner.get(target))
            return self.apply(Closure(target, parent), args, node.span)
        if node.callee is not None:
            callee = self.value(node.callee, frame)
        else:
            callee = self.binding_value(self.res.call_targets[node], frame, node.span)
        assert isinstance(callee, Closure)
        return self.apply(callee, args, node.span)

    def call_value(self, function: Value, args: list[Value]) -> Value:
        """A built-in calling a function value it was given (``iter.map``)."""
        assert isinstance(function, Closure) and self.call_span is not None
        return self.apply(function, args, self.call_span)

    def apply(self, closure: Closure, args: list[Value], span: Span) -> Value:
        if self.depth >= MAX_DEPTH:
            raise self.fail(span, f"function calls nested deeper than {MAX_DEPTH}")
        values: dict[object, Value] = {
            param: arg for param, arg in zip(closure.func.params, args, strict=True)
        }
        run = Frame(closure.func, closure.frame, values)
        self.depth += 1
        try:
            return self.value(closure.func.body, run)
        finally:
            self.depth -= 1
