"""``confdir:`` and ``module:``: bindings files in folders, one file per bindings.

``confdir:/a/b`` is ``<root>/bindings/a/b.bind`` holding ``bindings a::b``;
``module:/ntp::a/b`` (or ``ntp::a::b``) is ``<module ntp>/bindings/a/b.bind`` holding
``bindings ntp::a::b``. In a path ``*`` matches one segment and ``**`` any number
(``confdir:/**`` is every file); for ``module:`` the module name may be ``*`` (every module on
the module path: the first folder of a name wins, as for ``.cf`` modules). ``module:/ntp``
alone means ``module:/ntp::default``.

Error codes: ``bindings-not-found`` (a name without wildcards that names no file),
``bindings-name-mismatch`` (a file must hold exactly the bindings it is named after), and
the parser's ``syntax`` and ``load``.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from fnmatch import fnmatchcase
from pathlib import Path

from cfmodel.errors import CfSyntaxError, Diagnostics, Span
from cfmodel.grammars.bindings import ParsedBindings, parse_file

BINDINGS_DIR = "bindings"
SUFFIX = ".bind"


@dataclass(frozen=True, slots=True)
class ConfdirProvider:
    """``confdir:/a/b`` → ``<root>/bindings/a/b.bind`` holding ``bindings a::b``."""

    root: Path
    scheme: str = "confdir"

    def load(self, path: str, span: Span | None, diags: Diagnostics) -> list[ParsedBindings]:
        pattern = path.strip("/").replace("::", "/")
        return load_folder(self.root / BINDINGS_DIR, pattern, "", span, diags)


@dataclass(frozen=True, slots=True)
class ModuleProvider:
    """``module:/<module>::<name>`` → ``<module>/bindings/<name>.bind`` (``*`` for any module)."""

    module_path: Sequence[Path]
    scheme: str = "module"
    _modules: dict[str, Path] = field(default_factory=dict, compare=False, repr=False)

    def modules(self) -> dict[str, Path]:
        """Every module with a ``bindings`` folder, by name (the first on the path wins)."""
        if not self._modules:
            for directory in self.module_path:
                children = sorted(directory.iterdir()) if _is_dir(directory) else []
                for child in children:
                    if _is_dir(child / BINDINGS_DIR):
                        self._modules.setdefault(child.name, child)
        return self._modules

    def load(self, path: str, span: Span | None, diags: Diagnostics) -> list[ParsedBindings]:
        module_pattern, _, rest = path.strip("/").partition("::")
        pattern = rest.replace("::", "/") or "default"
        loaded: list[ParsedBindings] = []
        matched = [name for name in self.modules() if fnmatchcase(name, module_pattern)]
        for name in matched:
            folder = self.modules()[name] / BINDINGS_DIR
            loaded.extend(load_folder(folder, pattern, f"{name}::", span, diags, quiet=True))
        if not loaded and "*" not in path:
            message = f'no bindings "{module_pattern}::{pattern.replace("/", "::")}" on the module path'
            if not matched:
                where = ", ".join(str(p) for p in self.module_path) or "an empty module path"
                message = f'no module "{module_pattern}" with bindings (looked in {where})'
            diags.error(span, message, "bindings-not-found")
        return loaded


def load_folder(
    folder: Path, pattern: str, prefix: str, span: Span | None, diags: Diagnostics, quiet: bool = False
) -> list[ParsedBindings]:
    """Parse the files of ``folder`` that ``pattern`` names; each must hold its own bindings.

    A file that does not parse is reported (its syntax error, with the others') and left out."""
    files = sorted(folder.glob(_glob(pattern))) if folder.is_dir() else []
    if not files and "*" not in pattern and not quiet:
        message = (
            f'no bindings "{prefix}{pattern.replace("/", "::")}" (looked for {folder / pattern}{SUFFIX})'
        )
        diags.error(span, message, "bindings-not-found")
    loaded = []
    for file in files:
        try:
            parsed = parse_file(file)
        except CfSyntaxError as error:
            diags.extend(error.diagnostics())
            continue
        if _named_as_file(parsed, file.relative_to(folder), prefix, diags):
            loaded.append(parsed)
    return loaded


def _glob(pattern: str) -> str:
    if pattern.endswith("**"):
        return pattern[:-2] + "**/*" + SUFFIX
    return pattern + SUFFIX


def _named_as_file(parsed: ParsedBindings, relative: Path, prefix: str, diags: Diagnostics) -> bool:
    expected = prefix + "::".join(relative.with_suffix("").parts)
    names = [str(n.name) for n in parsed.named_bindings]
    if names == [expected]:
        return True
    message = f'{relative} must hold exactly "bindings {expected}" (found: {", ".join(names) or "nothing"})'
    span = parsed.spans.get(parsed.named_bindings[0]) if names else Span(parsed.file, 1, 1, 1, 1)
    diags.error(span, message, "bindings-name-mismatch")
    return False


def _is_dir(path: Path) -> bool:
    try:
        return path.is_dir()
    except OSError:  # a name too long for the file system (a module path from the data)
        return False
