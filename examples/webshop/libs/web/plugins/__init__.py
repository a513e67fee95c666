"""The web module's resources: what `cfmodel export` (and `inmanta export`) makes of the
instances of web::deploy, one resource per instance, on the agent named by its `agent`."""

from cfmodel.resources import PurgeableResource, Resource, resource


@resource("web::deploy::Package", agent="agent", id_attribute="name")
class Package(PurgeableResource):
    fields = ("name", "state")


@resource("web::deploy::File", agent="agent", id_attribute="path")
class File(PurgeableResource):
    fields = ("path", "content", "permissions", "owner")


@resource("web::deploy::Service", agent="agent", id_attribute="name")
class Service(Resource):
    fields = ("name", "state", "onboot")
