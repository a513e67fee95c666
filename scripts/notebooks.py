"""Run the example notebooks and keep their outputs in the files, so the docs show them.

    python scripts/notebooks.py            run every notebook of examples/notebooks, write it back
    python scripts/notebooks.py NAME...    only these (walkthrough.ipynb, ...)

Each notebook runs in a fresh Jupyter kernel (nbclient, ipykernel) from its own directory,
as a reader would run it. What depends on the machine is normalised before the outputs are
stored: the repository's absolute path becomes ``…`` and a run time such as
``(0.17 s)`` becomes ``(… s)``; cells carry no timing metadata. ``tests/test_notebooks.py``
runs them the same way and compares its outputs with the stored ones, so the outputs the
docs show are what the notebooks print today.
"""

from __future__ import annotations

import re
import sys
from pathlib import Path
from typing import Any

import nbformat
from nbclient import NotebookClient

REPO = Path(__file__).resolve().parents[1]
NOTEBOOKS = REPO / "examples" / "notebooks"
_SECONDS = re.compile(r"\(\d+\.\d+ s\)")


def run(path: Path) -> Any:
    """The notebook at *path*, executed in a fresh kernel, its outputs normalised."""
    notebook = nbformat.read(path, as_version=4)
    client = NotebookClient(
        notebook,
        timeout=300,
        kernel_name="python3",
        record_timing=False,
        resources={"metadata": {"path": str(path.parent)}},
    )
    client.execute()
    notebook.metadata.pop("widgets", None)
    for cell in notebook.cells:
        if cell.cell_type == "code":
            cell.outputs = [_normalised(output) for output in cell.outputs]
    return notebook


def _normalised(output: Any) -> Any:
    if "text" in output:
        output["text"] = _text(output["text"])
    for mime, value in output.get("data", {}).items():
        if isinstance(value, str):
            output["data"][mime] = _text(value)
    return output


def _text(text: str) -> str:
    return _SECONDS.sub("(… s)", text.replace(str(REPO), "…"))


def shown(notebook: Any) -> list[list[dict[str, Any]]]:
    """What a reader sees of each code cell's outputs: text streams, text and HTML (pictures
    are left out: their bytes depend on the Graphviz version)."""
    seen = []
    for cell in notebook.cells:
        if cell.cell_type != "code":
            continue
        outputs = []
        for output in cell.outputs:
            if output["output_type"] == "stream":
                outputs.append({"stream": output["text"]})
            elif "data" in output:
                outputs.append({k: v for k, v in output["data"].items() if k in ("text/plain", "text/html")})
        seen.append(outputs)
    return seen


def main(names: list[str]) -> int:
    paths = [NOTEBOOKS / name for name in names] or sorted(NOTEBOOKS.glob("*.ipynb"))
    for path in paths:
        nbformat.write(run(path), path)
        print(path.relative_to(REPO))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
