"""``bind Type[X] to Type[Y]``: ARM-8 requires ``Y`` to be ``X`` or a subtype (issue 19)."""

from __future__ import annotations

from tests.compiler.conftest import Project

from .test_parameters import compile_with, error_with

LOGGERS = """
entity Logger:
end
entity SpecialLogger extends Logger:
end
entity VerySpecialLogger extends SpecialLogger:
end
entity Printer:
end
implement Logger using std::none
implement Printer using std::none
"""


def test_a_subtype_of_any_depth_may_be_bound(project: Project) -> None:
    bindings = (
        "bindings default {\n"
        "  bind Type[Logger] to Type[VerySpecialLogger]\n"
        "  bind Type[Logger], 'plain' to Type[Logger]\n"
        "  bind Type[Number], 'n' to Type[Integer]\n"
        "  bind Type[Runtime] to Type[OtherRuntime]\n"  # runtime types: not the program's to judge
        "}\n"
    )
    assert compile_with(project, LOGGERS, bindings) == "\n"  # compiles: no instances to show


def test_a_type_that_is_not_a_subtype_is_a_composition_error(project: Project) -> None:
    bindings = (
        "bindings default {\n"
        "  bind Type[SpecialLogger] to Type[Logger]\n"
        "  bind Type[Logger], 'printer' to Type[Printer]\n"
        "  bind Type[Logger], 'typo' to Type[SpecialLoger]\n"
        "}\n"
    )
    assert error_with(project, LOGGERS, bindings) == "\n".join(
        [
            "{dir}/bindings/default.bind:2:3: error: bind Type[SpecialLogger] to Type[Logger]: the bound type must "
            "be SpecialLogger or a subtype; __config__::Logger does not extend SpecialLogger (its parents: "
            'std::Entity) (bindings default, layer "site", category common)  [not-a-subtype]',
            "{dir}/bindings/default.bind:3:3: error: bind Type[Logger] to Type[Printer]: the bound type must be "
            "Logger or a subtype; __config__::Printer does not extend Logger (its parents: std::Entity) "
            '(bindings default, layer "site", category common)  [not-a-subtype]',
            "{dir}/bindings/default.bind:4:3: error: bind Type[Logger] to Type[SpecialLoger]: the bound type must "
            "be Logger or a subtype; SpecialLoger is no entity of the program (bindings default, layer "
            '"site", category common)  [not-a-subtype]',
        ]
    )


def test_data_types_are_checked_when_composing(project: Project) -> None:
    bindings = "bindings default {\n  bind Type[Number], 'n' to Type[String]\n}\n"
    assert error_with(project, LOGGERS, bindings) == (
        '{dir}/bindings/default.bind:2:3: error: type mismatch for Type[Number] "n": expected Type[Number], '
        'got Type Type[String] (bindings default, layer "site", category common)  [type-mismatch]'
    )
