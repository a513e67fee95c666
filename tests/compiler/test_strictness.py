"""What inmanta-core 20.1 accepts and real modules use (the verdicts: ``tests/compat/programs_strictness.py``).

Here: the located messages where it still refuses, and what the accepted forms become in
the metamodel and the instance model. An attribute named like an inherited relation end
hides it; its EAttribute is renamed (Ecore needs distinct names in a class) and annotated
with its cf name, by which the metamodel still finds it.
"""

from __future__ import annotations

from pathlib import Path

from cfmodel.serializers.validate import check_packages
from cfmodel.transforms.cf.lift import HIDES
from tests.compiler.conftest import Project, compile_main, error_of, values

HIDING = """
entity B:
end
entity A extends B:
    string other
end
B.other [0:] -- B.back [0:]
implement A using std::none
implement B using std::none
"""


def test_an_attribute_hides_the_relation_end_its_entity_inherits(project: Project, tmp_path: Path) -> None:
    result = compile_main(project, HIDING + 'b = B()\na = A(other="x")\nb.other = a\n')
    assert values(result, "A", "other") == ["x"]
    feature = result.domain.eattribute("__config__::A", "other")
    assert feature.name == "other_"
    assert dict(feature.getEAnnotation(HIDES).details) == {"name": "other", "relation": "__config__::B.other"}
    assert result.domain.ereference("__config__::B", "other").name == "other"
    check_packages(result.metamodel)  # the Ecore rules EMF's validator checks
    [a] = result.instances("A")
    assert a.other_ == "x"
    assert [x.eClass.name for x in a.back] == ["B"]
    result.save_xmi(tmp_path / "out")
    [xmi] = (tmp_path / "out").glob("*.xmi")
    assert 'other_="x"' in xmi.read_text(encoding="utf-8")


def test_setting_the_hidden_relation_end_from_the_other_side_is_an_error(project: Project) -> None:
    assert error_of(project, HIDING + 'a = A(other="x")\nb = B()\nb.back = a\n') == (
        "main.cf:11:1: error: __config__::B instance (created at main.cf:10:5) cannot be added to relation end "
        "'other' of __config__::A instance (created at main.cf:9:5): __config__::A hides that inherited "
        "relation end with its attribute 'other'  [bad-assignment]"
    )


NESTED = """
entity File:
    string path
end
entity Obj:
    string key
end
Obj.file [1] -- File.values [0:]
index Obj(file, key)
implement File using std::none
implement Obj using std::none
"""


def test_an_enclosing_constructor_sets_the_index_relation(project: Project) -> None:
    result = compile_main(
        project, NESTED + 'f = File(path="a", values=[Obj(key="k"), [Obj(key="l")], Obj(key="k")])\n'
    )
    assert values(result, "Obj", "key") == ["k", "l"]
    assert [o.file.path for o in result.instances("Obj")] == ["a", "a"]


def test_without_the_enclosing_relation_the_index_relation_is_missing(project: Project) -> None:
    assert error_of(project, NESTED + 'f = File(path="a", values=[])\nx = [Obj(key="k")]\n') == (
        "main.cf:12:6: error: the constructor of __config__::Obj must set relation 'file': it is part of index "
        "__config__::Obj(file, key)  [index-attribute-missing]\n"
        "main.cf:8:1: note: index __config__::Obj(file, key) is defined here"
    )


def test_instances_with_unknown_index_values_stay_apart(project: Project) -> None:
    source = """
        entity A:
            string name
            int n = 0
        end
        index A(name)
        implement A using std::none
        A(name=std::get_env("CFMODEL_SURELY_UNSET_VARIABLE"))
        A(name=std::get_env("CFMODEL_SURELY_UNSET_VARIABLE"), n=1)
        A(name="b", n=2)
        A(name="b", n=2)
    """
    result = compile_main(project, source)
    assert values(result, "A", "n") == [0, 1, 2]
    assert [type(v).__name__ for v in values(result, "A", "name")] == ["Unknown", "Unknown", "str"]
