"""References from a model to elements of metamodels, as EMF writes them: into a ``.ecore``
file of several root packages (EMF's ``types.ecore#/1/String``), into the model's own
metamodel by name (``meta.ecore#//Mapping/name``), and into Ecore by its nsURI
(``http://www.eclipse.org/emf/2002/Ecore#//EString``). cfmodel reads EMF's file as EMF
does (the ``.ecore`` it names read into the resource set), lazily as proxies that resolve
later, writes it back byte for byte in EMF's layout, and what it writes in its own layout
EMF loads as the same model."""

from __future__ import annotations

from pathlib import Path

from pyecore.resources import ResourceSet

from cfmodel.serializers import canonical, crossrefs, xmi
from cfmodel.serializers import ecore as ecore_files

from .emf import EmfChecker

ECORE = "http://www.eclipse.org/emf/2002/Ecore"
HEAD = (
    '<?xml version="1.0" encoding="UTF-8"?>\n'
    '<xmi:XMI xmi:version="2.0" xmlns:xmi="http://www.omg.org/XMI"'
    ' xmlns:xsi="http://www.w3.org/2001/XMLSchema-instance"'
    f' xmlns:ecore="{ECORE}">\n'
)
# two root packages; a supertype in the other root, as EMF writes it and in the bare form
TYPES = (
    HEAD + '  <ecore:EPackage name="a" nsURI="http://example.org/a" nsPrefix="a">\n'
    '    <eClassifiers xsi:type="ecore:EClass" name="Thing"/>\n  </ecore:EPackage>\n'
    '  <ecore:EPackage name="b" nsURI="http://example.org/b" nsPrefix="b">\n'
    '    <eClassifiers xsi:type="ecore:EClass" name="String" eSuperTypes="/0/Thing"/>\n'
    '    <eClassifiers xsi:type="ecore:EClass" name="Other" eSuperTypes="#/0/Thing"/>\n'
    "  </ecore:EPackage>\n</xmi:XMI>\n"
)
META = (
    '<?xml version="1.0" encoding="UTF-8"?>\n'
    '<ecore:EPackage xmi:version="2.0" xmlns:xmi="http://www.omg.org/XMI"'
    ' xmlns:xsi="http://www.w3.org/2001/XMLSchema-instance"'
    f' xmlns:ecore="{ECORE}" name="m" nsURI="http://example.org/m" nsPrefix="m">\n'
    '  <eClassifiers xsi:type="ecore:EClass" name="Mapping">\n'
    f'    <eStructuralFeatures xsi:type="ecore:EAttribute" name="name" eType="ecore:EDataType {ECORE}#//EString"/>\n'
    f'    <eStructuralFeatures xsi:type="ecore:EReference" name="target" eType="ecore:EClass {ECORE}#//EClass"/>\n'
    '    <eStructuralFeatures xsi:type="ecore:EReference" name="types" upperBound="-1"'
    f' eType="ecore:EClass {ECORE}#//EClassifier"/>\n'
    '    <eStructuralFeatures xsi:type="ecore:EReference" name="feature"'
    f' eType="ecore:EClass {ECORE}#//EStructuralFeature"/>\n'
    "  </eClassifiers>\n</ecore:EPackage>\n"
)
MAP = (
    '<?xml version="1.0" encoding="UTF-8"?>\n'
    '<m:Mapping xmi:version="2.0" xmlns:xmi="http://www.omg.org/XMI"'
    ' xmlns:xsi="http://www.w3.org/2001/XMLSchema-instance"'
    f' xmlns:ecore="{ECORE}" xmlns:m="http://example.org/m" name="x">\n'
    '  <target href="types.ecore#/1/String"/>\n'
    '  <types xsi:type="ecore:EClass" href="types.ecore#/0/Thing"/>\n'
    '  <types xsi:type="ecore:EClass" href="types.ecore#/1/Other"/>\n'
    f'  <types xsi:type="ecore:EDataType" href="{ECORE}#//EString"/>\n'
    '  <feature xsi:type="ecore:EAttribute" href="meta.ecore#//Mapping/name"/>\n'
    "</m:Mapping>\n"
)


def _emf_saved(emf: EmfChecker, folder: Path) -> tuple[Path, list[str]]:
    src = folder / "in"
    src.mkdir(parents=True)
    for name, text in (("types.ecore", TYPES), ("meta.ecore", META), ("map.xmi", MAP)):
        (src / name).write_text(text, encoding="utf-8")
    out = folder / "emf"
    out.mkdir()
    report = emf.check([src / "meta.ecore", src / "types.ecore"], [src / "map.xmi"], resave_dir=out)
    assert report.clean, report.problems()
    return out, report.dump("map.xmi")


def _read(out: Path, options: xmi.XmiOptions | None = None) -> tuple[ResourceSet, xmi.Document]:  # type: ignore[name-defined]
    rset = ResourceSet()
    ecore_files.read(out / "meta.ecore", rset)
    return rset, xmi.read(out / "map.xmi", rset, options)


def test_multi_root_ecore_fragments_are_read_in_ecore_files(tmp_path: Path) -> None:
    (tmp_path / "types.ecore").write_text(TYPES, encoding="utf-8")
    a, b = ecore_files.read(tmp_path / "types.ecore", ResourceSet()).roots
    (thing,) = a.eClassifiers
    assert [list(c.eSuperTypes) for c in b.eClassifiers] == [[thing], [thing]]


def test_references_into_metamodels_read_as_emf_reads_them_and_written_back(
    emf: EmfChecker, tmp_path: Path
) -> None:
    out, emf_dump = _emf_saved(emf, tmp_path)
    saved = (out / "map.xmi").read_bytes()
    assert b'href="types.ecore#/1/String"' in saved and f'href="{ECORE}#//EString"'.encode() in saved
    rset, doc = _read(out)
    dump = canonical.dump_objects(doc.roots, doc.ids)
    assert dump == [line.replace(f"{tmp_path}/in/", f"{out}/") for line in emf_dump]
    assert dump[2] == f"  target = extern:file:{out}/types.ecore#/1/String"
    (mapping,) = doc.roots
    assert mapping.target.name == "String" and mapping.target.eSuperTypes[0] is mapping.types[0]
    assert [str(r.uri.plain).rsplit("/", 1)[-1] for r in rset.resources.values()] == [
        "meta.ecore",
        "types.ecore",
        "map.xmi",
    ]
    assert xmi.to_bytes(doc.roots, xmi.XmiOptions(emf_layout=True), location=out / "map.xmi") == saved


def test_lazily_references_into_metamodels_are_proxies_written_back_and_resolved_later(
    emf: EmfChecker, tmp_path: Path
) -> None:
    out, _ = _emf_saved(emf, tmp_path)
    rset, doc = _read(out, xmi.XmiOptions(load_references=False))
    (mapping,) = doc.roots
    assert crossrefs.proxy_uri(mapping.target) == f"file:{out}/types.ecore#/1/String"
    assert mapping.target.eClass.name == "EClass"  # a proxy of the feature's type
    assert crossrefs.proxy_uri(mapping.types[2]) is None  # Ecore's own: no file to read
    location = out / "map.xmi"
    assert (
        xmi.to_bytes(doc.roots, xmi.XmiOptions(emf_layout=True), location=location) == location.read_bytes()
    )
    assert xmi.resolve_proxies(rset) == []
    assert mapping.target.name == "String" and crossrefs.proxy_uri(mapping.target) is None


def test_what_cfmodel_writes_of_references_into_metamodels_emf_loads_as_the_same_model(
    emf: EmfChecker, tmp_path: Path
) -> None:
    out, _ = _emf_saved(emf, tmp_path)
    _, doc = _read(out)
    ours = out / "ours.xmi"
    xmi.write(ours, doc.roots)
    text = ours.read_text(encoding="utf-8")
    assert '<types xsi:type="ecore:EClass" href="types.ecore#/0/Thing"/>' in text
    report = emf.check([out / "meta.ecore", out / "types.ecore"], [ours])
    assert report.clean, report.problems()
    assert report.dump("ours.xmi") == canonical.dump_objects(doc.roots, doc.ids)
