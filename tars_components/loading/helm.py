"""helm-lib values files as stack sources: values → the documents the chart renders.

TarsK8S teams keep one helm-lib ``values.yaml`` per server and render it through the
``tserver`` library chart of TarsCloud/K8SFramework v1.4.1 (``compiler/tools/helm-lib``, chart
1.3.0, appVersion v1beta2). This module is that render, as a pure function: the same
TServer, TImage and TConfigs (server-level, node-level, app-level), field for field, with
the chart's own defaults and quirks, and for every produced field the values key it came from,
so that a violation points at the values file's line.

How a file is recognised: a file holding exactly one YAML document that is a mapping with
neither ``apiVersion`` nor ``kind`` and with at least one of the keys helm-lib requires
(``app``, ``server``, ``repo``, ``servants``). Such a file was never a valid stack file (a
document without apiVersion is unreadable), so no existing stack changes meaning, and no
naming convention is needed: the ``values.yaml`` files of a helm-lib repository can be copied
into ``stacks/<env>/`` as they are.

Deliberate differences from ``helm template`` (docs/cli/convert.md):

* TConfig names end in a content hash (:func:`config_suffix`) instead of the render's Unix time,
  so a re-render of unchanged values is no change and ``diff`` stays quiet;
* what helm cannot render at all (a set ``updateStrategy``, which the chart writes without its
  key; ``app`` or a config ``name`` that is not a string; a missing ``repo``) is a load problem
  at the value's line instead of helm's template error;
* a value that the chart inserts as text and that is not a scalar (a list where a number is
  expected) is a load problem, where helm would write Go's ``[a b]`` text.

Everything else follows the chart, including its quirks: ``replicas: 0`` becomes 1 (``default``
treats 0 as empty), thread/capacity/connection/timeout 0 get the chart's defaults, ``subtype``
only sets the ``tars.io/SubType`` label (``spec.subType`` is always ``tars``), ``important`` is
always 5, ``repo.id`` is quoted in the TServer (``""`` stays ``""``) but written bare in the
TImage (``""`` becomes null), and ``labelMatch`` is not read at all (warning TH001, as for
every key the chart does not read).
"""

from __future__ import annotations

from .helm_chart import CHART, Produced, config_suffix
from .helm_translation import (
    Translation,
    ValuesSource,
    is_values_text,
    translate,
    translate_file,
    values_mapping,
    with_release,
)

__all__ = [
    "CHART",
    "Produced",
    "Translation",
    "ValuesSource",
    "config_suffix",
    "is_values_text",
    "translate",
    "translate_file",
    "values_mapping",
    "with_release",
]
