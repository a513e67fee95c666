"""The fast PyEcore runtime, below the compiler, the readers and the fixed metamodels.

* `fastpath`: light objects (PyEcore's classes, less bookkeeping per object) and the
  slotted holders of single values, with the direct collection and reference setters the
  XMI/JSON readers and the compiler's model (`cfmodel.transforms.cf.model`) build with.
* `codegen`: compiling the per-class code generated from a metamodel (readers, writers,
  checks), with names embedded as literals only.
* `plain`: a fixed metamodel's objects as slotted plain objects, turned into PyEcore
  objects on demand (the bindings parser builds them).

Nothing here imports the transforms, the grammars or the serializers: the serializers are
left with formats.
"""
