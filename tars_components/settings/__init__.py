"""Settings: the options a stack is built with (:mod:`.options`: mode, workload, release tag,
ownership, namespaces). Reading them from Pulumi config or the CLI is a job's
(:mod:`tars_components.jobs.config`)."""
