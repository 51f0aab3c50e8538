"""OpenTelemetry metrics for the engine: ``pip install 'engine[opentelemetry]'``.

    from engine.metrics import opentelemetry
    opentelemetry.install()                  # the global MeterProvider, or meter_provider=...

Instruments on the meter ``engine`` (attributes in brackets):

- ``engine.compiles`` counter [``outcome``, ``reason``] and ``engine.compile.duration`` histogram
  (seconds);
- ``engine.cache.events`` counter [``event``: hit, miss, eviction];
- ``engine.refusals`` counter [``schema``, ``reason``];
- ``engine.validations`` counter [``tool``, ``direction``, ``side``, ``outcome``] and
  ``engine.validation.duration`` histogram (seconds) [``direction``, ``side``].
"""

from __future__ import annotations

from .._metrics import CacheEvent, CompileEvent, Event, RefusalEvent, ToolLabels, ValidationEvent, add_hook
from .._optional import missing_dependency

try:
    from opentelemetry import metrics as otel_metrics
    from opentelemetry.metrics import MeterProvider
except ModuleNotFoundError as exc:
    needs = "the OpenTelemetry API (opentelemetry-api)"
    raise missing_dependency(exc, module=__name__, needs=needs, extra="opentelemetry") from exc

__all__ = ["OpenTelemetryExporter", "install"]


class OpenTelemetryExporter:
    """A hook that records on OpenTelemetry instruments. Built and installed by :func:`install`."""

    def __init__(self, provider: MeterProvider | None, *, tool_attribute: bool) -> None:
        meter = (provider or otel_metrics.get_meter_provider()).get_meter("engine")
        self.tool_attribute = tool_attribute
        self._tools = ToolLabels()  # a hostile peer's names: a bounded set of streams
        self.compiles = meter.create_counter("engine.compiles", description="Schemas compiled or refused")
        self.compile_duration = meter.create_histogram(
            "engine.compile.duration", unit="s", description="Time spent compiling one schema"
        )
        self.cache = meter.create_counter("engine.cache.events", description="Compile-cache hits, misses, evictions")
        self.refusals = meter.create_counter("engine.refusals", description="Tool and elicitation schemas refused")
        self.validations = meter.create_counter("engine.validations", description="Payloads validated")
        self.validation_duration = meter.create_histogram(
            "engine.validation.duration", unit="s", description="Time spent validating one payload"
        )

    def __call__(self, event: Event) -> None:
        if isinstance(event, ValidationEvent):
            outcome = "valid" if event.valid else ("invalid" if event.enforced else "invalid-reported")
            where = {"direction": event.direction, "side": event.side}
            attributes = {**where, "outcome": outcome}
            if self.tool_attribute and event.tool is not None:
                attributes["tool"] = self._tools(event.tool) or ""
            self.validations.add(1, attributes)
            self.validation_duration.record(event.seconds, where)
        elif isinstance(event, CacheEvent):
            self.cache.add(1, {"event": event.outcome})
        elif isinstance(event, CompileEvent):
            self.compiles.add(
                1, {"outcome": "compiled" if event.reason is None else "refused", "reason": event.reason or ""}
            )
            self.compile_duration.record(event.seconds)
        elif isinstance(event, RefusalEvent):
            self.refusals.add(1, {"schema": event.schema or "", "reason": event.reason})


def install(*, meter_provider: MeterProvider | None = None, tool_attribute: bool = True) -> OpenTelemetryExporter:
    """Create the instruments and install the hook; ``engine.metrics.remove_hook(exporter)`` stops it."""
    exporter = OpenTelemetryExporter(meter_provider, tool_attribute=tool_attribute)
    add_hook(exporter)
    return exporter
