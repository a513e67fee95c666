"""Feature maps with real EMF: a metamodel with an ExtendedMetaData group (members that
are contained objects, strings and references, inside the document and to another), the
model written by EMF itself; cfmodel reads it as EMF does (the dumps list the map's
entries in order), writes it back byte for byte in EMF's layout, and what it writes in
its own layout, or builds through the members' views, EMF loads with 0 problems."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest
from pyecore.resources import ResourceSet

from cfmodel.errors import CfSerializationError
from cfmodel.serializers import canonical, crossrefs, featuremaps, xmi
from cfmodel.serializers import ecore as ecore_files

from .emf import EmfChecker

EMD = "http:///org/eclipse/emf/ecore/util/ExtendedMetaData"
ECORE = "http://www.eclipse.org/emf/2002/Ecore"


def _member(kind: str, name: str, etype: str, extra: str = "") -> str:
    return (
        f'    <eStructuralFeatures xsi:type="ecore:{kind}" name="{name}" upperBound="-1" eType="{etype}"'
        f' volatile="true" transient="true" derived="true"{extra}>\n'
        f'      <eAnnotations source="{EMD}">\n        <details key="group" value="#content"/>\n'
        "      </eAnnotations>\n    </eStructuralFeatures>\n"
    )


METAMODEL = (
    '<?xml version="1.0" encoding="UTF-8"?>\n'
    '<ecore:EPackage xmi:version="2.0" xmlns:xmi="http://www.omg.org/XMI"'
    ' xmlns:xsi="http://www.w3.org/2001/XMLSchema-instance"'
    f' xmlns:ecore="{ECORE}" name="doc" nsURI="http://example.org/doc" nsPrefix="doc">\n'
    '  <eClassifiers xsi:type="ecore:EClass" name="Section">\n'
    f'    <eStructuralFeatures xsi:type="ecore:EAttribute" name="title" eType="ecore:EDataType {ECORE}#//EString"/>\n'
    '    <eStructuralFeatures xsi:type="ecore:EAttribute" name="content" upperBound="-1"'
    f' eType="ecore:EDataType {ECORE}#//EFeatureMapEntry">\n'
    f'      <eAnnotations source="{EMD}">\n        <details key="kind" value="group"/>\n'
    "      </eAnnotations>\n    </eStructuralFeatures>\n"
    + _member("EReference", "paragraphs", "#//Paragraph", ' containment="true"')
    + _member("EAttribute", "notes", f"ecore:EDataType {ECORE}#//EString")
    + _member("EReference", "cites", "#//Paragraph")
    + '    <eStructuralFeatures xsi:type="ecore:EReference" name="sections" upperBound="-1"'
    ' eType="#//Section" containment="true"/>\n'
    "  </eClassifiers>\n"
    '  <eClassifiers xsi:type="ecore:EClass" name="Paragraph">\n'
    f'    <eStructuralFeatures xsi:type="ecore:EAttribute" name="text" eType="ecore:EDataType {ECORE}#//EString"/>\n'
    "  </eClassifiers>\n"
    '  <eClassifiers xsi:type="ecore:EClass" name="Quote" eSuperTypes="#//Paragraph"/>\n'
    "</ecore:EPackage>\n"
)

HEAD = (
    '<?xml version="1.0" encoding="UTF-8"?>\n'
    '<doc:Section xmi:version="2.0" xmlns:xmi="http://www.omg.org/XMI"'
    ' xmlns:xsi="http://www.w3.org/2001/XMLSchema-instance" xmlns:doc="http://example.org/doc"'
)
# entries of every kind, in an order no member-by-member list could give back
D = (
    HEAD + ' title="T">\n'
    '  <paragraphs text="p1"/>\n  <notes>n1 &amp; &lt;more&gt;</notes>\n'
    '  <paragraphs xsi:type="doc:Quote" text="q"/>\n  <cites href="#//@content.0"/>\n'
    '  <notes>n2</notes>\n  <cites href="e.xmi#//@content.0"/>\n'
    '  <sections title="S2"><notes>x</notes><paragraphs text="deep"/></sections>\n'
    "</doc:Section>\n"
)
E = (
    HEAD
    + ' title="E">\n  <paragraphs text="e1"/>\n  <cites href="d.xmi#//@sections.0/@paragraphs.0"/>\n</doc:Section>\n'
)


def _emf_written(emf: EmfChecker, folder: Path) -> Path:
    """The model, saved by EMF into `folder`/emf (with the metamodel)."""
    src = folder / "in"
    src.mkdir(parents=True)
    (src / "doc.ecore").write_text(METAMODEL, encoding="utf-8")
    (src / "d.xmi").write_text(D, encoding="utf-8")
    (src / "e.xmi").write_text(E, encoding="utf-8")
    out = folder / "emf"
    out.mkdir()
    report = emf.check([src / "doc.ecore"], [src / "d.xmi", src / "e.xmi"], resave_dir=out)
    assert report.clean, report.problems()
    shutil.rmtree(src)
    return out


def _read(out: Path) -> tuple[ResourceSet, list[xmi.Document]]:  # type: ignore[name-defined]
    rset = ResourceSet()
    ecore_files.read(out / "doc.ecore", rset)
    return rset, xmi.read_all([out / "d.xmi", out / "e.xmi"], rset)


def test_emf_written_feature_maps_read_as_emf_reads_them_and_write_back_byte_for_byte(
    emf: EmfChecker, tmp_path: Path
) -> None:
    out = _emf_written(emf, tmp_path)
    text = (out / "d.xmi").read_text(encoding="utf-8")
    assert '<cites href="#//@paragraphs.0"/>' in text  # EMF's own form of the reference
    _, (d, e) = _read(out)
    report = emf.check([out / "doc.ecore"], [out / "d.xmi", out / "e.xmi"])
    dump = canonical.dump_objects(d.roots, d.ids)
    assert dump == report.dump("d.xmi")
    assert dump[2] == (
        '  content = [paragraphs=@/0/paragraphs.0, notes="n1 & <more>", paragraphs=@/0/paragraphs.1,'
        ' cites=@/0/paragraphs.0, notes="n2", cites=extern:file:' + str(out) + "/e.xmi#//@paragraphs.0]"
    )
    assert canonical.dump_objects(e.roots, e.ids) == report.dump("e.xmi")
    (section,) = d.roots
    p1, quote = section.paragraphs
    assert list(section.notes) == ["n1 & <more>", "n2"] and list(section.cites) == [
        p1,
        e.roots[0].paragraphs[0],
    ]
    assert (
        quote.eClass.name == "Quote"
        and p1.eContainer() is section
        and p1.eContainmentFeature().name == "paragraphs"
    )
    written = xmi.set_to_bytes(out, {"d.xmi": d.roots, "e.xmi": e.roots}, xmi.XmiOptions(emf_layout=True))
    assert written == {"d.xmi": (out / "d.xmi").read_bytes(), "e.xmi": (out / "e.xmi").read_bytes()}


def test_what_cfmodel_writes_of_a_feature_map_emf_loads_as_the_same_model(
    emf: EmfChecker, tmp_path: Path
) -> None:
    out = _emf_written(emf, tmp_path)
    _, (d, e) = _read(out)
    ours = tmp_path / "ours"
    shutil.copy(out / "doc.ecore", tmp_path / "doc.ecore")
    written = xmi.write_all(ours, {"d.xmi": d.roots, "e.xmi": e.roots})
    assert '<paragraphs xsi:type="doc:Paragraph" text="p1"/>' in written[0].read_text(encoding="utf-8")
    report = emf.check([out / "doc.ecore"], written)
    assert report.clean, report.problems()
    rset = ResourceSet()
    ecore_files.read(out / "doc.ecore", rset)
    again = xmi.read_all(written, rset)
    for doc, name in zip(again, ("d.xmi", "e.xmi"), strict=True):
        assert canonical.dump_objects(doc.roots, doc.ids) == report.dump(name)


def test_members_are_views_that_add_entries(emf: EmfChecker, tmp_path: Path) -> None:
    (tmp_path / "doc.ecore").write_text(METAMODEL, encoding="utf-8")
    rset = ResourceSet()
    (pkg,) = ecore_files.read(tmp_path / "doc.ecore", rset).roots
    featuremaps.prepare(pkg)
    section, paragraph = pkg.getEClassifier("Section"), pkg.getEClassifier("Paragraph")
    s = section(title="built")
    first, second = paragraph(text="one"), paragraph(text="two")
    s.paragraphs.append(first)
    s.notes.append("between")
    s.paragraphs.append(second)
    s.cites.append(first)
    assert [(x.feature.name, x.value) for x in s.content] == [
        ("paragraphs", first),
        ("notes", "between"),
        ("paragraphs", second),
        ("cites", first),
    ]
    assert list(s.paragraphs) == [first, second] and second.eContainer() is s
    target = tmp_path / "built.xmi"
    xmi.write(target, [s], xmi.XmiOptions(emf_layout=True))
    assert target.read_text(encoding="utf-8").splitlines()[2:7] == [
        '  <paragraphs text="one"/>',
        "  <notes>between</notes>",
        '  <paragraphs text="two"/>',
        '  <cites href="#//@paragraphs.0"/>',
        "</doc:Section>",
    ]
    report = emf.check([tmp_path / "doc.ecore"], [target])
    assert report.clean, report.problems()
    s.paragraphs.discard(second)
    assert [x.feature.name for x in s.content] == ["paragraphs", "notes", "cites"]


def test_a_bad_entry_is_refused_with_every_problem(tmp_path: Path) -> None:
    (tmp_path / "doc.ecore").write_text(METAMODEL, encoding="utf-8")
    (pkg,) = ecore_files.read(tmp_path / "doc.ecore", ResourceSet()).roots
    section, paragraph = pkg.getEClassifier("Section"), pkg.getEClassifier("Paragraph")
    s = section()
    featuremaps.groups_of(section)
    s.content.append(featuremaps.Entry(section.findEStructuralFeature("title"), "not a member"))
    s.content.append(featuremaps.Entry(section.findEStructuralFeature("notes"), 3))
    s.content.append(featuremaps.Entry(section.findEStructuralFeature("cites"), paragraph()))
    with pytest.raises(CfSerializationError) as exc:
        xmi.to_bytes([s])
    assert exc.value.code == "invalid-model"
    assert [n.message.split(": ", 1)[1] for n in exc.value.notes] == [
        "Entry(title='not a member') is not an entry of a member of content",
        "notes value 3 is not a valid EString",
        exc.value.notes[2].message.split(": ", 1)[1],
    ]
    assert exc.value.notes[2].message.endswith("is not an object of this document")


MIXED = (
    '<?xml version="1.0" encoding="UTF-8"?>\n'
    '<ecore:EPackage xmi:version="2.0" xmlns:xmi="http://www.omg.org/XMI"'
    ' xmlns:xsi="http://www.w3.org/2001/XMLSchema-instance"'
    f' xmlns:ecore="{ECORE}" name="mx" nsURI="http://example.org/mx" nsPrefix="mx">\n'
    '  <eClassifiers xsi:type="ecore:EClass" name="Para">\n'
    f'    <eAnnotations source="{EMD}">\n      <details key="kind" value="mixed"/>\n    </eAnnotations>\n'
    '    <eStructuralFeatures xsi:type="ecore:EAttribute" name="mixed" upperBound="-1"'
    f' eType="ecore:EDataType {ECORE}#//EFeatureMapEntry">\n'
    f'      <eAnnotations source="{EMD}">\n        <details key="kind" value="elementWildcard"/>\n'
    '        <details key="name" value=":mixed"/>\n      </eAnnotations>\n    </eStructuralFeatures>\n'
    + _member("EReference", "bold", "#//Para", ' containment="true"').replace("#content", "#mixed")
    + "  </eClassifiers>\n</ecore:EPackage>\n"
)


def test_mixed_maps_read_as_emfs_xmi_resource_reads_them(emf: EmfChecker, tmp_path: Path) -> None:
    """Text between the elements of a mixed map: EMF's XMIResource (no ExtendedMetaData
    option) keeps the elements and drops the text; so does cfmodel, and writes EMF's bytes."""
    (tmp_path / "mx.ecore").write_text(MIXED, encoding="utf-8")
    doc = tmp_path / "p.xmi"
    doc.write_text(
        '<?xml version="1.0" encoding="UTF-8"?>\n<mx:Para xmi:version="2.0" xmlns:xmi="http://www.omg.org/XMI"'
        ' xmlns:mx="http://example.org/mx">Hello <bold>big<bold/></bold> world<!-- c --></mx:Para>\n',
        encoding="utf-8",
    )
    out = tmp_path / "emf"
    out.mkdir()
    report = emf.check([tmp_path / "mx.ecore"], [doc], resave_dir=out)
    assert report.clean, report.problems()
    rset = ResourceSet()
    ecore_files.read(tmp_path / "mx.ecore", rset)
    read = xmi.read(doc, rset)
    assert canonical.dump_objects(read.roots, read.ids) == report.dump("p.xmi")
    assert report.dump("p.xmi")[1] == "  mixed = [bold=@/0/bold.0]"
    written = xmi.to_bytes(read.roots, xmi.XmiOptions(emf_layout=True), location=out / "p.xmi")
    assert written == (out / "p.xmi").read_bytes()


def test_references_in_entries_are_proxies_until_resolved(emf: EmfChecker, tmp_path: Path) -> None:
    out = _emf_written(emf, tmp_path)
    rset = ResourceSet()
    ecore_files.read(out / "doc.ecore", rset)
    (d,) = xmi.read_all([out / "d.xmi"], rset, xmi.XmiOptions(load_references=False))
    (section,) = d.roots
    outer = section.content[5]
    assert (
        outer.feature.name == "cites"
        and crossrefs.proxy_uri(outer.value) == f"file:{out}/e.xmi#//@paragraphs.0"
    )
    assert xmi.resolve_proxies(rset) == []
    assert crossrefs.proxy_uri(outer.value) is None and outer.value.text == "e1"


def _single(kind: str, name: str, etype: str, extra: str = "") -> str:
    return _member(kind, name, etype, extra).replace(' upperBound="-1"', "", 1)


SINGLE = METAMODEL.replace(
    _member("EReference", "cites", "#//Paragraph"),
    _member("EReference", "cites", "#//Paragraph")
    + _single("EReference", "lead", "#//Paragraph", ' containment="true"')
    + _single("EAttribute", "subtitle", f"ecore:EDataType {ECORE}#//EString")
    + _single("EAttribute", "rank", f"ecore:EDataType {ECORE}#//EInt"),
)


def test_single_valued_members_are_live_views_as_emfs_feature_map_set(
    emf: EmfChecker, tmp_path: Path
) -> None:
    """A single-valued member reads its entry; setting replaces the entry in place, adds one
    at the end, or removes it (None, or the default for an attribute that is not
    unsettable), as EMF's BasicFeatureMap.set; EMF loads what is written as the same model,
    and cfmodel reads EMF's re-save back to the same entries."""
    (tmp_path / "doc.ecore").write_text(SINGLE, encoding="utf-8")
    (pkg,) = ecore_files.read(tmp_path / "doc.ecore", ResourceSet()).roots
    featuremaps.prepare(pkg)
    section, paragraph = pkg.getEClassifier("Section"), pkg.getEClassifier("Paragraph")
    s = section(title="single")
    assert s.subtitle is None and s.lead is None and s.rank == 0  # EInt's default, as EMF
    first, lead, other = paragraph(text="one"), paragraph(text="lead"), paragraph(text="other")
    s.subtitle = "sub"
    s.paragraphs.append(first)
    s.lead = lead
    s.rank = 3
    s.subtitle = "changed"  # in place: still the first entry
    assert [(e.feature.name, e.value) for e in s.content] == [
        ("subtitle", "changed"),
        ("paragraphs", first),
        ("lead", lead),
        ("rank", 3),
    ]
    assert s.subtitle == "changed" and s.lead is lead and lead.eContainer() is s
    s.lead = other
    assert (
        lead.eContainer() is None and other.eContainer() is s and other.eContainmentFeature().name == "lead"
    )
    s.rank = 0  # the default of a member that is not unsettable: the entry goes
    assert [e.feature.name for e in s.content] == ["subtitle", "paragraphs", "lead"]
    target = tmp_path / "single.xmi"
    xmi.write(target, [s], xmi.XmiOptions(emf_layout=True))
    assert target.read_text(encoding="utf-8").splitlines()[2:6] == [
        "  <subtitle>changed</subtitle>",
        '  <paragraphs text="one"/>',
        '  <lead text="other"/>',
        "</doc:Section>",
    ]
    out = tmp_path / "emf"
    out.mkdir()
    report = emf.check([tmp_path / "doc.ecore"], [target], resave_dir=out)
    assert report.clean, report.problems()
    rset = ResourceSet()
    ecore_files.read(tmp_path / "doc.ecore", rset)
    back = xmi.read(out / "single.xmi", rset)
    assert canonical.dump_objects(back.roots, back.ids) == report.dump("single.xmi")
    (again,) = back.roots
    assert again.subtitle == "changed" and again.lead.text == "other" and again.rank == 0
    del again.subtitle
    again.lead = None
    assert [e.feature.name for e in again.content] == ["paragraphs"]
