"""Compile the whole real-module corpus with inmanta-core 20.1 and with cfmodel; print the table.

    .venv/bin/python scripts/modules_agreement.py            # every case
    .venv/bin/python scripts/modules_agreement.py -k fs/     # the cases whose name contains fs/
    .venv/bin/python scripts/modules_agreement.py --details  # one line per case, and the causes

The corpus (tests/modules/corpus.py): the models the pinned modules' own tests compile and
the projects in tests/modules/projects/. Downloads go to ~/.cache/cfmodel/modules; the
first run also makes inmanta-core's venv there (a few minutes). tests/modules/test_agreement.py
runs a part of it in CI.
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from tests.modules import agreement, corpus


def main() -> int:
    formatter = argparse.RawDescriptionHelpFormatter
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=formatter)
    parser.add_argument("-k", dest="pattern", default="", help="only cases whose name contains this")
    parser.add_argument("--details", action="store_true", help="one line per case, and cfmodel's errors")
    options = parser.parse_args()
    started = time.perf_counter()
    collected = corpus.module_cases()
    cases = [c for c in collected.cases + corpus.project_cases() if options.pattern in c.name]
    outcomes = agreement.run(cases)
    if options.details:
        for outcome in outcomes:
            print(f"{outcome.verdict:10} {outcome.case.name}")
        print()
        for count, text in agreement.causes(outcomes):
            print(f"{count:4}  {text}")
        print()
    print(agreement.table(outcomes))
    skipped = ", ".join(f"{k} {v}" for k, v in sorted(collected.skipped.items()))
    print(f"\nnot extractable (model not a literal): {skipped or 'none'}")
    print(f"{len(outcomes)} cases in {time.perf_counter() - started:.1f} s")
    return 0


if __name__ == "__main__":
    sys.exit(main())
