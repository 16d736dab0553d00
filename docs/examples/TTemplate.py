"""A config template of Tars servers, shop.cpp, inheriting from the namespace's tars.cpp."""

from tars_components import Mode, Options, TFramework, TFrameworkArgs, TTemplate, TTemplateArgs

framework = TFramework(
    "tars-dev",
    TFrameworkArgs(
        namespace="tars-dev",
        options=Options(namespace="tars-dev", mode=Mode.CRD),
        existing_config=True,  # the cluster's framework has its tars-framework config
        templates={"tars.default": "tars.default", "tars.cpp": "tars.default"},
    ),
)

template = TTemplate(
    "shop-cpp",
    TTemplateArgs(
        framework,
        template_name="shop.cpp",
        parent="tars.cpp",
        content="<tars><application><server>logLevel=INFO</server></application></tars>",
    ),
)
