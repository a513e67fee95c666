"""The fast PyEcore runtime, below the compiler, the readers and the fixed metamodels.

One object model: the model objects cfmodel hands out are PyEcore objects, and this
runtime builds them (the compiler's model, the readers, the fixed metamodels' parsers and
every small model: a resource graph's, an environments catalog, a comparison), as light
objects with slotted holders when PyEcore is laid out as it knows it.

* `objects`: `ObjectBuilder`, the one way new objects are built from values: the compiler's
  model (instances to objects), the fixed metamodels' plain objects (`plain.plain_to_ecore`),
  the small models (`ObjectBuilder.make`, `build`, `Maker`: ``eclass(**values)`` on the
  builder) and, written out per class, the readers' generated constructors.
* `fastpath`: the light objects (PyEcore's classes, less bookkeeping per object) and the
  slotted holders of single values, probed against PyEcore's own behaviour at import, with
  the direct value readers and setters the builder, the readers and the writers use.
* `codegen`: the `Emitter` every generated per-class function is written with (readers,
  writers, checks, plain classes), with model names embedded as literals only.
* `plain`: a fixed metamodel's objects as slotted plain objects, what its parser builds
  (ten times faster than PyEcore objects), turned into the builder's objects on demand.

Nothing here imports the transforms, the grammars or the serializers: the serializers are
left with formats.
"""
