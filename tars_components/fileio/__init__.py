"""File I/O: reading stack files within the limits (:mod:`.files`) and writing YAML byte for
byte the same way every time (:mod:`.yaml_writer`)."""
