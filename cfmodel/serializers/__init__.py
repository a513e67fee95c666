"""Serializers: one module per format, each able to write and read."""
