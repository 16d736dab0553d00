"""``tars:index:TarsController`` and ``tars:index:TarsFrameworkInstall``: TarsK8S itself as
code, from the charts' values (:mod:`tars_components.platform`), in one program and one preview.

Order on an empty cluster (``depends_on``): the CRDs, then the controller and the webhook with
their Service and a Ready Deployment (pulumi-kubernetes awaits Deployments), then the webhook
configurations; every framework object depends on all of that, so the webhook admits them.

What is left to the running platform (no fight on the next ``pulumi up``):

=====================  ==============================================================
object                 how
=====================  ==============================================================
CRDs                   ``retain_on_delete`` (the chart's ``helm.sh/resource-policy: keep``:
                       deleting a CRD deletes every TServer)
Namespace tars-system  ``retain_on_delete``; an existing one (the chart adopts it) is
                       patched instead (``existing_namespace``, NamespacePatch)
TTree ``tars-tree``    create-only: ``ignore_changes`` on ``apps``, ``businesses`` (TarsWeb
                       edits the tree)
default TTemplates     create-only: ``ignore_changes`` on ``spec`` (operators edit them)
TFrameworkConfig       ``ignore_changes`` on ``imageBuild.maxBuildTime``,
                       ``imageBuild.idFormat``, ``recordLimit``, ``upChain``, ``expand``
                       (the chart keeps the live values); images are still updated
TImages                ``ignore_changes`` on ``releases`` (tarsimage and TarsWeb append
                       releases; the chart merges them)
framework TServers     ``ignore_changes`` on ``spec.k8s.replicas`` (TarsWeb scales them)
Ingress ``tars-web``   create-only: ``ignore_changes`` on ``spec``, ``metadata.annotations``;
                       not awaited (``pulumi.com/skipAwait``)
=====================  ==============================================================

The CA: ``pulumi_tls`` (an RSA 2048 key, a ten-year self-signed CA certificate) unless a CA is
given; the key is a Pulumi secret everywhere (state, the Secret's ``stringData``).
"""

from __future__ import annotations

import base64
import hashlib
import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

import pulumi
import pulumi_kubernetes as k8s

from ..jobs.config import FrameworkInstallSettings
from ..kernel.errors import UsageError
from ..models import GROUP
from ..models.vocabulary import LABEL_SUPPORT_LOCAL_VOLUME, node_label
from ..platform import require_platform_extra
from ..platform.ca import CA_COMMON_NAME, CA_VALIDITY_DAYS, SECRET_NAME
from ..platform.controller import SYSTEM_NAMESPACE, build_controller
from ..platform.framework import build_framework
from ..platform.values import ControllerValues, FrameworkValues, values_from_mapping
from .kube import TarsCustomResource, typed_class
from .placement import kubernetes_provider, place

_CA_BUNDLE = "\x00tars-ca-bundle\x00"
_CA_FINGERPRINT = "\x00tars-ca-fingerprint\x00"
"""Stand-ins in the pure builder's output, replaced by the CA's outputs."""

FRAMEWORK_IGNORE_CHANGES: dict[str, list[str]] = {
    "TTree": ["apps", "businesses"],
    "TTemplate": ["spec"],
    "TFrameworkConfig": [
        "imageBuild.maxBuildTime",
        "imageBuild.idFormat",
        "recordLimit",
        "upChain",
        "expand",
    ],
    "TImage": ["releases"],
    "TServer": ["spec.k8s.replicas"],
    "Ingress": ["spec", "metadata.annotations"],
}
"""What each framework kind leaves to the running platform (see the module docstring)."""


_WORKLOAD_KINDS = frozenset({"Deployment", "DaemonSet"})
_PREREQUISITE_KINDS = frozenset(
    {"ServiceAccount", "ConfigMap", "Role", "RoleBinding", "ClusterRole", "ClusterRoleBinding"}
)
"""What the controller's workloads wait for, besides the CRDs, the namespace and the CA's
Secret."""


def _snake(name: str) -> str:
    return re.sub(r"([A-Z])", r"_\1", name).lower()


def register_object(
    resource_name: str, obj: Mapping[str, Any], opts: pulumi.ResourceOptions
) -> pulumi.CustomResource:
    """One object of the platform as its pulumi_kubernetes resource (typed class for the
    built-in kinds, a custom resource for TarsK8S kinds)."""
    api_version, kind = str(obj["apiVersion"]), str(obj["kind"])
    if api_version.split("/")[0] == GROUP:
        return TarsCustomResource(resource_name, obj, opts)
    cls = typed_class(api_version, kind)
    if cls is None:
        raise ValueError(f"no resource class for {api_version} {kind}")
    fields = {_snake(k): v for k, v in obj.items() if k not in ("apiVersion", "kind")}
    return cls(resource_name, opts=opts, **fields)  # type: ignore[no-any-return]


def _resource_name(component: str, obj: Mapping[str, Any]) -> str:
    meta = obj["metadata"]
    namespace = f"{meta['namespace']}-" if meta.get("namespace") else ""
    return f"{component}-{str(obj['kind']).lower()}-{namespace}{meta['name']}"


def _without_await(obj: Mapping[str, Any]) -> dict[str, Any]:
    """``obj`` with ``pulumi.com/skipAwait``: pulumi-kubernetes would wait for the Ingress to
    get an address (and its Service endpoints), which no cluster without an ingress controller
    ever gives it (``pulumi up`` failing after ten minutes, found on a real cluster); helm
    installs the chart without waiting for it either."""
    meta = dict(obj["metadata"])
    meta["annotations"] = {**(meta.get("annotations") or {}), "pulumi.com/skipAwait": "true"}
    return {**obj, "metadata": meta}


def _substitute(value: Any, replacements: Mapping[str, Any]) -> Any:
    """``value`` with the stand-in strings replaced by their (Output) values."""
    if isinstance(value, dict):
        return {k: _substitute(v, replacements) for k, v in value.items()}
    if isinstance(value, list):
        return [_substitute(v, replacements) for v in value]
    if isinstance(value, str) and value in replacements:
        return replacements[value]
    return value


@dataclass
class TarsControllerArgs:
    """Args of :class:`TarsController`.

    * ``values``: the ``tarscontroller`` chart's values (a mapping as in its values file, or
      :class:`~tars_components.platform.values.ControllerValues`); chart defaults apply.
    * ``ca_cert_pem``/``ca_key_pem``: an existing webhook CA (PEM; the key PKCS#1 RSA, best
      a Pulumi secret). Both or neither; neither: a new CA from ``pulumi_tls``.
    * ``existing_namespace``: ``tars-system`` exists already (as the chart allows): patch its
      ``name`` label (NamespacePatch) instead of creating it. Defaults to false.
    """

    values: ControllerValues | Mapping[str, Any]
    ca_cert_pem: pulumi.Input[str] | None = None
    ca_key_pem: pulumi.Input[str] | None = None
    existing_namespace: bool = False


class TarsController(pulumi.ComponentResource):
    """The TarsK8S controller install (the ``tarscontroller`` chart), with a CA of its own.

    Outputs: ``ca_cert_pem`` (public), ``objects`` (``kind:namespace/name``). Framework
    installs take this component as ``TarsFrameworkInstallArgs.controller`` and wait for
    :attr:`ready`.
    """

    ca_cert_pem: pulumi.Output[str]
    """The webhook CA certificate (the ``caBundle``, PEM)."""

    def __init__(
        self, name: str, args: TarsControllerArgs, opts: pulumi.ResourceOptions | None = None
    ) -> None:
        super().__init__("tars:index:TarsController", name, None, opts)
        values = (
            args.values
            if isinstance(args.values, ControllerValues)
            else values_from_mapping(args.values, ControllerValues)
        )
        cert, key = self._ca(name, args)
        self.ca_cert_pem = pulumi.Output.from_input(cert)
        replacements = {
            _CA_BUNDLE: self.ca_cert_pem.apply(lambda pem: base64.b64encode(pem.encode()).decode()),
            _CA_FINGERPRINT: self.ca_cert_pem.apply(
                lambda pem: hashlib.sha256(pem.encode()).hexdigest()
            ),
        }
        objects = build_controller(values, _CA_BUNDLE, _CA_FINGERPRINT)
        self.resources: dict[tuple[str, str, str], pulumi.CustomResource] = {}
        """Every object's resource by (kind, namespace, name)."""
        crds: list[pulumi.Resource] = []
        namespace: list[pulumi.Resource] = []
        webhook: list[pulumi.Resource] = []
        rest: list[pulumi.Resource] = []
        prepared: list[pulumi.Resource] = []
        self._provider = kubernetes_provider(self)
        child = pulumi.ResourceOptions(parent=self, provider=self._provider)
        # As helm installs them: a workload after what its pods need (a pod of a Deployment
        # created before its ServiceAccount is refused, and its ReplicaSet retries only
        # after a back-off), the webhook configurations after the webhook
        ordered = sorted(
            objects,
            key=lambda o: (
                2 if o["kind"].endswith("Configuration") else o["kind"] in _WORKLOAD_KINDS
            ),
        )
        for obj in ordered:
            kind, meta = obj["kind"], obj["metadata"]
            body = _substitute(obj, replacements)
            if kind in _WORKLOAD_KINDS:
                opts_ = pulumi.ResourceOptions.merge(
                    child, pulumi.ResourceOptions(depends_on=[*crds, *namespace, *prepared])
                )
            elif kind == "CustomResourceDefinition":
                opts_ = pulumi.ResourceOptions.merge(
                    child, pulumi.ResourceOptions(retain_on_delete=True)
                )
            elif kind == "Namespace":
                opts_ = pulumi.ResourceOptions.merge(
                    child, pulumi.ResourceOptions(retain_on_delete=True, depends_on=crds)
                )
            elif kind.endswith("WebhookConfiguration"):
                # admission starts only once the webhook answers
                opts_ = pulumi.ResourceOptions.merge(
                    child, pulumi.ResourceOptions(depends_on=webhook)
                )
            else:
                opts_ = pulumi.ResourceOptions.merge(
                    child, pulumi.ResourceOptions(depends_on=[*crds, *namespace])
                )
            resource: pulumi.CustomResource
            if kind == "Namespace" and args.existing_namespace:
                resource = k8s.core.v1.NamespacePatch(
                    _resource_name(name, obj), metadata=body["metadata"], opts=opts_
                )
            else:
                resource = register_object(_resource_name(name, obj), body, opts_)
            self.resources[(kind, meta.get("namespace", ""), meta["name"])] = resource
            if kind == "CustomResourceDefinition":
                crds.append(resource)
            elif kind == "Namespace":
                namespace.append(resource)
                self.secret = self._secret(name, cert, key, [*crds, resource])
                rest.append(self.secret)
                prepared.append(self.secret)
            elif kind in ("Deployment", "Service") and "webhook" in meta["name"]:
                webhook.append(resource)
            elif not kind.endswith("WebhookConfiguration"):
                rest.append(resource)
            if kind in _PREREQUISITE_KINDS:
                prepared.append(resource)
        webhook_configs = [
            r for (k, _, _), r in self.resources.items() if k.endswith("Configuration")
        ]
        self.ready: list[pulumi.Resource] = [*crds, *webhook, *webhook_configs, *rest]
        """What a framework install waits for: CRDs, the Ready webhook and its
        configurations, the controller."""
        self.objects = sorted(f"{k}:{ns}/{n}" for k, ns, n in self.resources)
        self.register_outputs({"ca_cert_pem": self.ca_cert_pem, "objects": self.objects})

    def _ca(
        self, name: str, args: TarsControllerArgs
    ) -> tuple[pulumi.Input[str], pulumi.Input[str]]:
        if (args.ca_cert_pem is None) != (args.ca_key_pem is None):
            raise UsageError("TarsControllerArgs: ca_cert_pem and ca_key_pem go together")
        if args.ca_cert_pem is not None and args.ca_key_pem is not None:
            return args.ca_cert_pem, pulumi.Output.secret(args.ca_key_pem)
        require_platform_extra("pulumi_tls", "TarsController without ca_cert_pem/ca_key_pem")
        import pulumi_tls as tls

        key = tls.PrivateKey(
            f"{name}-ca-key",
            algorithm="RSA",
            rsa_bits=2048,
            opts=pulumi.ResourceOptions(parent=self, additional_secret_outputs=["privateKeyPem"]),
        )
        cert = tls.SelfSignedCert(
            f"{name}-ca",
            private_key_pem=key.private_key_pem,
            is_ca_certificate=True,
            validity_period_hours=CA_VALIDITY_DAYS * 24,
            allowed_uses=["cert_signing", "crl_signing", "digital_signature"],
            subject=tls.SelfSignedCertSubjectArgs(common_name=CA_COMMON_NAME),
            opts=pulumi.ResourceOptions(parent=self),
        )
        # tls' private_key_pem of an RSA key is PKCS#1 ("RSA PRIVATE KEY"), as webhook.go needs
        return cert.cert_pem, pulumi.Output.secret(key.private_key_pem)

    def _secret(
        self,
        name: str,
        cert: pulumi.Input[str],
        key: pulumi.Input[str],
        depends_on: Sequence[pulumi.Resource],
    ) -> pulumi.CustomResource:
        return k8s.core.v1.Secret(
            f"{name}-secret-{SYSTEM_NAMESPACE}-{SECRET_NAME}",
            metadata={"name": SECRET_NAME, "namespace": SYSTEM_NAMESPACE},
            type="Opaque",
            string_data={"ca.crt": cert, "ca.key": pulumi.Output.secret(key)},
            opts=pulumi.ResourceOptions(
                parent=self,
                provider=self._provider,
                depends_on=list(depends_on),
                additional_secret_outputs=["data", "stringData"],
            ),
        )


@dataclass
class TarsFrameworkInstallArgs:
    """Args of :class:`TarsFrameworkInstall`.

    * ``values``: the ``tarsframework`` chart's values (mapping or
      :class:`~tars_components.platform.values.FrameworkValues`); chart defaults apply.
    * ``namespace``: the framework namespace.
    * ``controller``: the :class:`TarsController` to wait for (else nothing to wait for).
      The framework goes to the controller's cluster: its objects get the controller's
      Kubernetes provider whatever the install's parent gives; a different provider in the
      install's own ``opts`` is refused.
    * ``nodes``: nodes that get ``tars.io/node.<namespace>``; ``local_volume_nodes``: nodes
      that also get ``tars.io/SupportLocalVolume`` (tarslog and elasticsearch need one).
      Labels are server-side-apply patches (NodePatch), removed on destroy.
    * ``create_namespace``: create the namespace (the chart expects it, like
      ``helm install --create-namespace``). Defaults to true.
    """

    values: FrameworkValues | Mapping[str, Any]
    namespace: str
    controller: TarsController | None = None
    nodes: Sequence[str] = field(default_factory=tuple)
    local_volume_nodes: Sequence[str] = field(default_factory=tuple)
    create_namespace: bool = True


class TarsFrameworkInstall(pulumi.ComponentResource):
    """The TarsK8S framework of one namespace (the ``tarsframework`` chart), chart bugs fixed.

    Outputs: ``namespace`` and ``objects`` (``kind:namespace/name``).
    """

    def __init__(
        self,
        name: str,
        args: TarsFrameworkInstallArgs,
        opts: pulumi.ResourceOptions | None = None,
    ) -> None:
        provider: pulumi.ProviderResource | None = None
        if args.controller is not None:
            # The framework goes to the controller's cluster, whose webhook admits it.
            opts, provider = place(
                opts,
                args.controller,
                f"TarsFrameworkInstall {name!r}",
                explicit_wins=False,
                adopt=False,
            )
        super().__init__("tars:index:TarsFrameworkInstall", name, None, opts)
        if args.controller is None:
            provider = kubernetes_provider(self)
        self._provider = provider
        values = (
            args.values
            if isinstance(args.values, FrameworkValues)
            else values_from_mapping(args.values, FrameworkValues)
        )
        result = build_framework(values, args.namespace)
        if not result.ok:
            raise UsageError(
                "framework documents break the TarsK8S rules: "
                + "; ".join(v.format() for v in result.violations if v.is_error)
            )
        for warning in result.violations:
            pulumi.log.warn(warning.format(), self)
        ready: list[pulumi.Resource] = list(args.controller.ready) if args.controller else []
        child = pulumi.ResourceOptions(parent=self, provider=provider)
        first: list[pulumi.Resource] = []
        if args.create_namespace:
            first.append(
                k8s.core.v1.Namespace(
                    f"{name}-namespace-{args.namespace}",
                    metadata={"name": args.namespace},
                    opts=pulumi.ResourceOptions.merge(
                        child, pulumi.ResourceOptions(depends_on=ready)
                    ),
                )
            )
        self.node_patches = [
            self._label(name, node, args.namespace, node in args.local_volume_nodes, ready)
            for node in dict.fromkeys([*args.nodes, *args.local_volume_nodes])
        ]
        self.resources: dict[tuple[str, str, str], pulumi.CustomResource] = {}
        """Every framework object's resource by (kind, namespace, name)."""
        for obj in result.objects:
            kind, meta = obj["kind"], obj["metadata"]
            options = pulumi.ResourceOptions(
                depends_on=[*ready, *first],
                ignore_changes=FRAMEWORK_IGNORE_CHANGES.get(kind),
            )
            body = _without_await(obj) if kind == "Ingress" else obj
            resource = register_object(
                _resource_name(name, obj), body, pulumi.ResourceOptions.merge(child, options)
            )
            self.resources[(kind, meta.get("namespace", ""), meta["name"])] = resource
        self.namespace = args.namespace
        self.objects = sorted(f"{k}:{ns}/{n}" for k, ns, n in self.resources)
        self.register_outputs({"namespace": self.namespace, "objects": self.objects})

    def _label(
        self, name: str, node: str, namespace: str, local_volume: bool, ready: list[pulumi.Resource]
    ) -> pulumi.CustomResource:
        labels = {node_label(namespace): ""}
        if local_volume:
            labels[LABEL_SUPPORT_LOCAL_VOLUME] = ""
        return k8s.core.v1.NodePatch(
            f"{name}-node-{node}",
            metadata={"name": node, "labels": labels},
            opts=pulumi.ResourceOptions(parent=self, provider=self._provider, depends_on=ready),
        )


def install_framework_from_settings(
    settings: FrameworkInstallSettings,
    values: FrameworkValues,
    opts: pulumi.ResourceOptions | None = None,
    prefix: str = "",
    controller: TarsController | None = None,
) -> TarsFrameworkInstall:
    """``tars:installFramework``: the namespace's :class:`TarsFrameworkInstall` from the values
    read from ``settings.values_file`` (named ``<prefix><namespace>-framework``: ``<cluster>/``
    for each cluster of an inventory), after ``controller`` when the stack installs it too."""
    return TarsFrameworkInstall(
        f"{prefix}{settings.namespace}-framework",
        TarsFrameworkInstallArgs(
            values=values,
            namespace=settings.namespace,
            controller=controller,
            nodes=settings.nodes,
            local_volume_nodes=settings.local_volume_nodes,
        ),
        opts,
    )


__all__ = [
    "FRAMEWORK_IGNORE_CHANGES",
    "TarsController",
    "TarsControllerArgs",
    "TarsFrameworkInstall",
    "TarsFrameworkInstallArgs",
    "install_framework_from_settings",
    "register_object",
]
