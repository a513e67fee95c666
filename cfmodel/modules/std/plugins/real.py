"""cfmodel's implementations of the real std's plugins that in inmanta reach into its compiler or server.

When the real ``std`` module is used (installed, or on the module path), these replace the
plugins of the same name (`cfmodel.transforms.cf.refine.pluginrt` loads them after the
real std's code): ``template``, ``file`` and ``source`` are the built-in std's (Jinja2 in
the calling scope, inmanta's whitespace: the template's last newline dropped); ``getfact``
reads a *resource's* fact, as inmanta's does: facts come from the server once the
resource is deployed, and cfmodel compiles without a server, so the fact is Unknown (or
*default_value* when one is given) — inmanta's answer when its server cannot be reached.
"""

from __future__ import annotations

from cfmodel.modules.std.plugins import file, source, template
from cfmodel.plugins import PluginError, Unknown, plugin
from cfmodel.transforms.cf.export import resource_id_of

__all__ = ["file", "getfact", "source", "template"]


@plugin
def getfact(resource: object, fact_name: str, default_value: object | None = None) -> object:
    """The fact *fact_name* of *resource* (an instance of a resource entity): Unknown, or the default."""
    if resource_id_of(resource) is None:
        raise PluginError("Facts can only be retrieved from resources.")
    return default_value if default_value is not None else Unknown(source=fact_name)
