"""A model at the scale the issue names (25,078 objects), written by EMF itself, read by
cfmodel as EMF reads it: folders nested three deep, documents with values of every
common data type (a data type without a Java class among them), one-way references by
EMF's positional fragments (``//@folders.3/@subfolders.1/@documents.2``), references to
people by their iD attribute, a bidirectional reference, many-valued attributes.

EMF loads what cfmodel wrote and re-saves it (EMF's own text); cfmodel reads EMF's file
to the dump EMF makes of the same objects, within the documented memory bound (20 times
the file's size, traced), and writes it back byte for byte in EMF's layout."""

from __future__ import annotations

import random
import tracemalloc
from pathlib import Path

from pyecore.ecore import (
    EAttribute,
    EBoolean,
    EClass,
    EDataType,
    EDouble,
    EEnum,
    EInt,
    EPackage,
    EReference,
    EString,
)
from pyecore.resources import ResourceSet

from cfmodel.serializers import canonical, ecore, xmi

from .emf import EmfChecker

OBJECTS = 25_078  # 1 archive, 77 people, 100 folders of 9 subfolders each, 24 documents in each
NS = "http://example.org/archive"


def _metamodel() -> EPackage:
    pkg = EPackage("archive", nsURI=NS, nsPrefix="archive")
    label = EDataType("Label")  # no instanceClassName: strings
    kind = EEnum("Kind", literals=["plain", "secret", "public"])
    archive, person = EClass("Archive"), EClass("Person")
    folder, document = EClass("Folder"), EClass("Document")
    person.eStructuralFeatures.append(EAttribute("key", EString, iD=True))
    person.eStructuralFeatures.append(EAttribute("name", EString))
    folder.eStructuralFeatures.append(EAttribute("name", EString))
    folder.eStructuralFeatures.append(EAttribute("kind", kind))
    folder.eStructuralFeatures.append(EReference("subfolders", folder, upper=-1, containment=True))
    folder.eStructuralFeatures.append(EReference("documents", document, upper=-1, containment=True))
    folder.eStructuralFeatures.append(EReference("owner", person))
    authored = EReference("authored", document, upper=-1)
    author = EReference("author", person, eOpposite=authored)
    person.eStructuralFeatures.append(authored)
    document.eStructuralFeatures.extend(
        [
            EAttribute("title", EString),
            EAttribute("size", EInt),
            EAttribute("weight", EDouble),
            EAttribute("draft", EBoolean),
            EAttribute("label", label),
            EAttribute("keywords", EString, upper=-1),
            EReference("links", document, upper=-1),
            author,
        ]
    )
    archive.eStructuralFeatures.append(EAttribute("name", EString))
    archive.eStructuralFeatures.append(EReference("people", person, upper=-1, containment=True))
    archive.eStructuralFeatures.append(EReference("folders", folder, upper=-1, containment=True))
    pkg.eClassifiers.extend([label, kind, archive, person, folder, document])
    return pkg


def _model(pkg: EPackage) -> object:
    rng = random.Random(25078)
    archive_c, person_c, folder_c, document_c = (
        pkg.getEClassifier(n) for n in ("Archive", "Person", "Folder", "Document")
    )
    kinds = pkg.getEClassifier("Kind")
    archive = archive_c(name="archive & <co>")
    people = [person_c(key=f"p{i}", name=f"Person {i}") for i in range(77)]
    archive.people.extend(people)
    documents = []

    def fill(folder: object, name: str) -> None:
        for k in range(24):
            doc = document_c(
                title=f'doc "{name}.{k}"',
                size=rng.randrange(-(2**31), 2**31),
                weight=rng.random() * 10 ** rng.randrange(-5, 9),
                draft=k % 3 == 0,
                label=f"label {k}" if k % 4 else None,
            )
            doc.keywords.extend(f"kw{rng.randrange(50)}" for _ in range(k % 3))
            if k % 5:
                doc.author = rng.choice(people)
            folder.documents.append(doc)  # type: ignore[attr-defined]
            documents.append(doc)

    for i in range(100):
        top = folder_c(name=f"f{i}", kind=kinds.eLiterals[i % 3])
        archive.folders.append(top)
        fill(top, f"{i}")
        for j in range(9):
            sub = folder_c(name=f"f{i}.{j}", owner=rng.choice(people) if j % 2 else None)
            top.subfolders.append(sub)
            fill(sub, f"{i}.{j}")
    for doc in documents:
        doc.links.extend(rng.sample(documents, rng.randrange(4)))
    return archive


def test_a_25078_object_model_emf_wrote_reads_as_emf_reads_it(emf: EmfChecker, tmp_path: Path) -> None:
    mm = tmp_path / "archive.ecore"
    ecore.write(mm, _metamodel())
    (pkg,) = ecore.read(mm, ResourceSet()).roots
    archive = _model(pkg)
    ours = tmp_path / "in" / "archive.xmi"
    ours.parent.mkdir()
    xmi.write(ours, [archive])
    out = tmp_path / "emf"
    out.mkdir()
    report = emf.check([mm], [ours], resave_dir=out)
    # (EMF's validator says a data type without a Java class is not well formed: the metamodel
    # is one EMF's reflection takes, and the model none of whose objects it faults)
    assert report.problems() == [
        "diagnostic in archive.ecore: error: The instance type name 'null' is not well formed"
    ]
    emf_dump = report.dump("archive.xmi")
    assert sum(1 for line in emf_dump if not line.startswith(" ")) == OBJECTS
    saved = out / "archive.xmi"
    text = saved.read_text(encoding="utf-8")
    assert 'author="p' in text and 'links="//@folders.0/@subfolders.0/@documents.' in text  # EMF's forms
    rset = ResourceSet()
    ecore.read(out / "archive.ecore", rset)
    tracemalloc.start()
    try:
        doc = xmi.read(saved, rset)
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    assert peak < 20 * len(text.encode()), (peak, len(text))  # docs/serialization.md's bound
    assert canonical.dump_objects(doc.roots, doc.ids) == emf_dump
    assert xmi.to_bytes(doc.roots, xmi.XmiOptions(emf_layout=True), location=saved) == saved.read_bytes()
