"""A config file of the Shop.Order server, order.conf, as a TConfig of the cluster."""

from tars_components import Mode, Options, TConfig, TConfigArgs, TFramework, TFrameworkArgs

framework = TFramework(
    "tars-dev",
    TFrameworkArgs(
        namespace="tars-dev",
        options=Options(namespace="tars-dev", mode=Mode.CRD),
        existing_config=True,  # the cluster's framework has its tars-framework config
    ),
)

config = TConfig(
    "order-conf",
    TConfigArgs(
        framework,
        app="Shop",
        server="Order",
        config_name="order.conf",
        config_content="timeout=1500\nretries=3\n",
    ),
)
