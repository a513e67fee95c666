"""The JSON writer: instance models as emfjson-jackson writes them.

Input: the roots of an instance model and `JsonOptions`. Output: the document's UTF-8
bytes (`to_bytes`), byte-identical for the same model, ids and options; nothing for a
model `validate.check_objects` refuses.

The document is one object for one root and an array of objects for any other number
(as emfjson-jackson's ``ResourceSerializer``). An object's members, in order: ``eClass``
(its class's URI, ``<root package nsURI>#//<subpackages/>Class``) for a root, and for a
contained object whose class is not exactly its feature's type; the id under
``options.id_key`` when the id function names it (emfjson-jackson's ``OPTION_USE_ID``);
then every set persistent feature in EMF's order (supertypes first): attributes as JSON
values, many-valued features as arrays, containment values nested, other references as
``{"eClass": …, "$ref": <id, else iD attribute value, else EMF's positional fragment>}``
(`EmfNames`: emfjson-jackson's ``getURIFragment``); a target in another document as
``{"eClass": …, "$ref": "<its document, relative to this one>#<its fragment>"}`` and a
proxy by the URI it keeps (`crossrefs.Hrefs`, as the XMI writer's ``href``s: the
fragment as that document names the object, its id, iD attribute value or position).
Unset features (EMF's defaults) are left out, as are container references (implied by
nesting). A proxy as a contained object is refused (``unsupported``: the reader does not
take one either).

One pass with an explicit stack writes the document from functions generated per class
(`members`). The first pass is checked (the generated functions make `validate`'s
checks); at the first doubt the writer hands over to `validate`, which reports every
problem or finds none, and the unchecked functions write the document; targets in other
documents and proxies are such doubts (the checked functions take only the document's
own objects), named for the unchecked pass before it writes. The cyclic garbage
collector is paused meanwhile.
"""

from __future__ import annotations

import itertools
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

from pyecore.ecore import EAttribute, EObject

from cfmodel.collector import gc_paused
from cfmodel.errors import CfSerializationError, CfUsageError
from cfmodel.metamodel.runtime import fastpath
from cfmodel.serializers import canonical, crossrefs, linking, model, validate
from cfmodel.serializers.base import ids_from
from cfmodel.serializers.json.members import Layout, MembersFunction, RunFunction, key_text, members, quote
from cfmodel.serializers.json.options import JsonOptions
from cfmodel.serializers.xmi import heads


def class_uri(eclass: Any) -> str:
    """emfjson-jackson's (and PyEcore's) name of a class: ``nsURI#//Sub/Class``, the URI
    EMF gives the class (``EcoreUtil.getURI``) in its registered package.

    Raises:
        CfSerializationError: the class is in no package with an nsURI.
    """
    pkg = eclass.ePackage
    steps = [str(eclass.name)]
    while pkg is not None and getattr(pkg, "eSuperPackage", None) is not None:
        steps.append(str(pkg.name))
        pkg = pkg.eSuperPackage
    if pkg is None or not pkg.nsURI:
        raise CfSerializationError(
            f"class {eclass.name!r} is in no package with an nsURI", code="unsupported"
        )
    return f"{pkg.nsURI}#//{'/'.join(reversed(steps))}"


def to_bytes(
    roots: Sequence[EObject],
    options: JsonOptions | None = None,
    *,
    location: Path | str | None = None,
    hrefs: Callable[[EObject], str | None] | None = None,
) -> bytes:
    """The document's bytes. `location`: where it will be (references to other documents
    are relative to it; None: absolute); `hrefs`: names objects of other documents
    (default `crossrefs.Hrefs(location)`: documents a reader read, and proxies).

    Raises:
        CfUsageError: the id key is empty or one of emfjson's own keys.
        CfSerializationError: the model breaks its metamodel (``invalid-model``, every
            problem as a note, a target in no document among them), the ids' key is
            the name of a feature of a named object's class, or a contained object is a
            proxy (``unsupported``).
    """
    opts = options or JsonOptions()
    if opts.id_key in ("", "eClass", "$ref"):
        raise CfUsageError(f"the ids cannot be written under {opts.id_key!r} (an emfjson key, or none)")
    roots = list(roots)
    with gc_paused():
        cache = model.FeatureCache()
        classes = canonical.one_per_class(roots)
        objects = canonical.contents(roots, cache, classes)
        ids = ids_from(opts.id_of, objects)
        writer = Writer(roots, ids, objects, cache, opts)
        text = None if validate.id_problems(ids) else writer.document(checked=True)
        if text is None:
            outside: list[EObject] = []
            elsewhere = hrefs or crossrefs.Hrefs(location)
            validate.check_objects(objects, ids, cache, elsewhere=elsewhere, outside=outside)
            writer.name_outside(outside, elsewhere)
            text = writer.document(checked=False)
        assert text is not None
        return text.encode("utf-8")


class Writer:
    """One document. `objects` are its objects in pre-order (`canonical.contents`); `ids`
    is keyed by some of them and nothing else (as `ids_from` makes it)."""

    def __init__(
        self,
        roots: list[EObject],
        ids: dict[EObject, str],
        objects: list[EObject],
        cache: model.FeatureCache,
        options: JsonOptions,
    ) -> None:
        self.roots = roots
        self.ids = ids
        self.objects = objects
        self.cache = cache
        self.options = options
        self.names = EmfNames(roots, ids)
        self.eclass_members: dict[type, str] = {}
        self.plans: dict[type, tuple[MembersFunction, RunFunction | None, bool]] = {}
        self.layouts: list[Layout] = []

    def name_outside(self, outside: list[EObject], elsewhere: Callable[[EObject], str | None]) -> None:
        """Name the targets `outside` the document (other documents' objects, proxies;
        `validate` found a name for each) for the unchecked functions: their ``$ref`` and
        their class's ``eClass`` member. A proxy contained in the document is refused."""
        for obj in self.objects:
            if crossrefs.proxy_uri(obj) is not None:
                container = obj.eContainer()
                where = f" in {container.eClass.name}" if isinstance(container, EObject) else ""
                message = (
                    f"a proxy ({crossrefs.proxy_uri(obj)}) is contained{where}: emfjson's JSON holds"
                    " contained objects themselves, not references to them; resolve it first"
                )
                raise CfSerializationError(message, code="unsupported")
        for obj in outside:
            uri = elsewhere(obj)
            assert uri is not None  # validate refused targets nothing names
            self.names.cache[id(obj)] = uri
            if type(obj) not in self.eclass_members:
                self.eclass_members[type(obj)] = key_text("eClass") + quote(class_uri(obj.eClass))

    def layout(self, depth: int) -> Layout:
        while len(self.layouts) <= depth:
            self.layouts.append(Layout(len(self.layouts), self.options.indent))
        return self.layouts[depth]

    def document(self, checked: bool) -> str | None:
        """The document's text; with `checked`, None as soon as a check fails or the
        checked functions cannot decide (see `to_bytes`)."""
        classes = canonical.one_per_class(self.objects)
        for obj in classes:
            if type(obj) not in self.eclass_members:
                self.eclass_members[type(obj)] = key_text("eClass") + quote(class_uri(obj.eClass))
        checks = None
        if checked:
            types = set(map(type, classes))
            if not fastpath.RAW or any(c.__hash__ is not _OBJECT_HASH for c in types):
                return None  # membership would not be identity (see `heads.Checks`)
            if any(validate.needs_detail(o.eClass, self.cache) for o in classes):
                return None
            if not set(map(type, self.ids.values())) <= {str}:
                return None
            inside = self.ids if len(self.ids) == len(self.objects) else set(self.objects)
            checks = heads.Checks(inside, types, validate.Pairs(), self.cache)
        id_key = self.options.id_key
        if self.ids:
            named = set(map(type, self.ids))
            for o in classes:
                if type(o) in named and any(f.name == id_key for f in self.cache.persistent(o.eClass)):
                    message = (
                        f"class {o.eClass.name} has a feature {id_key!r}, the key the ids would be written"
                        " under: choose another (JsonOptions.id_key, json export --id-key)"
                    )
                    raise CfSerializationError(message, code="unsupported")
        self.plans = {
            type(o): members(o.eClass, self.cache, id_key, checks, self.eclass_members) for o in classes
        }
        try:
            return self.write()
        except heads.DoubtError:
            return None

    def write(self) -> str:
        out: list[str] = []
        roots = self.roots
        if len(roots) == 1:
            root = roots[0]
            self.objects_text(out, root, self.eclass_members[type(root)], 0)
            out.append("\n")
            return "".join(out)
        if not roots:
            return "[]\n"
        top = self.layout(0)  # the array of roots: its items are objects at depth 1
        append = out.append
        append(top.open.replace("{", "[", 1))
        plans, ids, names, ec = self.plans, self.ids, self.names, self.eclass_members
        kit = self.layout(1).kit
        sep = top.sep
        # runs of roots of one class: the texts of a run's objects, then the separators
        runs = [(type(roots[0]), roots)] if len(plans) == 1 else itertools.groupby(roots, type)
        first = True
        for cls, run in runs:
            fn, run_fn, nests = plans[cls]
            texts: list[str] = []
            if nests:
                for root in run:
                    part: list[str] = []
                    self.objects_text(part, root, ec[cls], 1)
                    texts.append("".join(part))
            elif run_fn is not None:
                run_fn(run, texts.append, ids, names, ec[cls], kit)
            else:
                texts = [fn(root, ids, names, ec[cls], kit) for root in run]
            if not first:
                append(sep)
            first = False
            append(sep.join(texts))
        append(top.close.replace("}", "]"))
        append("\n")
        return "".join(out)

    def objects_text(self, out: list[str], obj: EObject, typed: str, depth: int) -> None:
        """Write `obj` and everything it contains; the stack holds texts and objects
        (object, eClass member or ``""``, depth)."""
        append = out.append
        plans, ids, names, ec = self.plans, self.ids, self.names, self.eclass_members
        stack: list[Any] = [(obj, typed, depth)]
        pop, extend = stack.pop, stack.extend
        while stack:
            item = pop()
            if type(item) is str:
                append(item)
                continue
            current, typed, level = item
            fn, _, nests = plans[type(current)]
            lay = self.layout(level)
            result = fn(current, ids, names, typed, lay.kit)
            if not nests:
                append(result)
                continue
            if not result:
                append("{}")
                continue
            seq: list[Any] = [lay.open]
            for k, member in enumerate(result):
                if k:
                    seq.append(lay.sep)
                if type(member) is str:
                    seq.append(member)
                    continue
                key, value, many, ftype = member
                if many:
                    seq.append(key + lay.array_open)
                    inner = level + 2
                    for j, child in enumerate(value):
                        if j:
                            seq.append(lay.array_sep)
                        seq.append((child, "" if child.eClass is ftype else ec[type(child)], inner))
                    seq.append(lay.array_close)
                else:
                    seq.append(key)
                    seq.append((value, "" if value.eClass is ftype else ec[type(value)], level + 1))
            seq.append(lay.close)
            seq.reverse()
            extend(seq)


class EmfNames(linking.Fragments):
    """Names the targets of references as emfjson-jackson does (EMF's ``getURIFragment``):
    the id, else the value of the class's iD attribute (the first, as EMF's
    ``eIDAttribute``) when it names that object alone, is a plain string and cannot be read
    as a path, else the positional fragment. ecore.js, too, resolves an object of a class
    with an iD attribute by that value only."""

    def __init__(self, roots: list[EObject], ids: dict[EObject, str]) -> None:
        super().__init__(roots, ids)
        self.id_attribute: dict[int, tuple[Any, Any]] = {}  # per class (by id): (class, iD attribute or None)
        self.by_value: linking.IdAttributes | None = None  # made when first needed
        self.taken: set[str] | None = None

    def __call__(self, obj: EObject) -> str:
        key = id(obj)
        found = self.cache.get(key)
        if found is None:
            found = self.ids.get(obj) or self.id_value(obj) or self.position(obj)
            self.cache[key] = found
        return found

    def id_value(self, obj: EObject) -> str | None:
        eclass = obj.eClass
        entry = self.id_attribute.get(id(eclass))
        if entry is None or entry[0] is not eclass:
            attribute = next(
                (f for f in model.all_features(eclass) if isinstance(f, EAttribute) and f.iD), None
            )
            entry = self.id_attribute[id(eclass)] = (eclass, attribute)
        attribute = entry[1]
        if attribute is None or not obj.eIsSet(attribute):
            return None
        value = obj.eGet(attribute)
        if type(value) is not str or not value or value[0] in "/?" or "#" in value:
            return None
        if self.by_value is None:
            self.by_value = linking.IdAttributes(self.roots)
            self.taken = set(self.ids.values())
        assert self.taken is not None
        # the reader looks ids up first, then the first object with the value: it must be this one
        return value if value not in self.taken and self.by_value.find(value) is obj else None


_OBJECT_HASH: Any = object.__hash__
