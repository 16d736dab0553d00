"""Helpers of the component tests under Pulumi's mocks."""

from __future__ import annotations

import asyncio
from typing import Any

import pulumi


def unknown() -> pulumi.Output[Any]:
    """An Output whose value is not known (as in a preview before its source exists)."""
    loop = asyncio.get_event_loop()
    futures = []
    for value in (None, False, False):
        future = loop.create_future()
        future.set_result(value)
        futures.append(future)
    return pulumi.Output(set(), *futures)
