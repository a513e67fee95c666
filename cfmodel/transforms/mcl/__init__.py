"""mcl, mgmt's language (seeds/003): the stages from a parsed program to its resource graph.

One module per stage, each with one entry point and a docstring saying what holds after
it: `interpolate` → `scope` → `unify` → `evaluate` (the function engine) → `interpret`
→ `autoedge`. `types`, `funcs` (the Python function API) and `core` (the core function
library) serve them. `cfmodel.mcl` chains the stages.
"""
