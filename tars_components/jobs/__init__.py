"""Jobs: what a command or a Pulumi program does with a stack, built on the pipeline.

Rendering the tree (:mod:`.render`, :mod:`.tree_writer`), converting and importing
(:mod:`.convert`, :mod:`.importer`, :mod:`.import_plan`), the per-cluster and Karmada trees
(:mod:`.multicluster`, :mod:`.karmada`), the accounts' salts (:mod:`.account_salts`) and the
stack settings read from Pulumi config (:mod:`.config`).
"""
