"""``inmanta.execute``: `util` (Unknown, NoneValue) and `proxy` (instances as plugins see them)."""
