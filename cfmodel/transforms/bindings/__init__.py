"""The bindings language (ARM-8) and Hiera: composition (compose/) and layer providers (providers/)."""
