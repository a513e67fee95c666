"""``enc:``: bindings from an external node classifier (a Puppet-style ENC).

The classifier's answer is YAML (or JSON) in Puppet's ENC format::

    classes:              # a list of names, or a mapping of name to its parameters
      ntp: { servers: [a, b] }
      apache:
    parameters:           # top scope variables
      datacenter: ams
    environment: production   # read, not used here (environments choose themselves)

It comes from a file (``EncProvider.from_file``), from a command run with the node's name
as its only argument (``EncProvider.from_command``: exit code 0 and the YAML on stdout, as
Puppet runs an ENC; a name from the facts that starts with ``-`` is refused, never passed
as an option; the answer is read with `cfmodel.inputs` limits), or from data the caller
already has (``EncProvider(EncData(...))``).

It becomes one ``bindings enc`` (``enc::classes`` ... for one part): ``include`` of the
classes, ``bind parameters <class> to {...}`` per class with parameters, ``bind variables
to {...}``. ``enc:``, ``enc:/`` and ``enc:/*`` are all of it; ``enc:/classes``,
``enc:/parameters``, ``enc:/variables`` one part. Every element's span points at its line in
the file (``<enc: command node>`` for a command).

Error codes: ``enc-failed`` (cannot read or run, exit code, invalid YAML, wrong shape),
``enc-unknown-part``.
"""

from __future__ import annotations

import subprocess
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import yaml

from cfmodel.errors import CfLoadError, Diagnostics, Span
from cfmodel.grammars.bindings import ParsedBindings
from cfmodel.inputs import decode_text, load_yaml, read_text, yaml_problem
from cfmodel.transforms.bindings.compose import Value
from cfmodel.transforms.bindings.providers.base import BindingsBuilder, file_span, json_marks, yaml_marks

PARTS = ("classes", "parameters", "variables")
NODE_FACTS = ("clientcert", "certname", "fqdn")


@dataclass(frozen=True, slots=True)
class EncData:
    """What a classifier said: classes, their parameters, top scope variables; and where."""

    classes: tuple[str, ...] = ()
    parameters: Mapping[str, Mapping[str, Value]] = field(default_factory=dict)
    variables: Mapping[str, Value] = field(default_factory=dict)
    environment: str | None = None
    source: str = "<enc>"
    marks: Mapping[tuple[Any, ...], tuple[int, int]] = field(default_factory=dict)

    def span(self, *path: Any) -> Span:
        line, col = self.marks.get(path, (1, 1))
        return file_span(self.source, line, col)


def read_enc(text: str, source: str, json_text: bool = False) -> EncData:
    """Read an ENC answer (YAML, or JSON when ``json_text``).

    Raises:
        CfLoadError: ``enc-failed``: not YAML/JSON, or not the ENC shape.
    """
    try:
        data = load_yaml(text)
    except yaml.YAMLError as err:
        mark = getattr(err, "problem_mark", None)
        span = file_span(source, mark.line + 1, mark.column + 1) if mark is not None else file_span(source)
        message = f"the classifier's answer is not valid YAML: {yaml_problem(err)[0]}"
        raise CfLoadError(message, span, "enc-failed") from None
    if data is None:
        data = {}
    marks = json_marks(text) if json_text else yaml_marks(text)
    if not isinstance(data, dict):
        raise CfLoadError("the classifier's answer must be a mapping", file_span(source), "enc-failed")
    classes: Any = data.get("classes") or []
    parameters: dict[str, Mapping[str, Value]] = {}
    if isinstance(classes, dict):
        for name, params in classes.items():
            if params is not None and not isinstance(params, dict):
                line, col = marks.get(("classes", name), (1, 1))
                message = f'the parameters of class "{name}" must be a mapping'
                raise CfLoadError(message, file_span(source, line, col), "enc-failed")
            if params:
                parameters[str(name)] = {str(k): v for k, v in params.items()}
        classes = list(classes)
    variables = data.get("parameters") or {}
    if not isinstance(classes, list) or not isinstance(variables, dict):
        message = "classes must be a list or a mapping, and parameters a mapping"
        raise CfLoadError(message, file_span(source), "enc-failed")
    environment = data.get("environment")
    return EncData(
        tuple(str(c) for c in classes),
        parameters,
        {str(k): v for k, v in variables.items()},
        str(environment) if environment is not None else None,
        source,
        marks,
    )


@dataclass(frozen=True, slots=True)
class EncProvider:
    """``enc:`` over one classifier answer (read lazily, once)."""

    data: EncData | None = None
    file: Path | None = None
    command: Sequence[str] = ()
    node: str | None = None
    timeout: float = 30.0
    scheme: str = "enc"
    _cache: dict[str, EncData] = field(default_factory=dict, compare=False, repr=False)

    @classmethod
    def from_file(cls, file: str | Path) -> EncProvider:
        return cls(file=Path(file))

    @classmethod
    def from_command(cls, command: Sequence[str], facts: Mapping[str, Value]) -> EncProvider:
        node = next((str(facts[f]) for f in NODE_FACTS if isinstance(facts.get(f), str) and facts[f]), None)
        return cls(command=tuple(command), node=node)

    def answer(self) -> EncData:
        """The classifier's answer.

        Raises:
            CfLoadError: ``enc-failed``.
        """
        if "answer" not in self._cache:
            self._cache["answer"] = self._read()
        return self._cache["answer"]

    def _read(self) -> EncData:
        if self.data is not None:
            return self.data
        if self.file is not None:
            try:
                text = read_text(self.file)
            except OSError as err:
                message = f"cannot read the classifier's answer {self.file}: {err.strerror}"
                raise CfLoadError(message, None, "enc-failed") from None
            return read_enc(text, str(self.file), self.file.suffix == ".json")
        return self._run()

    def _run(self) -> EncData:
        label = " ".join(self.command)
        if not self.node:
            message = f"the classifier '{label}' needs the node's name: give a fact {', '.join(NODE_FACTS)}"
            raise CfLoadError(message, None, "enc-failed")
        if self.node.startswith("-") or "\0" in self.node:
            # the node's name comes from the facts: it must never reach the command as an option
            message = f"the node's name {self.node[:60]!r} cannot be given to the classifier '{label}'"
            raise CfLoadError(message, None, "enc-failed")
        try:
            done = subprocess.run(
                [*self.command, self.node], capture_output=True, timeout=self.timeout, check=False
            )
        except (OSError, subprocess.TimeoutExpired) as err:
            raise CfLoadError(f"the classifier '{label}' could not run: {err}", None, "enc-failed") from None
        if done.returncode != 0:
            stderr = done.stderr.decode("utf-8", "replace")
            detail = stderr.strip().splitlines()[-1:] or [f"exit code {done.returncode}"]
            raise CfLoadError(f"the classifier '{label}' failed: {detail[0]}", None, "enc-failed")
        source = f"<enc: {label} {self.node}>"
        return read_enc(decode_text(done.stdout, source), source)

    def load(self, path: str, span: Span | None, diags: Diagnostics) -> list[ParsedBindings]:
        part = path.strip("/")
        if part not in ("", "*", *PARTS):
            message = (
                f'unknown part "enc:/{part}" (use enc:, enc:/classes, enc:/parameters or enc:/variables)'
            )
            diags.error(span, message, "enc-unknown-part")
            return []
        try:
            answer = self.answer()
        except CfLoadError as err:
            diags.error(err.span or span, err.message, err.code)
            return []
        return [enc_bindings(answer, PARTS if part in ("", "*") else (part,))]


def enc_bindings(answer: EncData, parts: Sequence[str] = PARTS) -> ParsedBindings:
    """The ``bindings enc`` of a classifier's answer (only the given parts)."""
    builder = BindingsBuilder(answer.source)
    named = builder.named("enc" if len(parts) == len(PARTS) else "enc::" + "_".join(parts))
    if "classes" in parts and answer.classes:
        builder.classes(named, list(answer.classes), answer.span("classes"))
    if "parameters" in parts:
        for name, values in answer.parameters.items():
            builder.parameters(named, name, values, answer.span("classes", name))
    if "variables" in parts and answer.variables:
        builder.variables(named, answer.variables, answer.span("parameters"))
    return builder.result()
