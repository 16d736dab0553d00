"""The rule registry: every rule code is declared once, next to the check that reports it.

A rules module declares its codes with :func:`rule` (``TS004 = rule("TS004", ERROR, ...)``)
right above the check, and the check reports through the returned :class:`Rule`
(``TS004.at(server, path, message)``), never with a bare code string. :func:`registered`
lists what the imported modules declared; :mod:`tars_components.rules.catalog` imports every
rules module first.

This module depends only on :mod:`tars_components.kernel.errors` and
:mod:`tars_components.kernel.paths`, so that the loader can report its schema codes
(:mod:`tars_components.loading.schema_rules`) without importing the checks.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass
from enum import Enum
from typing import Any, Literal, Protocol, TypeVar

from .errors import Severity, Violation
from .paths import Segment, Source, format_path

Origin = Literal["seed", "controller", "tars-components"]
"""Who defines a rule: the TarsK8S seed document, the controller's webhook or CRD code, or
this project."""

ERROR = Severity.ERROR
WARNING = Severity.WARNING

KIND_ORDER = ("TS", "TT", "TF", "TC", "TI", "TR", "TA", "TX", "TH", "TD", "TP", "TO", "TV", "TM")
"""Code prefixes in catalogue order (the TarsK8S kinds first, then plain objects, helm-lib
values, TDeploy, Rollout, field ownership, storage changes and the cluster inventory)."""


FACT_TEMPLATES = "templates"
"""``{template name: parent}`` of the templates a document's rules look at."""
FACT_FRAMEWORK_NODE_IMAGE = "frameworkNodeImage"
"""The ``nodeImage`` of the namespace's ``tars-framework``."""
FACT_SERVER_NAMES = "serverNames"
"""The earlier TServers of the namespace whose object name a server takes too."""
FACT_CONFIG_MASTER = "configMaster"
"""Whether the namespace holds the activated master version of a node-level TConfig."""
FACTS = (FACT_TEMPLATES, FACT_FRAMEWORK_NODE_IMAGE, FACT_SERVER_NAMES, FACT_CONFIG_MASTER)
"""What the validation resource of one document is told about the rest of its namespace
(the provider's context inputs, :mod:`tars_components.provider.wire`)."""


class Subject(Protocol):
    """What a violation is about: a document, a rejected document or a plain object."""

    @property
    def kind(self) -> str: ...

    @property
    def namespace(self) -> str: ...

    @property
    def name(self) -> str: ...

    @property
    def source(self) -> Source | None: ...


@dataclass(frozen=True)
class Rule:
    """One rule code. ``change`` rules compare a previous and a current stack
    (:func:`tars_components.rules.validate_change`); the others look at one stack."""

    code: str
    severity: Severity
    kind: str
    summary: str
    origin: Origin
    change: bool = False
    create_only: bool = False
    """True for rules the webhook applies on create only: ``validate --previous`` leaves
    them out for objects that the previous stack already has (updates)."""
    also_warning: bool = False
    """True for an error rule with a documented case that is only a warning (its summary
    says which): the one case where a violation's severity differs from the rule's."""
    facts: tuple[str, ...] = ()
    """The provider facts the rule reads (:data:`FACTS`): at preview the validation resource
    does not report it while one of them is unknown."""
    fields: tuple[str, ...] = ()
    """Fields (``*``: any list index) the rule relates to other fields of the document: at
    preview it is not reported while one of them is unknown, wherever it would point."""

    def at(
        self,
        doc: Subject,
        path: str | Sequence[Segment],
        message: str,
        severity: Severity | None = None,
    ) -> Violation:
        """A violation of this rule at a field of ``doc``, located in its source file when
        known, with the rule's severity unless ``severity`` says otherwise."""
        field = path if isinstance(path, str) else format_path(path)
        source = doc.source
        return self.violation(
            kind=doc.kind,
            namespace=doc.namespace,
            name=doc.name,
            field=field,
            message=message,
            file=source.file if source else None,
            line=source.line(field) if source else None,
            severity=severity,
        )

    def violation(
        self,
        *,
        kind: str,
        namespace: str,
        name: str,
        field: str,
        message: str,
        file: str | None = None,
        line: int | None = None,
        severity: Severity | None = None,
    ) -> Violation:
        """A violation of this rule from its parts (for a subject that is not a document).
        Raises ValueError for a severity the declaration does not allow."""
        if severity not in (None, self.severity) and not (
            self.also_warning and severity is Severity.WARNING
        ):
            raise ValueError(f"{self.code} is declared {self.severity.value}, not {severity}")
        return Violation(
            code=self.code,
            severity=severity or self.severity,
            kind=kind,
            namespace=namespace,
            name=name,
            field=field,
            message=message,
            file=file,
            line=line,
        )


_REGISTRY: dict[str, Rule] = {}


def rule(
    code: str,
    severity: Severity,
    kind: str,
    summary: str,
    *,
    origin: Origin,
    change: bool = False,
    create_only: bool = False,
    also_warning: bool = False,
    facts: Sequence[str] = (),
    fields: Sequence[str] = (),
) -> Rule:
    """Declare a rule code (once: a second declaration of the same code raises ValueError),
    with what it needs at preview: the provider ``facts`` it reads and the ``fields`` it
    relates to others (:attr:`Rule.facts`, :attr:`Rule.fields`)."""
    if code in _REGISTRY:
        raise ValueError(f"rule {code} is declared twice")
    if code[:2] not in KIND_ORDER or len(code) != 5 or not code[2:].isdigit():
        raise ValueError(f"rule code {code!r} is not T<kind letter><3 digits> of {KIND_ORDER}")
    unknown = sorted(set(facts) - set(FACTS))
    if unknown:
        raise ValueError(f"rule {code} reads facts {unknown} the provider does not send")
    declared = Rule(
        code,
        severity,
        kind,
        summary,
        origin,
        change,
        create_only,
        also_warning,
        tuple(facts),
        tuple(fields),
    )
    _REGISTRY[code] = declared
    return declared


def code_order(code: str) -> tuple[int, str]:
    """Sort key of a code: its kind in :data:`KIND_ORDER`, then its number."""
    return KIND_ORDER.index(code[:2]), code[2:]


def registered() -> dict[str, Rule]:
    """Every rule declared so far by an imported module, in code order."""
    return {code: _REGISTRY[code] for code in sorted(_REGISTRY, key=code_order)}


def lookup(code: str) -> Rule | None:
    """The rule declared with ``code``, if any module imported so far declares it."""
    return _REGISTRY.get(code)


class Need(Enum):
    """What a check needs besides the stack it looks at."""

    OPTIONS = "options"
    """The build options (mode, workload, ownership, approvers, ...)."""
    PREVIOUS = "previous"
    """The version of the stack this one replaces (a change rule)."""


STACK_ONLY: frozenset[Need] = frozenset()
WITH_OPTIONS = frozenset({Need.OPTIONS})
WITH_PREVIOUS = frozenset({Need.PREVIOUS})
WITH_PREVIOUS_AND_OPTIONS = frozenset({Need.PREVIOUS, Need.OPTIONS})

CheckFunction = Callable[..., Iterable[Violation]]
"""A check: ``(stack)``, ``(stack, options)``, ``(previous, stack)`` or
``(previous, stack, options)``, by what it needs, returning violations."""
F = TypeVar("F", bound=CheckFunction)


@dataclass(frozen=True)
class Check:
    """A registered check: the function and what it needs."""

    function: CheckFunction
    needs: frozenset[Need]

    @property
    def name(self) -> str:
        """``module.function``, for messages and tests."""
        return f"{self.function.__module__}.{self.function.__qualname__}"

    def run(self, stack: Any, options: Any = None, previous: Any = None) -> Iterable[Violation]:
        """The check's violations, called with what it needs."""
        before = (previous,) if Need.PREVIOUS in self.needs else ()
        after = (options,) if Need.OPTIONS in self.needs else ()
        return self.function(*before, stack, *after)


_CHECKS: dict[str, Check] = {}


def check(*needs: Need) -> Callable[[F], F]:
    """Register the decorated function as a check that needs ``needs`` besides the stack
    (a module registers its checks when it is imported; :mod:`tars_components.rules.catalog`
    imports every rules module)."""

    def register(function: F) -> F:
        registered_check = Check(function, frozenset(needs))
        if registered_check.name in _CHECKS:
            raise ValueError(f"check {registered_check.name} is registered twice")
        _CHECKS[registered_check.name] = registered_check
        return function

    return register


def registered_checks(needs: frozenset[Need] | None = None) -> list[Check]:
    """The checks registered so far by imported modules, by name; with ``needs``, only the
    checks that need exactly that."""
    return [
        _CHECKS[name] for name in sorted(_CHECKS) if needs is None or _CHECKS[name].needs == needs
    ]


def run_checks(
    stack: Any, needs: frozenset[Need], options: Any = None, previous: Any = None
) -> list[Violation]:
    """Every violation of the registered checks that need exactly ``needs`` (unsorted)."""
    found: list[Violation] = []
    for registered_check in registered_checks(needs):
        found.extend(registered_check.run(stack, options, previous))
    return found
