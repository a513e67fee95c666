"""The ``trusted`` hash of a request, derived as Puppet derives ``$trusted``.

Puppet never reads a fact named ``trusted``: ``$trusted`` (``%{trusted.certname}`` in Hiera,
``$::trusted`` in bindings) comes from the node's certificate name and the extensions of its
certificate. cfmodel has no certificates, so the request gives them: the certname is
``--node NAME`` (``puppet lookup --node``), else the fact ``clientcert``; the extensions (and
an explicit certname) come from a trusted facts file (``--trusted-facts FILE``, a YAML or
JSON mapping with ``certname`` and ``extensions``).

After ``with_trusted(facts, ...)``: ``facts["trusted"]`` is a ``TrustedFacts`` with
``certname``, ``hostname`` and ``domain`` (the certname split at its first dot, as Puppet
splits it; empty strings when there is no certname), ``authenticated`` (``"local"``, what
``puppet lookup`` gives), ``extensions`` and ``external`` (``{}`` unless the file gives
them); a ``clientcert`` fact is set to the certname when the facts have none; a fact named
``trusted`` given by the user is replaced (the returned notes say so). ``trusted_of(facts)``
reads that hash, deriving it from ``clientcert`` for facts that never went through
``with_trusted`` (the Python API), so every reader sees the same ``trusted``.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

TRUSTED = "trusted"
FILE_KEYS = ("certname", "extensions", "external")


class TrustedError(Exception):
    """The request's node, facts and trusted facts file do not agree (a usage mistake)."""


class TrustedFacts(dict[str, Any]):
    """The ``trusted`` hash cfmodel derived (a plain fact of that name is never one)."""


def derive(certname: str | None, extensions: Mapping[str, Any] | None = None,
           external: Mapping[str, Any] | None = None) -> TrustedFacts:  # fmt: skip
    """The trusted hash of a node with this certname."""
    name = certname or ""
    hostname, _, domain = name.partition(".")
    return TrustedFacts(
        authenticated="local",
        certname=name,
        domain=domain,
        extensions=dict(extensions or {}),
        external=dict(external or {}),
        hostname=hostname,
    )


def with_trusted(
    facts: Mapping[str, Any], node: str | None = None, trusted_file: Mapping[str, Any] | None = None
) -> tuple[dict[str, Any], list[str]]:
    """The facts with their ``trusted`` hash, and notes for the user.

    Raises:
        TrustedError: ``--node``, the fact ``clientcert`` and the file's certname disagree,
            or the file has keys Puppet's trusted hash has not.
    """
    notes: list[str] = []
    file = dict(trusted_file or {})
    unknown = sorted(set(file) - set(FILE_KEYS))
    if unknown:
        known = ", ".join(FILE_KEYS)
        raise TrustedError(f"the trusted facts file has unknown keys {', '.join(unknown)} (known: {known})")
    for key in ("extensions", "external"):
        if key in file and not isinstance(file[key], dict):
            raise TrustedError(f"the trusted facts file's {key} must be a mapping")
    named = {
        "--node": node,
        "the trusted facts file's certname": file.get("certname"),
        "the fact clientcert": facts.get("clientcert"),
    }
    given = {source: str(name) for source, name in named.items() if name not in (None, "")}
    if len(set(given.values())) > 1:
        said = ", ".join(f"{source} {name!r}" for source, name in given.items())
        raise TrustedError(f"the node's certname is given twice, differently: {said}")
    certname = next(iter(given.values()), None)
    result = dict(facts)
    user_trusted = result.get(TRUSTED)
    if user_trusted is not None and not isinstance(user_trusted, TrustedFacts):
        notes.append("the fact 'trusted' is ignored: trusted data comes from --node and --trusted-facts")
    result[TRUSTED] = derive(certname, file.get("extensions"), file.get("external"))
    if certname is not None and "clientcert" not in result:
        result["clientcert"] = certname
    return result, notes


def trusted_of(facts: Mapping[str, Any]) -> TrustedFacts:
    """The request's trusted hash (derived from ``clientcert`` when ``with_trusted`` was not used)."""
    trusted = facts.get(TRUSTED)
    if isinstance(trusted, TrustedFacts):
        return trusted
    certname = facts.get("clientcert")
    return derive(str(certname) if certname not in (None, "") else None)


def request_facts(facts: Mapping[str, Any]) -> dict[str, Any]:
    """The facts as bindings and providers read them: ``trusted`` is always the derived hash."""
    if isinstance(facts.get(TRUSTED), TrustedFacts):
        return dict(facts)
    return {**facts, TRUSTED: trusted_of(facts)}
