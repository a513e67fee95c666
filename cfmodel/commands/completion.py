"""``cfmodel completion bash|zsh|fish``: a shell completion script, made from the CLI itself.

The script knows every command and subcommand (``xmi export``, ``bindings show``…) and the
options of each, read from the argument parser when it is printed, so it never lags behind
the CLI. Install it with ``source <(cfmodel completion bash)`` (in ``~/.bashrc``), the same
with ``zsh`` (it loads bash's completion support), or ``cfmodel completion fish >
~/.config/fish/completions/cfmodel.fish``. Paths complete as files.
"""

from __future__ import annotations

import argparse
import shlex

from cfmodel.commands import SubParsers

ORDER = 95

#: A command path (``("bindings", "show")``; ``()`` is ``cfmodel`` itself) and what follows it:
#: its subcommands and its options.
Tree = dict[tuple[str, ...], tuple[list[str], list[str]]]
#: where no command or option matches, what is typed completes as a file name
_FILES = '[[ ${#COMPREPLY[@]} -eq 0 && "$current" != -* ]] && COMPREPLY=($(compgen -f -- "$current"))'
_FISH_FILE = "~/.config/fish/completions/cfmodel.fish"


def command_tree(parser: argparse.ArgumentParser, path: tuple[str, ...] = ()) -> Tree:
    """Every command path of the parser with its subcommands and options, sorted."""
    subcommands: list[str] = []
    options: list[str] = []
    tree: Tree = {}
    for action in parser._actions:  # argparse has no public walk of a parser's arguments
        if isinstance(action, argparse._SubParsersAction):
            for name, child in action.choices.items():
                subcommands.append(name)
                tree.update(command_tree(child, (*path, name)))
        else:
            options.extend(o for o in action.option_strings if o.startswith("--") or len(o) == 2)
    tree[path] = (sorted(subcommands), sorted(options))
    return tree


def bash_script(tree: Tree) -> str:
    """The bash function: the longest command path among the words typed decides the words."""
    cases: list[str] = []
    for path, (subcommands, options) in sorted(tree.items(), key=lambda item: -len(item[0])):
        pattern = " ".join(path)
        words = " ".join(subcommands + options)
        matches = f'[[ " $typed " == " {pattern} "* ]] || [[ -z {shlex.quote(pattern)} ]]'
        cases += [
            f"    if {matches}; then",
            f'        COMPREPLY=($(compgen -W {shlex.quote(words)} -- "$current"))',
            f"        {_FILES}",
            "        return 0",
            "    fi",
        ]
    return "\n".join(
        [
            "# cfmodel completion for bash (and zsh through bashcompinit): cfmodel completion bash",
            "_cfmodel() {",
            '    local current="${COMP_WORDS[COMP_CWORD]}" typed="" word',
            '    for word in "${COMP_WORDS[@]:1:COMP_CWORD-1}"; do',
            '        [[ "$word" == -* ]] || typed="${typed:+$typed }$word"',
            "    done",
            *cases,
            "}",
            "complete -o default -F _cfmodel cfmodel",
            "",
        ]
    )


def zsh_script(tree: Tree) -> str:
    head = (
        "# cfmodel completion for zsh: cfmodel completion zsh\nautoload -U +X bashcompinit && bashcompinit\n"
    )
    return head + bash_script(tree)


def fish_script(tree: Tree) -> str:
    lines = [f"# cfmodel completion for fish: cfmodel completion fish > {_FISH_FILE}"]
    for path, (subcommands, options) in sorted(tree.items()):
        if path:
            condition = "; and ".join(f"__fish_seen_subcommand_from {p}" for p in path)
        else:
            condition = "__fish_use_subcommand"
        if subcommands:
            words = shlex.quote(" ".join(subcommands))
            lines.append(f"complete -c cfmodel -f -n {shlex.quote(condition)} -a {words}")
        for option in options:
            flag = f"-l {option[2:]}" if option.startswith("--") else f"-s {option[1:]}"
            lines.append(f"complete -c cfmodel -n {shlex.quote(condition)} {flag}")
    return "\n".join(lines) + "\n"


SCRIPTS = {"bash": bash_script, "zsh": zsh_script, "fish": fish_script}


def cmd_completion(args: argparse.Namespace) -> int:
    from cfmodel.cli import build_parser  # the whole CLI, made when the script is asked for

    print(SCRIPTS[args.shell](command_tree(build_parser())), end="")
    return 0


def register(sub: SubParsers, common: argparse.ArgumentParser) -> None:
    p = sub.add_parser(
        "completion", parents=[common], help="print a shell completion script (bash, zsh, fish)"
    )
    p.add_argument("shell", choices=sorted(SCRIPTS), help="the shell")
    p.set_defaults(func=cmd_completion)
