"""A live namespace export, as ``kubectl get tservers,ttemplates,tconfigs,timages,ttrees,
taccounts,tframeworkconfigs,serviceaccounts,roles,rolebindings,ingresses -n tars -o yaml``
writes it: one ``kind: List`` of the official ``tarsframework`` 1.4.1 chart's objects (the
TServers, TTemplates and TFrameworkConfig of ``tests/data/corpus/framework``, the chart's TImages,
TTree, service accounts, roles and the tars-web Ingress) plus business TServers, TConfigs,
TImages and TAccounts, every object with the fields the API server writes (status, uid,
resourceVersion, generation, creationTimestamp, managedFields, the last-applied annotation)
and a controller-written TEndpoint.

Also used by ``benchmarks/export_scale.py`` (``business`` scales it).
"""

from __future__ import annotations

import copy
import hashlib
import json
from pathlib import Path
from typing import Any

import yaml

CORPUS = Path(__file__).parents[2] / "data" / "corpus" / "framework"
NAMESPACE = "tars"
TAG = "v1.4.0"
REGISTRY = "docker.tarsyun.com/tarscloud"
PASSWORDS = {"admin": "Adm1n-secret!", "ops": "0ps-Passw0rd"}
"""Plaintext passwords behind the exported hashes: no output may contain them."""
BCRYPT_HASHES = {
    # bcrypt(cost 6, sha1hex(password)) as the webhook stores them (fixed, precomputed)
    "admin": "$2a$06$vwDHHbPYOOr3fFxZvZHCJeDJKGgQMkwvaEhHs3WKgUiqWzw6ryzWy",
    "ops": "$2a$06$zJ.I/IDIE8rvDTkMu4sbR.IP19Ac25qwLZrBunB85VvkEq7QGiY.G",
}
FRAMEWORK_SERVERS = (
    "tarsadminregistry",
    "tarsconfig",
    "tarsimage",
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


def chart_documents() -> list[dict[str, Any]]:
    """The TarsK8S documents of the rendered framework chart (tests/data/corpus/framework)."""
    docs: list[dict[str, Any]] = []
    for path in sorted(CORPUS.glob("*.yaml")):
        docs.extend(d for d in yaml.safe_load_all(path.read_text()) if d)
    return docs


def chart_images() -> list[dict[str, Any]]:
    """The chart's TImages (timages.yaml and one per framework server)."""
    images: list[dict[str, Any]] = [
        {
            "apiVersion": "k8s.tars.io/v1beta3",
            "kind": "TImage",
            "metadata": {"name": "node", "namespace": NAMESPACE},
            "imageType": "node",
            "mark": "builtin release",
            "releases": [
                {
                    "id": f"builtin-node-{TAG}",
                    "image": f"{REGISTRY}/tars.tarsnode:{TAG}",
                    "mark": "builtin release for tarsnode",
                }
            ],
        }
    ]
    for name, types in (
        ("cppbase", ["cpp", "go"]),
        ("javabase", ["java-jar", "java-war"]),
        ("nodejsbase", ["nodejs"]),
        ("php74base", ["php"]),
    ):
        images.append(
            {
                "apiVersion": "k8s.tars.io/v1beta3",
                "kind": "TImage",
                "metadata": {
                    "name": name,
                    "namespace": NAMESPACE,
                    "labels": {
                        "tars.io/ImageType": "base",
                        **{f"tars.io/Supported.{t}": "" for t in types},
                    },
                },
                "imageType": "base",
                "supportedType": types,
                "mark": "builtin release",
                "releases": [
                    {"id": f"builtin-{name}-{TAG}", "image": f"{REGISTRY}/tars.{name}:{TAG}"}
                ],
            }
        )
    for server in (*FRAMEWORK_SERVERS, "tarskaniko"):
        images.append(
            {
                "apiVersion": "k8s.tars.io/v1beta3",
                "kind": "TImage",
                "metadata": {
                    "name": f"tars-{server}",
                    "namespace": NAMESPACE,
                    "labels": {"tars.io/ServerApp": "tars", "tars.io/ServerName": server},
                },
                "imageType": "server",
                "releases": [{"id": TAG, "image": f"{REGISTRY}/tars.{server}:{TAG}"}],
            }
        )
    return images


def chart_plain_objects() -> list[dict[str, Any]]:
    """Service accounts, a role, its binding, a cluster role and the tars-web Ingress."""
    objects: list[dict[str, Any]] = []
    for server in ("tarsweb", "tarsimage", "tarsregistry", "tarskevent"):
        objects.append(
            {
                "apiVersion": "v1",
                "kind": "ServiceAccount",
                "metadata": {"name": f"tars-{server}", "namespace": NAMESPACE},
                "secrets": [{"name": f"tars-{server}-token-x7k2p"}],
            }
        )
    objects.append(
        {
            "apiVersion": "rbac.authorization.k8s.io/v1",
            "kind": "Role",
            "metadata": {"name": "tars-tarsweb", "namespace": NAMESPACE},
            "rules": [{"apiGroups": [""], "resources": ["pods"], "verbs": ["get", "list"]}],
        }
    )
    objects.append(
        {
            "apiVersion": "rbac.authorization.k8s.io/v1",
            "kind": "RoleBinding",
            "metadata": {"name": "tars-tarsweb", "namespace": NAMESPACE},
            "roleRef": {
                "apiGroup": "rbac.authorization.k8s.io",
                "kind": "Role",
                "name": "tars-tarsweb",
            },
            "subjects": [
                {"kind": "ServiceAccount", "name": "tars-tarsweb", "namespace": NAMESPACE}
            ],
        }
    )
    objects.append(
        {
            "apiVersion": "rbac.authorization.k8s.io/v1",
            "kind": "ClusterRole",
            "metadata": {"name": "tars:tars-tarsweb"},
            "rules": [{"apiGroups": [""], "resources": ["nodes"], "verbs": ["get", "list"]}],
        }
    )
    objects.append(
        {
            "apiVersion": "networking.k8s.io/v1",
            "kind": "Ingress",
            "metadata": {
                "name": "tars-web",
                "namespace": NAMESPACE,
                "annotations": {"nginx.ingress.kubernetes.io/proxy-body-size": "0"},
            },
            "spec": {
                "rules": [
                    {
                        "host": "web.tars.example.com",
                        "http": {
                            "paths": [
                                {
                                    "path": "/",
                                    "pathType": "Prefix",
                                    "backend": {
                                        "service": {
                                            "name": "tars-tarsweb",
                                            "port": {"number": 3000},
                                        }
                                    },
                                }
                            ]
                        },
                    }
                ]
            },
            "status": {"loadBalancer": {"ingress": [{"ip": "10.0.0.9"}]}},
        }
    )
    return objects


def tree(business_apps: list[str]) -> dict[str, Any]:
    """tars-tree as the controller leaves it: the chart's apps plus the business apps."""
    apps = [
        {"name": "tars", "businessRef": "TarsFramework"},
        {"name": "base", "businessRef": "TarsFramework"},
    ]
    apps += [
        {
            "name": app,
            "businessRef": "",
            "createTime": "2024-03-01T08:00:00Z",
            "createPerson": "",
            "mark": "AddByController",
        }
        for app in business_apps
    ]
    return {
        "apiVersion": "k8s.tars.io/v1beta3",
        "kind": "TTree",
        "metadata": {
            "name": "tars-tree",
            "namespace": NAMESPACE,
            "annotations": {"helm.sh/hook": "pre-install,pre-upgrade"},
        },
        "businesses": [
            {
                "name": "TarsFramework",
                "show": "tars框架服务",
                "weight": 5,
                "createTime": "2024-03-01T08:00:00Z",
            }
        ],
        "apps": apps,
    }


def business_server(app: str, server: str, release: str) -> dict[str, Any]:
    """A business Tars server as TarsWeb creates it (after the webhook)."""
    name = f"{app.lower()}-{server.lower()}"
    return {
        "apiVersion": "k8s.tars.io/v1beta3",
        "kind": "TServer",
        "metadata": {
            "name": name,
            "namespace": NAMESPACE,
            "labels": {
                "tars.io/ServerApp": app,
                "tars.io/ServerName": server,
                "tars.io/SubType": "tars",
                "tars.io/Template": "tars.cpp",
                "tars.io/ServerID": release,
            },
        },
        "spec": {
            "app": app,
            "server": server,
            "subType": "tars",
            "important": 5,
            "tars": {
                "template": "tars.cpp",
                "profile": "",
                "asyncThread": 3,
                "servants": [
                    {
                        "name": f"{server}Obj",
                        "port": 10000,
                        "isTars": True,
                        "isTcp": True,
                        "thread": 3,
                        "capacity": 10000,
                        "connection": 10000,
                        "timeout": 60000,
                    }
                ],
                "ports": [],
            },
            "k8s": {
                "replicas": 1,
                "readinessGates": ["tars.io/active"],
                "abilityAffinity": "None",
                "notStacked": False,
                "daemonSet": False,
                "hostIPC": False,
                "hostNetwork": False,
                "hostPorts": [],
                "mounts": [],
                "updateStrategy": {
                    "type": "RollingUpdate",
                    "rollingUpdate": {"partition": 0},
                },
                "imagePullPolicy": "Always",
                "launcherType": "background",
            },
            "release": {
                "id": release,
                "image": f"registry.example.com/{app.lower()}.{server.lower()}:{release}",
                "secret": "",
                "time": "2024-03-02T09:30:00Z",
                "nodeImage": f"{REGISTRY}/tars.tarsnode:{TAG}",
                "nodeSecret": "",
            },
        },
    }


def business_image(app: str, server: str, releases: list[str]) -> dict[str, Any]:
    """The TImage tarsimage keeps for a business server."""
    return {
        "apiVersion": "k8s.tars.io/v1beta3",
        "kind": "TImage",
        "metadata": {
            "name": f"{app.lower()}-{server.lower()}",
            "namespace": NAMESPACE,
            "labels": {
                "tars.io/ImageType": "server",
                "tars.io/ServerApp": app,
                "tars.io/ServerName": server,
            },
        },
        "imageType": "server",
        "releases": [
            {
                "id": release,
                "image": f"registry.example.com/{app.lower()}.{server.lower()}:{release}",
                "createPerson": "admin",
                "createTime": "2024-03-02T09:00:00Z",
                "mark": "uploaded from TarsWeb",
            }
            for release in releases
        ],
        "build": {
            "last": {
                "id": releases[0],
                "baseImage": f"{REGISTRY}/tars.cppbase:{TAG}",
                "baseImageSecret": "",
                "image": f"registry.example.com/{app.lower()}.{server.lower()}",
                "secret": "",
                "serverType": "cpp",
                "createPerson": "admin",
                "createTime": "2024-03-02T09:00:00Z",
                "phase": "Done",
                "message": "success",
                "handler": "tars-tarsimage-0",
            }
        },
    }


def business_config(
    app: str, server: str, config: str, version: str, activated: bool = True, pod_seq: str = "m"
) -> dict[str, Any]:
    """A TConfig version as TarsWeb creates it (after the webhook)."""
    name = f"{app.lower()}-{server.lower() or 'app'}-{config.replace('.', '-')}-{version}"
    if pod_seq != "m":
        name += f"-{pod_seq}"
    return {
        "apiVersion": "k8s.tars.io/v1beta3",
        "kind": "TConfig",
        "metadata": {
            "name": name,
            "namespace": NAMESPACE,
            "labels": {
                "tars.io/ServerApp": app,
                "tars.io/ServerName": server,
                "tars.io/ConfigName": config,
                "tars.io/PodSeq": pod_seq,
                "tars.io/Activated": "true" if activated else "false",
                "tars.io/Version": version,
            },
        },
        "app": app,
        "server": server,
        "configName": config,
        "configContent": f"<tars>\n  <{config}>\n    version={version}\n  </{config}>\n</tars>\n",
        "podSeq": pod_seq,
        "version": version,
        "updateTime": "2024-03-02T10:00:00Z",
        "updatePerson": "admin",
        "updateReason": "tuning",
        "activated": activated,
    }


def account(username: str, role: str) -> dict[str, Any]:
    """A TAccount as stored: a bcrypt hash, TarsWeb login tokens."""
    return {
        "apiVersion": "k8s.tars.io/v1beta3",
        "kind": "TAccount",
        "metadata": {
            "name": hashlib.md5(username.encode()).hexdigest(),
            "namespace": NAMESPACE,
        },
        "spec": {
            "username": username,
            "authentication": {
                "bcryptPassword": BCRYPT_HASHES[username],
                "activated": True,
                "tokens": [
                    {
                        "name": "web-login",
                        "content": f"token-content-of-{username}-do-not-leak",
                        "updateTime": "2024-03-02T10:00:00Z",
                        "expirationTime": "2099-01-01T00:00:00Z",
                        "valid": True,
                    }
                ],
            },
            "authorization": [{"role": role, "flag": "*", "updateTime": "2024-03-01T08:00:00Z"}],
        },
    }


def endpoint() -> dict[str, Any]:
    """A TEndpoint (controller-owned)."""
    return {
        "apiVersion": "k8s.tars.io/v1beta3",
        "kind": "TEndpoint",
        "metadata": {"name": "tars-tarsconfig", "namespace": NAMESPACE},
        "spec": {"app": "tars", "server": "tarsconfig", "subType": "tars"},
        "status": {"pods": []},
    }


def live(doc: dict[str, Any], seq: int) -> dict[str, Any]:
    """``doc`` with what the API server writes."""
    out = copy.deepcopy(doc)
    meta = out.setdefault("metadata", {})
    last = json.dumps(doc, sort_keys=True)
    meta.update(
        uid=f"4f6b1c2a-0000-4000-8000-{seq:012d}",
        resourceVersion=str(100000 + seq),
        generation=1 + seq % 3,
        creationTimestamp="2024-03-01T08:00:00Z",
        selfLink=f"/apis/x/{seq}",
        managedFields=[
            {
                "apiVersion": doc["apiVersion"],
                "fieldsType": "FieldsV1",
                "fieldsV1": {"f:metadata": {}},
                "manager": "kubectl-client-side-apply",
                "operation": "Update",
                "time": "2024-03-01T08:00:00Z",
            }
        ],
    )
    annotations = dict(meta.get("annotations") or {})
    annotations["kubectl.kubernetes.io/last-applied-configuration"] = last
    meta["annotations"] = annotations
    if doc["kind"] == "TServer":
        out["status"] = {"replicas": 1, "readyReplicas": 1, "selector": "x", "conditions": []}
    return out


def business_documents(count: int) -> list[dict[str, Any]]:
    """``count`` business servers, each with a TImage (two releases), a TConfig history
    (an active and an older version of server.conf, a node-level config) and an app-level
    config per app: 6 objects per server."""
    docs: list[dict[str, Any]] = []
    for i in range(count):
        app, server = f"Shop{i // 10}", f"Order{i}Server"
        docs.append(business_server(app, server, "r2"))
        docs.append(business_image(app, server, ["r2", "r1"]))
        docs.append(business_config(app, server, "server.conf", "20240302100000-a1b2"))
        docs.append(
            business_config(app, server, "server.conf", "20240301100000-c3d4", activated=False)
        )
        docs.append(business_config(app, server, "server.conf", "20240302100000-a1b2", pod_seq="0"))
        if i % 10 == 0:
            docs.append(business_config(app, "", "app.conf", "20240302100000-e5f6"))
        else:
            docs.append(business_config(app, server, "extra.conf", "20240302100000-0000"))
    return docs


def namespace_export(business: int = 3) -> dict[str, Any]:
    """The whole export as one ``kind: List`` (``business`` business servers)."""
    apps = sorted({f"Shop{i // 10}" for i in range(business)})
    docs = [
        *chart_plain_objects(),
        *chart_documents(),
        *chart_images(),
        tree(apps),
        *business_documents(business),
        account("admin", "admin"),
        account("ops", "operator"),
        endpoint(),
    ]
    return {
        "apiVersion": "v1",
        "kind": "List",
        "items": [live(doc, i) for i, doc in enumerate(docs)],
        "metadata": {"resourceVersion": ""},
    }


def export_text(business: int = 3) -> str:
    """:func:`namespace_export` as the YAML kubectl writes."""
    return yaml.safe_dump(namespace_export(business), sort_keys=False, allow_unicode=True)
