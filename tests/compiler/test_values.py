"""Variables, scopes, single assignment, null and type checks."""

from __future__ import annotations

from tests.compiler.conftest import Project, compile_main, error_of, values

OUT = """
entity Out:
    string v
end
implement Out using std::none
"""


def test_statements_run_in_dependency_order(project: Project) -> None:
    result = compile_main(
        project,
        OUT
        + """
Out(v=c)
c = "{{b}}!"
b = a + "-b"
a = "a"
""",
    )
    assert values(result, "Out", "v") == ["a-b!"]


def test_identical_reassignment_is_fine(project: Project) -> None:
    result = compile_main(project, OUT + 'x = 1\nx = 1\ny = [1, "a"]\ny = [1, "a"]\nOut(v="{{x}}")\n')
    assert values(result, "Out", "v") == ["1"]


def test_double_assignment_shows_both_values_and_places(project: Project) -> None:
    assert error_of(project, 'var1 = 1\nvar1 = "test"\n') == (
        "main.cf:2:1: error: variable 'var1' is already 1; it cannot be set to \"test\" "
        "(a value is assigned once)  [double-assignment]\n"
        "main.cf:1:1: note: the first value, 1, was set here"
    )


def test_a_bool_is_not_the_number_one(project: Project) -> None:
    assert error_of(project, "x = 1\nx = true\n") == (
        "main.cf:2:1: error: variable 'x' is already 1; it cannot be set to true "
        "(a value is assigned once)  [double-assignment]\n"
        "main.cf:1:1: note: the first value, 1, was set here"
    )


def test_undefined_name(project: Project) -> None:
    assert error_of(project, "x = y\n") == "main.cf:1:5: error: name 'y' is not defined  [undefined]"


def test_an_entity_is_not_a_value(project: Project) -> None:
    assert error_of(project, OUT + "x = Out\n") == (
        "main.cf:5:5: error: Out is an entity, not a value  [not-a-value]"
    )


def test_block_variables_are_local_and_see_outer_ones(project: Project) -> None:
    result = compile_main(
        project,
        OUT
        + """
x = "outer"
if true:
    x = "inner"
    Out(v="if sees {{x}}")
end
for i in [1, 2]:
    y = "{{x}}{{i}}"
    Out(v=y)
end
Out(v=x)
""",
    )
    assert values(result, "Out", "v") == ["outer", "if sees inner", "outer1", "outer2"]


def test_variables_of_other_namespaces(project: Project) -> None:
    project.module("lib", {"model/_init.cf": 'greeting = "hi"\n', "model/sub.cf": 'name = "sub"\n'})
    project.write({"project.yml": "name: p\nmodulepath: libs\n"})
    result = compile_main(
        project, "import lib\nimport lib::sub as s\n" + OUT + 'Out(v="{{lib::greeting}} {{s::name}}")\n'
    )
    assert values(result, "Out", "v") == ["hi sub"]


def test_missing_import(project: Project) -> None:
    project.module("lib", {"model/_init.cf": 'greeting = "hi"\n'})
    project.write({"project.yml": "name: p\nmodulepath: libs\n"})
    assert error_of(project, "x = lib::greeting\n") == (
        "main.cf:1:5: error: 'lib' is not imported in namespace __config__ (add 'import lib')  [missing-import]"
    )


def test_unknown_variable_of_a_namespace(project: Project) -> None:
    project.module("lib", {"model/_init.cf": 'greeting = "hi"\n'})
    project.write({"project.yml": "name: p\nmodulepath: libs\n"})
    assert error_of(project, "import lib\nx = lib::nope\n") == (
        "main.cf:2:5: error: namespace lib has no variable 'nope'  [undefined]"
    )


def test_null_and_nullable(project: Project) -> None:
    result = compile_main(
        project,
        """
entity A:
    string? a
    string? b = null
    int[]? c = null
end
implement A using std::none
A(a=null)
A(a="x", b="y", c=[1])
""",
    )
    assert values(result, "A", "a") == [None, "x"]
    assert values(result, "A", "b") == [None, "y"]
    assert values(result, "A", "c") == [None, [1]]


def test_null_for_a_type_that_is_not_nullable(project: Project) -> None:
    assert error_of(project, OUT + "Out(v=null)\n") == (
        "main.cf:5:5: error: attribute 'v' of __config__::Out instance (created at main.cf:5:1) cannot be null: "
        "its type is string (write string? to allow null)  [type-error]"
    )


def test_type_checks(project: Project) -> None:
    source = """
entity A:
    int n = 0
    float f = 1.0
    bool b = false
    string[] l = []
    dict d = {}
end
implement A using std::none
"""
    result = compile_main(project, source + 'A(n=1, f=2.5, b=true, l=["x"], d={"k": [1]})\n')
    assert values(result, "A", "f") == [2.5]
    cases = {
        'A(n="1")': "attribute 'n' of __config__::A instance (created at main.cf:9:1) must be an int, "
        'not string "1"',
        "A(n=1.5)": "attribute 'n' of __config__::A instance (created at main.cf:9:1) must be an int, not float 1.5",
        "A(f=2)": "attribute 'f' of __config__::A instance (created at main.cf:9:1) must be a float, not int 2",
        "A(b=1)": "attribute 'b' of __config__::A instance (created at main.cf:9:1) must be a bool, not int 1",
        "A(l=[1])": "attribute 'l' of __config__::A instance (created at main.cf:9:1) (item 0) must be a string, "
        "not int 1",
        'A(l="x")': "attribute 'l' of __config__::A instance (created at main.cf:9:1) must be a list (string[]), "
        'not string "x"',
        "A(d=[])": "attribute 'd' of __config__::A instance (created at main.cf:9:1) must be a dict, not list []",
    }
    for call, message in cases.items():
        text = error_of(project, source + call + "\n")
        assert text.split(": error: ", 1)[1] == message + "  [type-error]", call


def test_typedef_regex_condition_and_chain(project: Project) -> None:
    source = """
typedef port as int matching self > 0 and self < 65536
typedef high_port as port matching self >= 1024
typedef mac as string matching /([0-9a-fA-F]{2})(:[0-9a-fA-F]{2}){5}$/
typedef lower as string matching std::lower(self) == self
entity A:
    port p = 80
    high_port h = 8080
    mac m = "00:11:22:33:44:55"
    lower s = "abc"
    mac[] macs = []
end
implement A using std::none
"""
    compile_main(project, source + 'A(macs=["aa:bb:cc:dd:ee:ff"])\n')
    assert error_of(project, source + "A(p=0)\n") == (
        "main.cf:13:3: error: attribute 'p' of __config__::A instance (created at main.cf:13:1): 0 does not "
        "satisfy typedef __config__::port  [typedef]\n"
        "main.cf:1:1: note: typedef __config__::port is defined here"
    )
    assert error_of(project, source + "A(h=80)\n") == (
        "main.cf:13:3: error: attribute 'h' of __config__::A instance (created at main.cf:13:1): 80 does not "
        "satisfy typedef __config__::high_port  [typedef]\n"
        "main.cf:2:1: note: typedef __config__::high_port is defined here"
    )
    assert (
        error_of(project, source + "A(h=70000)\n")
        .splitlines()[0]
        .endswith("70000 does not satisfy typedef __config__::port  [typedef]")
    )
    assert error_of(project, source + 'A(m="nope")\n') == (
        "main.cf:13:3: error: attribute 'm' of __config__::A instance (created at main.cf:13:1): \"nope\" does "
        "not match typedef __config__::mac (/([0-9a-fA-F]{2})(:[0-9a-fA-F]{2}){5}$/)  [typedef]\n"
        "main.cf:3:1: note: typedef __config__::mac is defined here"
    )
    assert error_of(project, source + 'A(s="ABC")\n').splitlines()[0] == (
        "main.cf:13:3: error: attribute 's' of __config__::A instance (created at main.cf:13:1): \"ABC\" does "
        "not satisfy typedef __config__::lower  [typedef]"
    )
    assert error_of(project, source + 'A(macs=["x"])\n').splitlines()[0] == (
        "main.cf:13:3: error: attribute 'macs' of __config__::A instance (created at main.cf:13:1) (item 0): "
        '"x" does not match typedef __config__::mac (/([0-9a-fA-F]{2})(:[0-9a-fA-F]{2}){5}$/)  [typedef]'
    )


def test_typedef_checked_on_every_assignment(project: Project) -> None:
    source = """
typedef port as int matching self > 0
entity A:
    port p
end
implement A using std::none
a = A()
a.p = -1
"""
    assert error_of(project, source).splitlines()[0] == (
        "main.cf:7:1: error: attribute 'p' of __config__::A instance (created at main.cf:6:5): -1 does not "
        "satisfy typedef __config__::port  [typedef]"
    )


def test_enums_and_is(project: Project) -> None:
    result = compile_main(
        project,
        """
enum os with parent root as "unix", "windows"
enum os with parent "unix" as "linux", "bsd"
entity Machine:
    os os
    bool unixy
end
implement Machine using std::none
implement Machine using mark when os is "unix"
implement Machine using other when not (os is "unix")
implementation mark for Machine:
    self.unixy = true
end
implementation other for Machine:
    self.unixy = false
end
Machine(os="linux")
Machine(os="windows")
""",
    )
    assert values(result, "Machine", "unixy") == [True, False]


def test_typedef_condition_with_a_plugin_is_evaluated_per_value(project: Project) -> None:
    source = """
typedef lower as string matching std::lower(self) == self
entity A:
    lower s
end
implement A using std::none
A(s="abc")
A(s="def")
A(s="xyz")
"""
    compile_main(project, source)
    assert error_of(project, source + 'A(s="Nope")\n').splitlines()[0] == (
        "main.cf:9:3: error: attribute 's' of __config__::A instance (created at main.cf:9:1): \"Nope\" does not "
        "satisfy typedef __config__::lower  [typedef]"
    )
