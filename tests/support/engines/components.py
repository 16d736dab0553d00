"""Helpers of the component tests under Pulumi's mocks."""

from __future__ import annotations

import asyncio
from typing import Any

import pulumi

from tars_components.components.testing import DYNAMIC_PREFIX, Recording, strip_secrets
from tars_components.provider.wire import EMPTY_FACTS


def unknown() -> pulumi.Output[Any]:
    """An Output whose value is not known (as in a preview before its source exists)."""
    loop = asyncio.get_event_loop()
    futures = []
    for value in (None, False, False):
        future = loop.create_future()
        future.set_result(value)
        futures.append(future)
    return pulumi.Output(set(), *futures)


def same(value: Any) -> Any:
    """A value given as it is (beside :func:`output`)."""
    return value


def output(value: Any) -> Any:
    """A value given as a known Output."""
    return pulumi.Output.from_input(value)


def registered(recording: Recording) -> list[tuple[str, str, Any, tuple[str, ...]]]:
    """What was registered, by URN, secret markers left out; a validation fact that is not
    sent stands for its empty value (the provider reads it so; an Output fact is sent even
    when it resolves empty)."""
    return [
        (r.type, r.urn, strip_secrets(_with_empty_facts(r.type, r.inputs)), r.dependencies)
        for r in sorted(recording.registrations, key=lambda r: r.urn)
    ]


def _with_empty_facts(type_: str, inputs: dict[str, Any]) -> dict[str, Any]:
    if not type_.startswith(DYNAMIC_PREFIX):
        return inputs
    return {**EMPTY_FACTS, **inputs}
