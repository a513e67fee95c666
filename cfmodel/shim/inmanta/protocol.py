"""``inmanta.protocol``: the server's client is deploy-time API; `endpoints` imports, never connects."""

from __future__ import annotations

from types import SimpleNamespace
from typing import Any

from . import deploy_time_only


class _Client:
    def __init__(self, *args: Any, **kwargs: Any) -> None:
        raise deploy_time_only("the server client")


endpoints = SimpleNamespace(Client=_Client, SyncClient=_Client)
