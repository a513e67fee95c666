"""``inmanta.const``: the constants module code refers to at compile time."""

from __future__ import annotations

import enum

PLUGINS_PACKAGE = "inmanta_plugins"
NAME_RESOURCE_ACTION_LOGGER = "resource_action_logger"


class ResourceState(enum.StrEnum):
    unavailable = "unavailable"
    skipped = "skipped"
    dry = "dry"
    deployed = "deployed"
    failed = "failed"
    deploying = "deploying"
    available = "available"
    cancelled = "cancelled"
    undefined = "undefined"
    skipped_for_undefined = "skipped_for_undefined"


class Change(enum.StrEnum):
    nochange = "nochange"
    created = "created"
    purged = "purged"
    updated = "updated"


class LogLevel(enum.StrEnum):
    CRITICAL = "CRITICAL"
    ERROR = "ERROR"
    WARNING = "WARNING"
    INFO = "INFO"
    DEBUG = "DEBUG"
    TRACE = "TRACE"
