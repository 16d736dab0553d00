"""The kernel: what every room below the documents uses and nothing of TarsK8S.

Errors as data (:mod:`.errors`), field paths and their source lines (:mod:`.paths`, reading YAML
with marks through :mod:`.yaml_reader`), the rule registry (:mod:`.registry`: each rule's code,
severity and metadata, each check and what it needs), input limits, text helpers, lazy package
attributes, deprecated names and the version. Nothing here imports a room above it.
"""
