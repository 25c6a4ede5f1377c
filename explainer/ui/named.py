"""Handlers that return their values by name: `named(handler, c)` hands gradio {component: value}.

A handler here returns (or yields) {name: value}, the names being attributes of `c` (a tab's components, e.g. a
SimpleNamespace); a component the handler does not name keeps what it shows, and {} leaves them all as they are.
So a handler never depends on the order of an event's outputs, and a test reads its result by name.
"""

from __future__ import annotations

import functools
import inspect

import gradio as gr


def named(handler, c):
    """`handler`, which returns (or yields) {name: value}, as gradio takes it: {component: value}."""
    def by_component(out: dict) -> dict:
        # gradio reads an empty dict as one value, not as "nothing changed": gr.skip() says that for every output
        return {getattr(c, name): value for name, value in out.items()} or gr.skip()

    if inspect.isgeneratorfunction(handler):
        @functools.wraps(handler)
        def each(*args, **kwargs):
            for out in handler(*args, **kwargs):
                yield by_component(out)
        return each

    @functools.wraps(handler)  # keeps the signature gradio reads (progress, request)
    def once(*args, **kwargs):
        return by_component(handler(*args, **kwargs))
    return once
