from inmanta.plugins import plugin


@plugin
def shout(name: "string") -> "string":
    return name.upper() + "!"
