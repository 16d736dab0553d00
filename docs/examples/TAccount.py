"""A TarsWeb user, admin, whose password is a Pulumi config secret (hashed, never stored)."""

import pulumi

from tars_components import Mode, Options, TAccount, TAccountArgs, TFramework, TFrameworkArgs

framework = TFramework(
    "tars-dev",
    TFrameworkArgs(
        namespace="tars-dev",
        options=Options(namespace="tars-dev", mode=Mode.CRD),
        existing_config=True,  # the cluster's framework has its tars-framework config
    ),
)

config = pulumi.Config()
admin = TAccount(
    "admin",
    TAccountArgs(
        framework,
        username="admin",
        password=config.require_secret("adminPassword"),  # pulumi config set --secret
        authorization=[{"role": "admin", "flag": "*"}],
    ),
)
