"""cfmodel's stand-in for inmanta-core's compile-time API, imported as ``inmanta``.

`cfmodel.moduleimport` serves this package under the name ``inmanta`` when inmanta-core
itself is not importable, so that module code written for inmanta (``from inmanta.plugins
import plugin``) runs unchanged in cfmodel. What compiling needs behaves as inmanta's
does, on cfmodel's objects: plugins, `Context`, `Unknown`, instance proxies, the
exceptions, resources and their export, dependency managers. What deploying needs
(handlers, agents, the server's client) only imports: calling it raises
`DeployTimeOnly`, because cfmodel never deploys.

Every module of this package uses relative imports only: it is loaded as ``inmanta.*``.
"""

from __future__ import annotations

__all__ = ["DeployTimeOnly"]


class DeployTimeOnly(RuntimeError):  # noqa: N818 - says what it is
    """Deploy-time API of inmanta called while compiling with cfmodel."""


def deploy_time_only(what: str) -> DeployTimeOnly:
    return DeployTimeOnly(
        f"{what} is inmanta's deploy-time API: cfmodel compiles and exports, it never deploys"
    )
