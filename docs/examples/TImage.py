"""The releases of the Shop.Order server's image, as a TImage of the cluster."""

from tars_components import Mode, Options, TFramework, TFrameworkArgs, TImage, TImageArgs

framework = TFramework(
    "tars-dev",
    TFrameworkArgs(
        namespace="tars-dev",
        options=Options(namespace="tars-dev", mode=Mode.CRD),
        existing_config=True,  # the cluster's framework has its tars-framework config
    ),
)

image = TImage(
    "shop-order",
    TImageArgs(
        framework,
        name="shop-order",
        image_type="server",
        releases=[
            {"id": "v1", "image": "reg.example.com/shop/order:v1"},
            {"id": "v2", "image": "reg.example.com/shop/order:v2"},
        ],
        default="v2",
    ),
)
