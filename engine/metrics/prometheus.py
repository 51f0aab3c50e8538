"""Prometheus metrics for the engine: ``pip install 'engine[prometheus]'``.

    from engine.metrics import prometheus
    exporter = prometheus.install()          # registers on prometheus_client's default registry

Serve them as usual (``prometheus_client.start_http_server``, or ``make_asgi_app()`` mounted
beside the MCP endpoint). Names (``namespace`` defaults to ``engine``):

- ``engine_compiles_total{outcome="compiled"|"refused", reason}`` and
  ``engine_compile_seconds`` (histogram): schemas compiled (cache misses) and the time it took;
- ``engine_cache_events_total{event="hit"|"miss"|"eviction"}``: the compile cache;
- ``engine_refusals_total{schema, reason}``: tool and elicitation schemas refused;
- ``engine_validations_total{tool, direction, side, outcome}`` with outcome ``valid``, ``invalid``
  or ``invalid-reported`` (report-only mode), and ``engine_validation_seconds{direction, side}``
  (histogram).

``tool`` is a label: a server with an unbounded set of tool names should pass ``tool_label=False``.
"""

from __future__ import annotations

from .._metrics import CacheEvent, CompileEvent, Event, RefusalEvent, ToolLabels, ValidationEvent, add_hook
from .._optional import missing_dependency

try:
    from prometheus_client import REGISTRY, CollectorRegistry, Counter, Histogram
except ModuleNotFoundError as exc:
    raise missing_dependency(exc, module=__name__, needs="prometheus_client", extra="prometheus") from exc

__all__ = ["PrometheusExporter", "install"]

# Validation takes microseconds, compiles milliseconds: buckets that separate both.
_VALIDATION_BUCKETS = (1e-6, 5e-6, 1e-5, 2.5e-5, 5e-5, 1e-4, 2.5e-4, 1e-3, 5e-3, 0.025, 0.1, 1.0)
_COMPILE_BUCKETS = (1e-4, 5e-4, 1e-3, 5e-3, 0.01, 0.025, 0.05, 0.1, 0.25, 1.0, 5.0)


class PrometheusExporter:
    """A hook that feeds Prometheus collectors. Built and installed by :func:`install`."""

    def __init__(self, registry: CollectorRegistry, namespace: str, *, tool_label: bool) -> None:
        self.tool_label = tool_label
        self._tools = ToolLabels()  # a hostile peer's names: a bounded set of series
        self.compiles = Counter(
            "compiles",
            "Schemas compiled (cache misses) or refused while compiling",
            ["outcome", "reason"],
            namespace=namespace,
            registry=registry,
        )
        self.compile_seconds = Histogram(
            "compile_seconds",
            "Time spent compiling one schema",
            namespace=namespace,
            registry=registry,
            buckets=_COMPILE_BUCKETS,
        )
        self.cache = Counter(
            "cache_events",
            "Compile-cache hits, misses and evictions",
            ["event"],
            namespace=namespace,
            registry=registry,
        )
        self.refusals = Counter(
            "refusals",
            "Tool and elicitation schemas refused",
            ["schema", "reason"],
            namespace=namespace,
            registry=registry,
        )
        self.validations = Counter(
            "validations",
            "Payloads validated by the adapters",
            ["tool", "direction", "side", "outcome"],
            namespace=namespace,
            registry=registry,
        )
        self.validation_seconds = Histogram(
            "validation_seconds",
            "Time spent validating one payload",
            ["direction", "side"],
            namespace=namespace,
            registry=registry,
            buckets=_VALIDATION_BUCKETS,
        )

    def __call__(self, event: Event) -> None:
        if isinstance(event, ValidationEvent):
            outcome = "valid" if event.valid else ("invalid" if event.enforced else "invalid-reported")
            tool = (self._tools(event.tool) or "") if self.tool_label else ""
            self.validations.labels(tool, event.direction, event.side, outcome).inc()
            self.validation_seconds.labels(event.direction, event.side).observe(event.seconds)
        elif isinstance(event, CacheEvent):
            self.cache.labels(event.outcome).inc()
        elif isinstance(event, CompileEvent):
            self.compiles.labels("compiled" if event.reason is None else "refused", event.reason or "").inc()
            self.compile_seconds.observe(event.seconds)
        elif isinstance(event, RefusalEvent):
            self.refusals.labels(event.schema or "", event.reason).inc()


def install(
    *, registry: CollectorRegistry | None = None, namespace: str = "engine", tool_label: bool = True
) -> PrometheusExporter:
    """Create the collectors on ``registry`` (the default registry when omitted) and install the
    hook; ``engine.metrics.remove_hook(exporter)`` stops it."""
    exporter = PrometheusExporter(registry if registry is not None else REGISTRY, namespace, tool_label=tool_label)
    add_hook(exporter)
    return exporter
