"""The cyclic garbage collector around the steps that build or visit many objects at once
(parsers, readers, writers): paused meanwhile, and what a reader built promoted.

No dependency beyond the standard library, so the parsers can use it without loading
PyEcore.
"""

from __future__ import annotations

import gc
from collections.abc import Iterator
from contextlib import contextmanager


@contextmanager
def gc_paused(promote: bool = False) -> Iterator[None]:
    """Pause the cyclic garbage collector while a document is parsed, read or written.

    Building or visiting 100k objects triggers full collections over and over while
    nothing can be garbage yet (measured: a third of an XMI load, and the reason load
    time grew faster than the model).

    With `promote` (readers), the objects made meanwhile go straight to the collector's
    oldest generation when the pause ends (`promote_young`), instead of being scanned by
    the young collection that would follow and again by the middle one: a model just
    read is long-lived by nature, and full collections still scan (and free) it.
    """
    was_enabled = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        if was_enabled:
            if promote:
                promote_young()
            gc.enable()


def promote_young() -> None:
    """Move every object the cyclic collector tracks into its oldest generation, unscanned.

    ``gc.freeze()`` moves all tracked objects into the permanent generation (and zeroes
    the young generation's count), ``gc.unfreeze()`` moves them all into the oldest one:
    together, the young and middle collections skip them, full collections still see
    them, so cycles among them are freed as before (nothing stays frozen). Other young
    objects of the process move too, so cyclic garbage made just before is freed by the
    next full collection instead of a young one. Skipped when the process has frozen
    objects itself (unfreezing them is not ours to do).
    """
    if gc.get_freeze_count() == 0:
        gc.freeze()
        gc.unfreeze()
