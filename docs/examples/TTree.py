"""The namespace's business tree: the business shop and the app Shop in it."""

from tars_components import Mode, Options, TFramework, TFrameworkArgs, TTree, TTreeArgs

framework = TFramework(
    "tars-dev",
    TFrameworkArgs(
        namespace="tars-dev",
        options=Options(namespace="tars-dev", mode=Mode.CRD),
        existing_config=True,  # the cluster's framework has its tars-framework config
    ),
)

tree = TTree(
    "tars-tree",
    TTreeArgs(
        framework,
        businesses=[{"name": "shop", "show": "Shop", "weight": 1}],
        apps=[{"name": "Shop", "businessRef": "shop"}],
    ),
)
