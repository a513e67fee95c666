"""Shared graphs for the resource graph tests."""

from __future__ import annotations

from cfmodel.errors import Span
from cfmodel.metamodel.resource_graph import ResourceGraph
from cfmodel.transforms.graph import GraphBuilder, Provenance


def at(line: int, statement: str = "", producer: str = "") -> Provenance:
    return Provenance(Span("main.cf", line, 1, line, 20), producer, statement)


def webshop_graph() -> ResourceGraph:
    """Two hosts: a package, its config file (notifying the service) and a service each."""
    b = GraphBuilder("webshop", language="cf")
    for n, host in enumerate(("db1", "web1")):
        base = 10 * n
        pkg = b.resource(
            "std::Package",
            "nginx",
            agent=host,
            key="name",
            attributes={"state": "installed"},
            provenance=at(base + 1, "std::Package(name='nginx')", f"__config__::Host[name={host}]"),
        )
        conf = b.resource(
            "std::File",
            "/etc/nginx.conf",
            agent=host,
            key="path",
            attributes={
                "content": "listen 80;\n",
                "mode": 420,
                "owner": None,
                "tags": ["a", 1, 1.5, True],
                "env": {"PORT": 80, "DEBUG": False},
            },
            meta={"purge_on_delete": False},
            provenance=at(base + 2, "std::File(path='/etc/nginx.conf')"),
        )
        svc = b.resource(
            "std::Service",
            "nginx",
            agent=host,
            key="name",
            provenance=at(base + 3, "std::Service(name='nginx')"),
        )
        b.requires(conf, pkg, at(base + 4, "conf.requires = pkg"))
        b.notify(conf, svc, at(base + 5, "conf.notify = svc"))
    b.send_recv(
        "std::File[web1,path=/etc/nginx.conf]",
        "content",
        "std::Service[db1,name=nginx]",
        "reload",
        at(30, "send/recv"),
    )
    return b.build()
