"""Stack settings from Pulumi config: the ``tars:*`` keys, read the same way by the CLI
(``render --stack ENV`` reads ``Pulumi.ENV.yaml``) and by the Pulumi program (``pulumi.Config``).
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any

import yaml

from .errors import UsageError
from .models import API_VERSIONS, V1BETA3
from .options import DEFAULT_LOCAL_VOLUME_STORAGE_CLASS, Mode, Options
from .yamlio import YamlLoader

NAMESPACE_KEY = "tars"


@dataclass(frozen=True)
class StackSettings:
    """Everything a stack's ``tars:*`` config says.

    * ``stack_dir``: the directory of TarsK8S documents (``tars:stackDir``), relative to the
      project directory. Defaults to ``stacks/<env>``.
    * ``options``: the output options (``tars:namespace``, ``tars:mode``,
      ``tars:localVolumeStorageClass``, ``tars:delayBind``, ``tars:tarsReadinessGate``,
      ``tars:crdApiVersion``, ``tars:skipAwait``).
    * ``render_dir``: ``tars:renderDir``; when set, ``pulumi up`` writes manifests through the
      Kubernetes provider's ``renderYamlToDirectory`` instead of talking to a cluster.
    * ``kube_context``: ``tars:kubeContext``, the kubeconfig context of the Kubernetes provider.
    * ``external_replicas``: ``tars:externalReplicas``; leave ``spec.replicas`` to an HPA or
      ``kubectl scale`` (``ignore_changes``).

    ``tars:frameworkConfig`` (``stack``, the default, or ``existing``) sets
    ``options.existing_framework_config``: crd mode on a cluster that already has its
    ``tars-framework`` TFrameworkConfig.
    """

    stack_dir: str
    options: Options = field(default_factory=Options)
    render_dir: str | None = None
    kube_context: str | None = None
    external_replicas: bool = False


def settings_from_config(
    get: Callable[[str], Any] | Mapping[str, Any], env: str = "dev"
) -> StackSettings:
    """Settings from ``tars:*`` config values.

    ``get`` maps a key without the ``tars:`` prefix (``namespace``, ``stackDir``, …) to its
    value or None; a mapping of such keys works too. Values may be strings (as ``pulumi config
    set`` stores them) or YAML scalars.
    """
    lookup: Callable[[str], Any] = get.get if isinstance(get, Mapping) else get

    def text(key: str, default: str | None = None) -> str | None:
        value = lookup(key)
        return default if value is None or value == "" else str(value)

    def flag(key: str, default: bool) -> bool:
        value = lookup(key)
        if value is None or value == "":
            return default
        if isinstance(value, bool):
            return value
        lowered = str(value).strip().lower()
        if lowered in ("true", "yes", "on", "1"):
            return True
        if lowered in ("false", "no", "off", "0"):
            return False
        raise UsageError(f"tars:{key} must be true or false, got {value!r}")

    mode_text = text("mode", Mode.EXPAND.value)
    try:
        mode = Mode(mode_text)
    except ValueError:
        raise UsageError(f"tars:mode must be expand or crd, got {mode_text!r}") from None
    framework_config = text("frameworkConfig", "stack")
    if framework_config not in ("stack", "existing"):
        raise UsageError(
            f"tars:frameworkConfig must be stack or existing, got {framework_config!r}"
        )
    if framework_config == "existing" and mode != Mode.CRD:
        raise UsageError(
            "tars:frameworkConfig existing needs tars:mode crd (expand mode builds pods and "
            "needs the node image: give it in a TFrameworkConfig document of the stack, which "
            "expand mode never applies)"
        )
    crd_api_version = text("crdApiVersion", V1BETA3) or V1BETA3
    if crd_api_version not in API_VERSIONS:
        raise UsageError(
            f"tars:crdApiVersion must be one of {', '.join(API_VERSIONS)}, got {crd_api_version!r}"
        )
    options = Options(
        namespace=text("namespace", "default") or "default",
        mode=mode,
        local_volume_storage_class=text(
            "localVolumeStorageClass", DEFAULT_LOCAL_VOLUME_STORAGE_CLASS
        )
        or DEFAULT_LOCAL_VOLUME_STORAGE_CLASS,
        delay_bind=flag("delayBind", True),
        tars_readiness_gate=flag("tarsReadinessGate", True),
        crd_api_version=crd_api_version,
        skip_await=flag("skipAwait", False),
        existing_framework_config=framework_config == "existing",
    )
    return StackSettings(
        stack_dir=text("stackDir", f"stacks/{env}") or f"stacks/{env}",
        options=options,
        render_dir=text("renderDir"),
        kube_context=text("kubeContext"),
        external_replicas=flag("externalReplicas", False),
    )


def read_stack_config(env: str, project_dir: str | Path = ".") -> StackSettings:
    """Settings of stack ``env`` from ``Pulumi.<env>.yaml`` in the project directory.

    ``stack_dir`` and ``render_dir`` come back relative to the current directory (joined with
    ``project_dir``), so the CLI can be run from anywhere.
    """
    base = Path(project_dir)
    path = base / f"Pulumi.{env}.yaml"
    try:
        data = yaml.load(path.read_text(encoding="utf-8"), Loader=YamlLoader) or {}
    except OSError as exc:
        raise UsageError(f"{path}: cannot read stack config: {exc.strerror}") from None
    except yaml.YAMLError as exc:
        raise UsageError(f"{path}: invalid YAML: {exc}") from None
    config = data.get("config") or {} if isinstance(data, dict) else {}
    if not isinstance(config, dict):
        raise UsageError(f"{path}: 'config' must be a mapping")
    values = {
        key.split(":", 1)[1]: _plain(value)
        for key, value in config.items()
        if isinstance(key, str) and key.startswith(f"{NAMESPACE_KEY}:")
    }
    settings = settings_from_config(values, env)
    render_dir = str(base / settings.render_dir) if settings.render_dir else None
    return replace(settings, stack_dir=str(base / settings.stack_dir), render_dir=render_dir)


def _plain(value: Any) -> Any:
    """Pulumi config values may be ``{value: ...}`` or ``{secure: ...}`` mappings."""
    if isinstance(value, dict):
        if "secure" in value:
            raise UsageError("secret tars:* config values are not supported")
        return value.get("value")
    return value
