"""The framework's TImages (no model yet: emitted as the chart writes them)."""

from __future__ import annotations

from typing import Any

from ..models.vocabulary import (
    LABEL_APP,
    LABEL_IMAGE_TYPE,
    LABEL_SERVER,
    LABEL_SUBTYPE,
    SUPPORTED_PREFIX,
)
from .framework_common import TARS_API
from .framework_documents import object_meta
from .values import FrameworkValues

SERVER_IMAGES = (
    "tarsadminregistry",
    "tarsconfig",
    "tarsimage",
    "tarskaniko",
    "tarskevent",
    "tarslog",
    "tarsnotify",
    "tarsproperty",
    "tarsqueryproperty",
    "tarsquerystat",
    "tarsregistry",
    "tarsstat",
    "tarsweb",
)
"""Server TImages ``tars-<name>`` (elasticsearch has none)."""

BASE_IMAGES = (
    # name, release id prefix, image, supported types, release mark
    ("cppbase", "builtin-cppbase", "tars.cppbase", ("cpp", "go"), "builtin for [cpp,go] server"),
    ("javabase", "builtin-java8base", "tars.javabase", ("java-jar", "java-war"), None),
    ("nodejsbase", "builtin-nodejsbase", "tars.nodejsbase", ("nodejs",), None),
    ("php74base", "builtin-php74base", "tars.php74base", ("php",), None),
)


def _release(values: FrameworkValues, release_id: str, image: str) -> dict[str, Any]:
    fw = values.framework
    release: dict[str, Any] = {"id": release_id, "image": fw.image(image)}
    if fw.secret:
        release["secret"] = fw.secret
    return release


def timages(values: FrameworkValues, namespace: str) -> list[dict[str, Any]]:
    """The 13 server TImages, then ``node`` and the four base TImages, each with the chart's
    built-in release (earlier releases are the live object's; see the Pulumi component)."""
    tag = values.framework.tag
    out: list[dict[str, Any]] = []
    for name in SERVER_IMAGES:
        labels = {LABEL_APP: "tars", LABEL_SERVER: name}
        if name == "tarsweb":
            labels[LABEL_SUBTYPE] = "normal"
        out.append(
            {
                "apiVersion": TARS_API,
                "kind": "TImage",
                "metadata": object_meta(f"tars-{name}", namespace, labels),
                "imageType": "server",
                "releases": [_release(values, tag, f"tars.{name}")],
            }
        )
    node = _release(values, f"builtin-node-{tag}", "tars.tarsnode")
    node["mark"] = "builtin release for tarsnode"
    out.append(
        {
            "apiVersion": TARS_API,
            "kind": "TImage",
            "metadata": object_meta("node", namespace),
            "imageType": "node",
            "mark": "builtin release",
            "releases": [node],
        }
    )
    for name, prefix, image, supported, mark in BASE_IMAGES:
        labels = {LABEL_IMAGE_TYPE: "base"}
        labels.update({f"{SUPPORTED_PREFIX}{t}": "" for t in supported})
        release = _release(values, f"{prefix}-{tag}", image)
        if mark:
            release["mark"] = mark
        out.append(
            {
                "apiVersion": TARS_API,
                "kind": "TImage",
                "metadata": object_meta(name, namespace, labels),
                "imageType": "base",
                "supportedType": list(supported),
                "mark": "builtin release",
                "releases": [release],
            }
        )
    return out
