"""Hand-built metamodels and instance models used by the serializer and EMF tests."""

from __future__ import annotations

from datetime import UTC, datetime
from decimal import Decimal
from typing import Any

from pyecore.ecore import (
    EAnnotation,
    EAttribute,
    EBigDecimal,
    EBigInteger,
    EBoolean,
    EClass,
    EDataType,
    EDate,
    EDouble,
    EEnum,
    EFloat,
    EInt,
    EIntegerObject,
    ELong,
    EObject,
    EPackage,
    EReference,
    EShort,
    EString,
)

from cfmodel.serializers.base import ncname_id


def infra_package() -> EPackage:
    """A small domain metamodel shaped like what the lift transform will derive."""
    pkg = EPackage("infra", nsURI="http://cfmodel.example/infra", nsPrefix="infra")
    pkg.eAnnotations.append(_annotation("cfmodel", {"source": "main.cf", "line": "3"}))
    port = EDataType("Port", instanceClassName="int")
    state = EEnum("State", literals=["up", "down", "unknown"])
    entity = EClass("Entity", abstract=True)
    entity.eStructuralFeatures.append(EAttribute("name", EString, lower=1))
    host = EClass("Host", superclass=(entity,))
    host.eStructuralFeatures += [
        EAttribute("port", port, defaultValueLiteral="80"),
        EAttribute("cpus", EInt, defaultValueLiteral="2"),
        EAttribute("memory", ELong),
        EAttribute("load", EDouble),
        EAttribute("ratio", EFloat),
        EAttribute("enabled", EBoolean, defaultValueLiteral="true"),
        EAttribute("state", state),
        EAttribute("created", EDate),
        EAttribute("price", EBigDecimal),
        EAttribute("serial", EBigInteger),
        EAttribute("prio", EIntegerObject),
        EAttribute("weight", EShort),
        EAttribute("tags", EString, upper=-1),
    ]
    file_ = EClass("File", superclass=(entity,))
    file_.eStructuralFeatures.append(EAttribute("content", EString))
    files = EReference("files", file_, upper=-1, containment=True)
    owner = EReference("host", host, lower=0, upper=1)
    files.eOpposite = owner
    host.eStructuralFeatures.append(files)
    file_.eStructuralFeatures.append(owner)
    peers = EReference("peers", host, upper=-1)
    peer_of = EReference("peerOf", host, upper=-1)
    peers.eOpposite = peer_of
    host.eStructuralFeatures += [peers, peer_of]
    host.eStructuralFeatures.append(EReference("primary", file_))
    cluster = EClass("Cluster", superclass=(entity,))
    cluster.eStructuralFeatures.append(EReference("hosts", host, upper=-1))
    pkg.eClassifiers.extend([port, state, entity, host, file_, cluster])
    return pkg


def _annotation(source: str, details: dict[str, str]) -> EAnnotation:
    a = EAnnotation(source)
    for k, v in details.items():
        a.details[k] = v
    return a


def klass(pkg: EPackage, name: str) -> Any:
    return pkg.getEClassifier(name)


def infra_model(pkg: EPackage, hosts: int = 3) -> list[EObject]:
    """Roots: hosts with files, peers in a ring, one cluster listing every host."""
    host_c, file_c, cluster_c, state = (klass(pkg, n) for n in ("Host", "File", "Cluster", "State"))
    made = []
    for i in range(hosts):
        h = host_c(name=f"web{i}", cpus=i, memory=2**40 + i, load=0.1 * i, ratio=0.5, enabled=i % 2 == 0)
        h.state = state.getEEnumLiteral("down") if i else state.getEEnumLiteral("up")
        h.created = datetime(2024, 1, 2, 3, 4, 5, 678000 + i, tzinfo=UTC)
        h.price = Decimal("12.50")
        h.serial = 10**30 + i
        h.tags.extend([f"t{i}", 'quote " & <amp>', "line\nbreak\ttab"])
        h.weight = 7
        if i == 1:
            h.prio = 5
            h.port = 80  # equal to the default literal: must still reach EMF as 80
        for j in range(2):
            h.files.append(file_c(name=f"/etc/f{j}", content=f"x={j}\n"))
        h.primary = h.files[0]
        made.append(h)
    for i, h in enumerate(made):
        h.peers.append(made[(i + 1) % hosts])
    cluster = cluster_c(name="c1")
    cluster.hosts.extend(made)
    return [*made, cluster]


def infra_ids(obj: EObject) -> str | None:
    """Ids from index keys: the name for hosts and clusters; files stay positional."""
    if obj.eClass.name in ("Host", "Cluster"):
        return ncname_id(f"{obj.eClass.name}:{obj.name}")
    return None


def tree_packages() -> tuple[EPackage, EPackage]:
    """Two packages with the same nsPrefix: ``base`` (an abstract ``Named``, a ``Thing``) and
    ``app`` (a ``Node`` with nested containment, a container reference, a bidirectional
    many-to-many pair, a single containment and a many-valued attribute)."""
    base = EPackage("base", nsURI="http://cfmodel.example/base", nsPrefix="base")
    named = EClass("Named", abstract=True)
    named.eStructuralFeatures.append(EAttribute("name", EString))
    thing = EClass("Thing", superclass=(named,))
    base.eClassifiers.extend([named, thing])
    app = EPackage("app", nsURI="http://cfmodel.example/app", nsPrefix="base")
    node = EClass("Node", superclass=(named,))
    kids = EReference("kids", node, upper=-1, containment=True)
    parent = EReference("parent", node)
    kids.eOpposite = parent
    out_, in_ = EReference("out", node, upper=-1), EReference("in", node, upper=-1)
    out_.eOpposite = in_
    one = EReference("one", node, containment=True)
    node.eStructuralFeatures += [kids, parent, out_, in_, one, EAttribute("vals", EInt, upper=-1)]
    app.eClassifiers.append(node)
    return base, app


def tree_model(base: EPackage, app: EPackage) -> list[EObject]:
    node, thing = klass(app, "Node"), klass(base, "Thing")
    root = node(name="r")
    root.kids.append(node(name="k"))
    root.kids[0].kids.append(node(name="kk"))
    root.one = node(name='o"<&>\n')
    root.kids[0].kids[0].out.append(root.one)
    root.vals.extend([3, 1, 2])
    other = node(name="other")
    other.out.append(root.kids[0])
    other.one = node(name="deep")
    other.one.kids.append(node(name="d2"))
    return [root, thing(name="t"), other]
