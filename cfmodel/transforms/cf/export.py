"""Export: a compiled model's resources, as inmanta's exporter makes them (``inmanta export -j``).

Input: a `CompileResult` whose values are still in the evaluator's instances (call this
before ``result.model``), and the resources its modules' code registered
(`cfmodel.resources`: ``@resource``, ``@dependency_manager``). Output: an `Export` with
one `Resource` per exported instance and the desired-state document (`Export.document`):
the list ``inmanta export -j FILE`` writes, each resource a JSON object with its fields,
``id`` (``fs::File[host1,path=/etc/motd],v=0``) and ``requires`` (ids), sorted by id.

What holds after it, as in inmanta:

* every instance of an entity registered as a resource (its subtypes' instances too) is
  one resource, its id made of the agent (the ``agent`` path read from the instance,
  ``host.name``) and the id attribute's value; fields are mapped by
  ``get_<field>(exporter, obj)``, else ``map[field]``, else read from the instance;
* an instance whose id needs an `Unknown` value is left out; one whose mapper raises
  ``IgnoreResourceException`` too (``std::ManagedResource`` with ``managed=false``); a
  field whose value is `Unknown` is exported as null and the resource is listed in
  `Export.undefined` (inmanta marks it undefined);
* ``requires`` are the instance's ``requires`` relation targets that are resources (the
  model carries requires down to the resources it refines into, ``svc.requires =
  self.requires``), then the dependency managers add theirs;
* a reference (Inmanta 20, `cfmodel.references`) in a field is exported as null, and
  recorded in the resource's ``references`` and, with its place, in ``mutators``, as
  inmanta-core 20 does; a reference in the agent or the id attribute is ``export-error``;
* two resources with one id are an error (``duplicate-resource``); a mapper's or
  dependency manager's exception is ``export-error`` at the instance's constructor;
* `Export.graph()` is the resource graph of the export (docs/graph.md), every resource's
  provenance the instance it was exported from.
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Protocol

from cfmodel import moduleimport
from cfmodel.errors import CfEvaluationError
from cfmodel.metamodel.resource_graph import Provenance, ResourceGraph
from cfmodel.plugins import Unknown, UnknownException
from cfmodel.project import BUILTIN, ModuleInfo
from cfmodel.references import ReferenceCollector, is_reference
from cfmodel.resources import (
    DEPENDENCY_MANAGERS,
    Id,
    IgnoreResourceException,
    Resource,
    ResourceException,
    resource,
)
from cfmodel.transforms.cf.refine.errors import fail, show
from cfmodel.transforms.cf.refine.pluginrt import InstanceProxy, to_python
from cfmodel.transforms.cf.refine.values import Instance
from cfmodel.transforms.graph.inmanta import graph_from_export


class CompileResult(Protocol):
    """What the export reads of a compile (`cfmodel.pipeline.CompileResult`)."""

    @property
    def raw_instances(self) -> list[Instance]: ...

    @property
    def modules(self) -> dict[str, ModuleInfo]: ...

    @property
    def root(self) -> Path | None: ...


__all__ = ["Export", "Exporter", "export_resources", "resource_id_of"]


class Exporter:
    """What field mappers receive as *exporter*: files they upload are kept by content hash."""

    def __init__(self) -> None:
        self.files: dict[str, bytes] = {}

    def upload_file(self, content: str | bytes) -> str:
        data = content.encode("utf-8") if isinstance(content, str) else content
        digest = hashlib.sha1(data).hexdigest()
        self.files[digest] = data
        return digest


@dataclass
class Export:
    """The exported resources (sorted by id), the undefined ones, the uploaded files, and problems
    (module files that failed to import: their resources are missing)."""

    resources: list[Resource] = field(default_factory=list)
    undefined: list[str] = field(default_factory=list)
    files: dict[str, bytes] = field(default_factory=dict)
    problems: list[str] = field(default_factory=list)
    #: Where each resource comes from (its id without version -> the exported instance).
    origins: dict[str, Provenance] = field(default_factory=dict)

    def graph(self, name: str = "") -> ResourceGraph:
        """The resource graph of this export (`cfmodel.transforms.graph.inmanta.graph_from_export`),
        each resource's provenance the instance it was exported from."""
        return graph_from_export(self.document, name, "<export>", self.origins.get)

    @property
    def document(self) -> list[dict[str, Any]]:
        return [_plain(r.serialize()) for r in self.resources]

    def json_bytes(self) -> bytes:
        return (json.dumps(self.document, indent=2, sort_keys=True, ensure_ascii=False) + "\n").encode(
            "utf-8"
        )

    def __str__(self) -> str:
        """The export document (``cfmodel export``'s file)."""
        return self.json_bytes().decode("utf-8")

    def __repr__(self) -> str:  # bounded: ``str()`` is the whole document
        undefined = f", {len(self.undefined)} with unknown values" if self.undefined else ""
        return f"<Export: {len(self.resources)} resources{undefined}>"


def _plain(value: Any) -> Any:
    if isinstance(value, Unknown):
        return None
    if isinstance(value, Id):
        return str(value)
    if isinstance(value, list | tuple | set):
        items = [_plain(v) for v in value]
        return sorted(items, key=str) if isinstance(value, set) else items
    if isinstance(value, dict):
        return {str(k): _plain(v) for k, v in value.items()}
    if isinstance(value, InstanceProxy):
        return str(value)
    return value


def _registered_for(instance: Instance) -> Iterator[tuple[str, type[Resource], dict[str, str]]]:
    names = [entity.qualified_name for entity in instance.info.entity.mro]
    for name in names:
        cls, options = resource.get_class(name)
        if cls is not None and options is not None:
            yield name, cls, options


def object_to_id(proxy: InstanceProxy, entity_name: str, cls: type[Resource], options: dict[str, str]) -> Id:
    """The resource id of *proxy* as *entity_name*; `UnknownException` when it needs an unknown value."""
    agent: Any = proxy
    for step in options["agent"].split("."):
        if isinstance(agent, list):
            agent = agent[0]
        agent = getattr(agent, step)
        if isinstance(agent, Unknown):
            raise UnknownException(agent)
        if is_reference(agent):
            raise ResourceException(
                f"the agent of {proxy} ({options['agent']}) is a reference ({show(agent)}): "
                "an agent is known at compile time"
            )
    value = cls.map_field(None, entity_name, options["name"], proxy)
    if isinstance(value, Unknown):
        raise UnknownException(value)
    if is_reference(value):
        raise ResourceException(
            f"the id attribute '{options['name']}' of {proxy} is a reference ({show(value)}): "
            "an id is known at compile time"
        )
    if not isinstance(agent, str):
        raise ResourceException(f"the agent of {proxy} ({options['agent']}) must be a string, not {agent!r}")
    return Id(entity_name, agent, options["name"], str(value))


def resource_id_of(entity: Any) -> str | None:
    """``to_id``: the id of an instance (proxy) whose entity is a resource, else None; without a
    version, as inmanta's ``to_id`` gives it while compiling (its ids have version 0 then)."""
    if not isinstance(entity, InstanceProxy):
        return None
    instance: Instance = object.__getattribute__(entity, "_instance")
    for name, cls, options in _registered_for(instance):
        return object_to_id(entity, name, cls, options).resource_str()
    return None


def load_code(result: CompileResult) -> tuple[set[str], list[str]]:
    """Import every module's Python code (as inmanta does before exporting): the Python packages
    of the project's modules, and a line for each file that failed to import."""
    packages: set[str] = set()
    problems: list[str] = []
    with moduleimport.loading(result.modules, result.root):
        for name, info in sorted(result.modules.items()):
            if info.kind == BUILTIN:
                continue
            packages.add(f"{moduleimport.PACKAGE}.{name}")
            for failure in moduleimport.load_module_code(info)[1]:
                error = failure.error
                problems.append(
                    f"{failure.file}: loading {failure.module} failed: {type(error).__name__}: {error}"
                )
    return packages, problems


def _ours(python_module: str, packages: set[str]) -> bool:
    return any(python_module == p or python_module.startswith(p + ".") for p in packages)


def export_resources(result: CompileResult) -> Export:
    """Make the resources of a compiled model (see the module docstring)."""
    packages, problems = load_code(result)
    exporter = Exporter()
    out = Export(files=exporter.files, problems=problems)
    registered = {
        name: entry for name, entry in resource.registered.items() if _ours(entry[0].__module__, packages)
    }
    by_instance: dict[int, list[Resource]] = {}
    by_id: dict[Id, Resource] = {}
    ignored: set[int] = set()
    instances = result.raw_instances
    for name, (cls, options) in registered.items():
        for instance in instances:
            if not any(e.qualified_name == name for e in instance.info.entity.mro):
                continue
            made = _make(exporter, name, cls, options, instance)
            if made is None:
                ignored.add(id(instance))
                continue
            if made.id in by_id:
                raise fail(
                    f"resource {made.id.resource_str()} exists more than once in the model",
                    instance.span,
                    "duplicate-resource",
                )
            by_id[made.id] = made
            out.origins[made.id.resource_str()] = Provenance(instance.span, f"{instance.info.qname} instance")
            by_instance.setdefault(id(instance), []).append(made)
            if made.unknowns:
                out.undefined.append(made.id.resource_str())
    for made_list in by_instance.values():
        for made in made_list:
            targets = made.model.requires if made.model is not None else []
            for target in targets or []:
                if isinstance(target, InstanceProxy):
                    target_instance = object.__getattribute__(target, "_instance")
                    for required in by_instance.get(id(target_instance), []):
                        made.requires.add(required)
    model = {name: [r.model for r in by_id.values() if r.id.entity_type == name] for name in registered}
    managers = {key: f for key, f in DEPENDENCY_MANAGERS.items() if _ours(f.__module__, packages)}
    for key, manager in sorted(managers.items()):
        try:
            manager(model, by_id)
        except UnknownException:
            continue
        except Exception as error:
            message = f"dependency manager {key} failed: {type(error).__name__}: {error}"
            raise fail(message, None, "export-error") from error
    for made in by_id.values():
        made.requires = {_as_id(r, by_id) for r in made.requires}
    out.resources = sorted(by_id.values(), key=lambda r: str(r.id))
    out.undefined.sort()
    return out


def _as_id(value: Any, by_id: dict[Id, Resource]) -> Id:
    if isinstance(value, Resource):
        return value.id
    if isinstance(value, Id):
        return value
    if isinstance(value, str):
        return Id.parse_id(value)
    raise fail(
        f"a dependency manager put {value!r} into requires (a resource, an Id or a string)",
        None,
        "export-error",
    )


def _make(
    exporter: Exporter, name: str, cls: type[Resource], options: dict[str, str], instance: Instance
) -> Resource | None:
    proxy = to_python(None, instance)
    try:
        made = cls(object_to_id(proxy, name, cls, options))
        collector = ReferenceCollector(made.id.resource_str())
        values: dict[str, Any] = {}
        for field_name in cls.fields:
            value = cls.map_field(exporter, name, field_name, proxy)
            if isinstance(value, Unknown):
                made.unknowns.add(field_name)
            else:
                value = collector.collect_references(value, field_name)
            values[field_name] = value
        values["references"] = collector.sorted_references()
        values["mutators"] = collector.sorted_mutators()
    except (UnknownException, IgnoreResourceException):
        return None
    except CfEvaluationError:
        raise
    except Exception as error:
        message = f"exporting {instance} as resource {name} failed: {type(error).__name__}: {error}"
        raise fail(message, instance.span, "export-error") from error
    made.populate(values)
    made.model = proxy
    return made
