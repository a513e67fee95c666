"""``cfmodel cache info`` and ``cfmodel cache clear``: the parse cache (`cfmodel.cache`).

``info`` prints where the cache is, how many entries it holds, their size against the cap
(``$CFMODEL_CACHE_SIZE``), when the least and the most recently used entry were last used,
and whether this user's signing key is usable; ``--format json`` prints the same as one
JSON object. ``clear`` removes every entry (the signing key stays) and says how many and
how many bytes. Both honour ``--cache-dir``. A ``$CFMODEL_CACHE_SIZE`` that is not a size
is a usage error (exit 2).
"""

from __future__ import annotations

import argparse
import json
import time

from cfmodel.cache import ParseCache
from cfmodel.commands import SubParsers
from cfmodel.commands._options import add_format_option, parse_cache

ORDER = 85


def _cache(args: argparse.Namespace) -> ParseCache:
    cache = parse_cache(argparse.Namespace(cache_dir=args.cache_dir))  # --no-cache: still this cache
    assert cache is not None
    return cache


def human_size(size: int) -> str:
    """``1536`` -> ``1.5 KiB``: bytes for people (powers of 1024)."""
    value = float(size)
    for unit in ("bytes", "KiB", "MiB", "GiB"):
        if value < 1024 or unit == "GiB":
            return f"{size} bytes" if unit == "bytes" else f"{value:.1f} {unit}"
        value /= 1024
    raise AssertionError("unreachable")


def _when(ns: int | None) -> str | None:
    return None if ns is None else time.strftime("%Y-%m-%d %H:%M:%S", time.localtime(ns / 1e9))


def cmd_info(args: argparse.Namespace) -> int:
    info = _cache(args).info()
    if args.format == "json":
        document = {
            "directory": str(info.directory),
            "entries": info.entries,
            "bytes": info.size,
            "max_bytes": info.max_bytes,
            "oldest_use": _when(info.oldest_use),
            "newest_use": _when(info.newest_use),
            "signing_key": info.signed,
        }
        print(json.dumps(document, indent=2))
        return 0
    share = f" ({100 * info.size / info.max_bytes:.0f} %)" if info.max_bytes else ""
    print(f"parse cache: {info.directory}")
    print(f"entries:     {info.entries:,}")
    print(f"size:        {human_size(info.size)} of {human_size(info.max_bytes)}{share}")
    if info.entries:
        print(f"used:        {_when(info.oldest_use)} (least recently) to {_when(info.newest_use)}")
    if not info.signed:
        print("signing key: not usable (the cache is off; see docs/security.md)")
    return 0


def cmd_clear(args: argparse.Namespace) -> int:
    entries, size = _cache(args).clear()
    print(f"removed {entries:,} entr{'y' if entries == 1 else 'ies'} ({human_size(size)})")
    return 0


def register(sub: SubParsers, common: argparse.ArgumentParser) -> None:
    cache = sub.add_parser("cache", help="the parse cache: its size, or empty it")
    cache_sub = cache.add_subparsers(dest="cache_command", metavar="COMMAND")
    cache_sub.required = True
    p = cache_sub.add_parser("info", parents=[common], help="where the parse cache is, its entries and size")
    add_format_option(p)
    p.set_defaults(func=cmd_info)
    p = cache_sub.add_parser("clear", parents=[common], help="remove every entry of the parse cache")
    p.set_defaults(func=cmd_clear)
