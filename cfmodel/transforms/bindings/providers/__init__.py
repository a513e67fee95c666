"""Bindings providers: turn a layer's ``include``/``exclude`` URIs into bindings models.

One module per concern:

* ``base``: the ``BindingsProvider`` interface, ``load_layers`` (a site's layers resolved
  with providers), ``BindingsBuilder`` (models built from data, with spans);
* ``folders``: ``confdir:`` (the project's ``bindings/``) and ``module:`` (each module's
  ``bindings/``), with ``*`` and ``**`` wildcards;
* ``enc``: ``enc:``, an external node classifier's classes, parameters and variables;
* ``hiera``, ``merges``: ``hiera:``, Hiera 5 data and its merge behaviours;
* ``project``: a project's layout and settings, plugged-in providers (entry points of
  ``cfmodel.bindings_providers``), and ``create_injector`` chaining it all.

Error codes: ``unknown-scheme``, ``bindings-not-found``, ``bindings-name-mismatch``,
``enc-failed``, ``enc-unknown-part``, ``hiera-config``, ``hiera-unsupported``, ``hiera-data``,
``hiera-interpolation``, ``hiera-merge``, ``bad-project``, ``provider-failed``, plus the
parser's ``syntax`` and ``load``.
"""

from __future__ import annotations

from cfmodel.transforms.bindings.providers.base import (
    BindingsBuilder,
    BindingsProvider,
    LoadedLayers,
    ProviderContext,
    load_layers,
)
from cfmodel.transforms.bindings.providers.enc import EncData, EncProvider, enc_bindings, read_enc
from cfmodel.transforms.bindings.providers.folders import (
    BINDINGS_DIR,
    SUFFIX,
    ConfdirProvider,
    ModuleProvider,
)
from cfmodel.transforms.bindings.providers.hiera import HieraProvider, Hierarchy
from cfmodel.transforms.bindings.providers.merges import Merge, parse_merge
from cfmodel.transforms.bindings.providers.project import (
    DEFAULT_LAYERS,
    ENTRY_POINT_GROUP,
    SITE_FILE,
    ProjectBindings,
    ProjectSettings,
    ProviderFactory,
    create_injector,
    default_layers,
    forcing_merges,
    load_project,
    project_default_layers,
    providers_for,
    read_settings,
)

__all__ = [
    "BINDINGS_DIR",
    "DEFAULT_LAYERS",
    "ENTRY_POINT_GROUP",
    "SITE_FILE",
    "SUFFIX",
    "BindingsBuilder",
    "BindingsProvider",
    "ConfdirProvider",
    "EncData",
    "EncProvider",
    "HieraProvider",
    "Hierarchy",
    "LoadedLayers",
    "Merge",
    "ModuleProvider",
    "ProjectBindings",
    "ProjectSettings",
    "ProviderContext",
    "ProviderFactory",
    "create_injector",
    "default_layers",
    "enc_bindings",
    "forcing_merges",
    "load_layers",
    "load_project",
    "parse_merge",
    "project_default_layers",
    "providers_for",
    "read_enc",
    "read_settings",
]
