"""What vulture cannot see used in cfmodel/, and why: names another program reads, or that
cfmodel reads by name. `tests/test_dead_code.py` runs vulture at 60 % confidence (its
default: unused functions, methods, classes, attributes and variables too) over cfmodel/
with this file, the tests, scripts and benchmarks; anything else it finds is dead.

Not listed, because the test passes them to vulture as patterns: the methods a class finds
by name from a node's rule or class (``build_*``, ``expr_*``, ``eval_*``, ``stmt_*``,
``element_*``, ``add_*``, ``visit_*``) and the ``@plugin`` functions of the built-in std.
The shim (``cfmodel/shim/inmanta/``) is inmanta's API as module code sees it, every name
of it for module code; vulture reads it (what it uses is used) but its own names are not
reported.
"""

# ruff: noqa: B018, F821

# ---- read by Python, IPython and Jupyter, Jinja2, expat and PyEcore under these names
__getattr__  # cfmodel/__init__.py: the package's public names imported on first use (PEP 562)
__dir__
_._repr_pretty_  # IPython's pretty printer (display.py)
_._repr_svg_  # Jupyter's rich display (serializers/dot.py: Picture)
_.context_class  # Jinja2's Environment: the template context class (std plugins)
intercepted_binops  # Jinja2's sandbox: the operators it hands to call_binop (bounded.py)
_.StartElementHandler  # expat's callbacks (serializers/xmi/reader.py, xmlsafe.py)
_.EndElementHandler
_.StartNamespaceDeclHandler
_.EndNamespaceDeclHandler
_.CharacterDataHandler
_.EntityDeclHandler
_.UnparsedEntityDeclHandler
_.ExternalEntityRefHandler
_.buffer_text  # expat's buffering (xmlsafe.py)
_.buffer_size
_.type_as_factory  # PyEcore's EDataType: how a value of the type is made (datatypes.py)
_.serializable  # PyEcore's EDataType flag, set as EMF reads it (ecore.py)
_.resolveProxies  # PyEcore's EReference flag, set as EMF reads it (ecore.py)
_.derived_class  # PyEcore's EStructuralFeature: the collection class of a feature map (featuremaps.py)
_.dynamicDirectory  # a feature of the environments metamodel, set through PyEcore (request.py)

# ---- inmanta's API, called by module code: plugins, resources, handlers, references
_.get_environment_id  # plugins.py: Context
_._model_type  # references.py: Reference
_.get_references
_.get_mutators
_.resource_requires  # resources.py: Resource, ResourceHandler, dependency managers
_.get_entity_type
_.get_agent_name
_.get_attribute
_.get_attribute_value
_.get_send_event
_.get_receive_events
_.get_report_only
_.get_managed
_.get_entity_resources
_.get_resources
_.upload_file  # transforms/cf/export.py: the exporter's file store
_.get_name  # transforms/cf/refine/pluginrt.py: the proxies and types plugins receive
_.get_full_name
_.get_all_parent_names
_.get_all_attribute_names
_.get_attributes
_.is_subclass
_._type
_._get_instance
_.unwrap
_.return_value

# ---- read by name from a table
old_syntax  # grammars/nodes.py Relation: metamodel/program.py's FIELDS (the program as a model)

# ---- public API, for users (documented)
_.save_rdf  # CompileResult.save_rdf (docs/rdf.md)
_.png  # Picture.png (docs/graph.md)
reads  # mcl's Function.reads: what an impure function reads (docs/mcl.md)
