"""The entry points under fuzz, each a function ``case → Outcome`` that runs the case the way a
user (or the Pulumi engine) would and collects everything the case could leak into.

* the CLI commands, in process (``tars_components.cli.main``), in a scratch directory: exit
  code, stdout, stderr and every written file (with its mode);
* the dynamic provider over gRPC (``python -m pulumi.dynamic``, one process per run): Check,
  Create and Update answers;
* the components under Pulumi mocks (:func:`tars_components.components.testing.record`): the
  registrations and the program's error;
* the component provider's ``Construct`` over gRPC (``plugin/__main__.py``, one process per
  run): the answer, its status and the component's state.
"""

from __future__ import annotations

import contextlib
import functools
import io
import json
import os
import re
import shutil
import traceback
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from .cases import Case, framework

OK_CODES = (0, 1, 2)


@dataclass
class Outcome:
    """What one run of a case showed: an exit code (or status name), the text a user sees,
    the files written (relative path → (mode, bytes)), the values an engine would store, and
    whether it crashed (a traceback, exit 70, an UNKNOWN status)."""

    code: Any
    text: str = ""
    files: dict[str, tuple[int, bytes]] = field(default_factory=dict)
    stored: Any = None
    """What would reach a Pulumi state (registrations, answers), searched for plaintext."""
    crashed: bool = False
    wrote_on_failure: bool = False

    def comparable(self) -> tuple[Any, str, dict[str, tuple[int, bytes]], str]:
        """What must be byte-identical between two runs of one case."""
        return (
            self.code,
            self.text,
            self.files,
            json.dumps(self.stored, sort_keys=True, default=str),
        )


# --- the CLI ----------------------------------------------------------------------------------

CLI_TARGETS = (
    "validate",
    "render",
    "diff",
    "diff-live",
    "convert",
    "import",
    "controller",
    "framework",
)


def _cli(argv: list[str]) -> tuple[Any, str, bool]:
    code, out, err, crashed = _cli_streams(argv)
    return code, out + err, crashed


def _cli_streams(argv: list[str]) -> tuple[Any, str, str, bool]:
    """Exit code, stdout, stderr, and whether the command crashed."""
    from tars_components.cli import main

    out, err = io.StringIO(), io.StringIO()
    crashed = False
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        try:
            code: Any = main(argv)
        except SystemExit as exc:  # argparse
            code = exc.code
        except BaseException:
            code, crashed = "exception", True
            err.write(traceback.format_exc())
    text = out.getvalue() + err.getvalue()
    crashed = crashed or code not in OK_CODES or "Traceback" in text or "internal error" in text
    return code, out.getvalue(), err.getvalue(), crashed


def _files(root: Path) -> dict[str, tuple[int, bytes]]:
    found: dict[str, tuple[int, bytes]] = {}
    if root.exists():
        for path in sorted(root.rglob("*")):
            if path.is_file():
                found[str(path.relative_to(root))] = (
                    path.stat().st_mode & 0o777,
                    path.read_bytes(),
                )
    return found


def _write(folder: Path, files: dict[str, str]) -> None:
    folder.mkdir(parents=True, exist_ok=True)
    for name, text in files.items():
        (folder / name).write_text(text, encoding="utf-8")


def run_cli(target: str, case: Case, work: Path) -> Outcome:
    """Run one CLI command on the case in ``work`` (emptied first)."""
    shutil.rmtree(work, ignore_errors=True)
    stack, out = work / "stack", work / "out"
    text = next(iter(case.files.values()))
    formats = ("text", "json", "markdown")
    if target in ("controller", "framework"):
        _write(stack, {"values.yaml": text})
        argv = [target, "--values", str(stack / "values.yaml"), "--out", str(out)]
        if target == "controller":  # a CA of this installation: the same in both runs
            cert, key = _ca()
            _write(work / "ca", {"ca.crt": cert, "ca.key": key})
            argv += [
                "--ca-cert",
                str(work / "ca" / "ca.crt"),
                "--ca-key",
                str(work / "ca" / "ca.key"),
            ]
    elif target == "convert":
        _write(stack, {"in.yaml": text})
        argv = ["convert", "--out", str(out), str(stack / "in.yaml")]
    elif target == "import":
        _write(stack, {"export.yaml": text})
        argv = ["import", str(stack / "export.yaml"), "--out", str(out)]
    else:
        _write(stack, case.files)
        if target == "validate":
            argv = ["validate", str(stack), "--format", ("text", "json", "github")[case.index % 3]]
        elif target == "render":
            # a directory, or stdout (-o yaml, -o json): what it prints is its output, held to
            # the rules of a written file (the secrets it renders are the user's to pipe)
            stream = (None, "yaml", "json")[case.index % 3]
            if stream is not None:
                code, printed, errors, crashed = _cli_streams(["render", str(stack), "-o", stream])
                written = {"<stdout>": (0o600, printed.encode())} if printed else {}
                errors = errors.replace(str(work), "<work>")
                return Outcome(code, errors, written, None, crashed, bool(code != 0 and written))
            argv = ["render", str(stack), "--out", str(out)]
        elif target == "diff":
            old = work / "old"
            _write(old, {"stack.yaml": _framework_text()})
            argv = ["diff", str(old), str(stack), "--format", formats[case.index % 3]]
        else:  # diff --live: the stack against the same documents as a live export
            _write(work / "live", {"export.yaml": text})
            argv = ["diff", str(stack), "--live", str(work / "live" / "export.yaml")]
            argv += ["--format", formats[case.index % 3]]
    code, printed, crashed = _cli(argv)
    printed = printed.replace(str(work), "<work>")
    written = _files(out)
    return Outcome(code, printed, written, None, crashed, bool(code != 0 and written))


@functools.cache
def _ca() -> tuple[str, str]:
    from tars_components.platform.certificates import generate_ca

    ca = generate_ca()
    return ca.cert_pem, ca.key_pem


def _framework_text() -> str:
    from .cases import dump

    return dump(framework())


# --- the dynamic provider over gRPC -----------------------------------------------------------


class Provider:
    """``python -m pulumi.dynamic`` for the whole run, and how a case is sent to it."""

    URN = "urn:pulumi:dev::tars::pulumi-python:dynamic/tars:TarsValidation::fuzz"

    def __init__(self) -> None:
        from support.engines.grpc_provider import DynamicProviderProcess

        self.process = DynamicProviderProcess()
        self.process.configure()

    def close(self) -> None:
        self.process.close()

    def run(self, case: Case) -> Outcome | None:
        """Check, Create and Update of each document of the case as a TarsValidation; None
        when no document can cross gRPC (a key that is not a string)."""
        import grpc
        from pulumi.dynamic.dynamic import PROVIDER_KEY, serialize_provider
        from support.engines.grpc_provider import engine_strips_secrets, from_struct, to_struct

        from tars_components.provider import TarsValidationProvider, ValidationInputs

        texts: list[str] = []
        stored: list[Any] = []
        crashed = False
        base = ValidationInputs(document=framework()[1], templates=TEMPLATES).to_props()
        sent = 0
        for document in case.documents[len(framework()) :]:
            try:
                props = ValidationInputs(
                    document=document,
                    templates=TEMPLATES,
                    framework_node_image=framework()[0]["nodeImage"],
                    secret_fields=secret_paths(document, case.marker),
                ).to_props()
                props[PROVIDER_KEY] = serialize_provider(TarsValidationProvider())
                news = engine_strips_secrets(to_struct(props))
                olds = to_struct({**base, PROVIDER_KEY: props[PROVIDER_KEY]})
            except Exception:
                continue
            sent += 1
            for call in ("check", "create", "update"):
                try:
                    if call == "check":
                        _, failures = self.process.check(self.URN, None, news)
                        texts.extend(f"{f.property}: {f.reason}" for f in failures)
                    elif call == "create":
                        _, outs = self.process.create(self.URN, news)
                        stored.append(_messages(from_struct(outs)))
                    else:
                        outs = self.process.update(self.URN, "id", olds, news)
                        stored.append(_messages(from_struct(outs)))
                except grpc.RpcError as exc:
                    details = exc.details() or ""
                    texts.append(f"{call}: {exc.code()}: {details}")
                    crashed = crashed or not _own_error(details)
        if not sent:
            return None
        return Outcome("answered", "\n".join(texts), {}, stored, crashed)


TEMPLATES = {"tars.default": "tars.default", "tars.cpp": "tars.default"}


def _messages(outputs: dict[str, Any]) -> dict[str, Any]:
    """The outputs a user reads (violations, warnings): the mutated document is a secret
    output of the resource whenever a secret field exists, so it is not searched."""
    return {k: outputs.get(k) for k in ("violations", "warnings")}


_RAISED = re.compile(r"^([A-Za-z_][\w.]*(?:Error|Exception|Inputs|Exit|Interrupt)): ", re.M)


def _own_error(details: str) -> bool:
    """Whether a Create/Update error is one of the provider's own (``AdmissionError``,
    ``InvalidInputs``), not a Python error of another type (``pulumi.dynamic`` sends the
    traceback of any error: the type raised is what tells)."""
    raised = _RAISED.findall(details)
    if not raised:  # older SDKs (pulumi 3.166) send the message alone, never a type or frames
        return "Traceback" not in details and "Exception calling application: " in details
    return raised[-1].rsplit(".", 1)[-1] in ("AdmissionError", "InvalidInputs")


def secret_paths(document: Any, marker: str) -> list[str]:
    """The field paths of the values holding ``marker`` (what a program marks as Pulumi
    secrets)."""
    from tars_components.kernel.paths import format_path

    found: list[str] = []

    def walk(value: Any, at: tuple[Any, ...]) -> None:
        if isinstance(value, dict):
            for key, item in value.items():
                walk(item, (*at, str(key)))
        elif isinstance(value, list):
            for index, item in enumerate(value):
                walk(item, (*at, index))
        elif isinstance(value, str) and marker in value:
            found.append(format_path(at))

    walk(document, ())
    return found


# --- the components under mocks -----------------------------------------------------------


def run_components(case: Case) -> Outcome:
    """The project's Pulumi program path: the stack loaded, then its components declared
    under mocks (whatever the rules say, so that the components meet every shape)."""
    from tars_components.components import components_from_stack
    from tars_components.components.testing import Recording, ValidationFailed, record
    from tars_components.kernel.errors import LoadError
    from tars_components.loading.load import load_texts

    try:
        stack = load_texts(case.files, "default")
    except LoadError as exc:
        return Outcome("refused", str(exc))
    except Exception:
        return Outcome("exception", traceback.format_exc(), crashed=True)
    from tars_components.pipeline import all_violations

    try:  # the program checks first, as __main__.py does: no component of a refused stack
        errors = [v.format() for v in all_violations(stack) if v.is_error]
    except Exception:
        return Outcome("exception", traceback.format_exc(), crashed=True)
    if errors:
        return Outcome("refused", "\n".join(errors))
    recording = Recording()
    try:
        import pulumi

        record(lambda: components_from_stack(stack), recording=recording)
        code, text, crashed = "registered", "", False
    except (pulumi.RunError, ValidationFailed, ValueError) as exc:
        code, text, crashed = "refused", str(exc), False
        if type(exc) is ValueError or "Traceback" in text:
            code, crashed = "exception", True
    except Exception:
        code, text, crashed = "exception", traceback.format_exc(), True
    stored = [  # the SDK registers from a pool of threads: in no fixed order
        {"type": r.type, "name": r.name, "inputs": _without_secret_data(r.type, r.inputs)}
        for r in sorted(recording.registrations, key=lambda r: (r.type, r.name))
    ]
    log = "\n".join(message for _, message in recording.log)
    return Outcome(code, f"{text}\n{log}", {}, stored, crashed)


def _without_secret_data(type_: str, inputs: dict[str, Any]) -> Any:
    """The inputs as a state would hold them in plaintext: Pulumi secrets replaced by
    ``<secret>``, and a Kubernetes Secret's data and stringData left out (secret in the state
    by the Kubernetes provider itself)."""
    from tars_components.components.testing import is_secret_value

    def plaintext(value: Any) -> Any:
        if is_secret_value(value):
            return "<secret>"
        if isinstance(value, dict):
            return {k: plaintext(v) for k, v in value.items()}
        if isinstance(value, list):
            return [plaintext(v) for v in value]
        return value

    if type_ == "kubernetes:core/v1:Secret":
        inputs = {k: v for k, v in inputs.items() if k not in ("data", "stringData")}
    return plaintext(inputs)


# --- the component provider's Construct over gRPC ----------------------------------------


class Construct:
    """The component provider (``plugin/__main__.py``) and a recording engine for the run."""

    def __init__(self) -> None:
        from support.engines.component_provider import ComponentProviderProcess, RecordingEngine

        self.engine = RecordingEngine()
        self.runs = 0
        self.process = ComponentProviderProcess(self.engine)
        self.process.construct(
            "tars:index:TFramework",
            "fw",
            {"namespace": "default", "config": _framework_args(), "templates": TEMPLATES},
        )

    def close(self) -> None:
        self.process.close()
        self.engine.stop()

    def run(self, case: Case, kind: str, inputs: dict[str, Any]) -> Outcome:
        """``Construct`` of one component with plain JSON inputs."""
        import grpc
        from support.engines.grpc_provider import from_struct

        self.runs += 1
        name = f"c{case.index}r{self.runs}"  # a URN once per deployment: a new one each run
        before = len(self.engine.registrations)
        try:
            response = self.process.construct(f"tars:index:{kind}", name, inputs)
            code, text = "OK", ""
            state: Any = from_struct(response.state)
        except grpc.RpcError as exc:
            code = str(exc.code())
            text, state = exc.details() or "", None
        except (TypeError, ValueError) as exc:  # inputs protobuf cannot carry: not sent
            return Outcome("unsendable", str(exc))
        registered = [{"type": r.type, "name": r.name} for r in self.engine.registrations[before:]]
        crashed = code not in ("OK", "StatusCode.INVALID_ARGUMENT") or "Traceback" in text
        text = text.replace(name, "<name>")
        return Outcome(code, text, {}, {"state": state, "registered": len(registered)}, crashed)


def _framework_args() -> dict[str, Any]:
    config = dict(framework()[0])
    for key in ("apiVersion", "kind", "metadata"):
        config.pop(key)
    return config


def construct_inputs(kind: str, marker: str) -> dict[str, Any]:
    """Well-formed Construct inputs of each kind served (before mutation)."""
    if kind == "TServer":
        return {
            "framework": "default",
            "app": "Shop",
            "server": "Order",
            "subType": "tars",
            "tars": {"template": "tars.cpp", "servants": [{"name": "OrderObj", "port": 10001}]},
            "k8s": {"replicas": 1},
            "release": {"id": "v1", "image": "reg.example.com/shop/order:v1"},
            "labels": {"team": "shop"},
        }
    if kind == "TAccount":
        return {
            "framework": "default",
            "username": "admin",
            "password": f"{marker}p",
            "authorization": [{"role": "admin", "flag": "*"}],
        }
    if kind == "TConfig":
        return {
            "framework": "default",
            "app": "Shop",
            "configName": "a.conf",
            "configContent": "x=1",
        }
    return {"framework": "default", "templateName": "tars.go", "parent": "tars.default"}


CONSTRUCT_KINDS = ("TServer", "TAccount", "TConfig", "TTemplate")

Runner = Callable[[Case], Outcome | None]

__all__ = [
    "CLI_TARGETS",
    "CONSTRUCT_KINDS",
    "Construct",
    "Outcome",
    "Provider",
    "construct_inputs",
    "run_cli",
    "run_components",
    "secret_paths",
]


def scratch(base: Path, name: str) -> Path:
    """A scratch directory of one target below ``base``."""
    path = base / name
    path.mkdir(parents=True, exist_ok=True)
    return path


os.environ.setdefault("PULUMI_PROJECT", "tars")
