"""The workloads on real data: compile, arguments, results, elicitation, and scale.

Each row times every contender over the same items in one process, interleaved, and reports
each median as a ratio to the floor's median over the same bytes. A contender that refuses some
items is timed on the rest, against the floor over exactly those items, and the cell says so.
"""

from __future__ import annotations

import functools
import math
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import msgspec

import engine

from .contenders import Contender, EngineContender, Refused, decode, mcp_available
from .corpus import BENCH_DATA, Corpus
from .instances import is_valid_reference, one_wrong_type
from .report import column_label
from .results import Cell, Row, Workload
from .timing import Budget, measure

__all__ = ["Context", "WORKLOADS"]

encode = msgspec.json.encode

# (callable, argument, how to check it accepts the argument before it is timed: True = it answers
# with a bool, False = it raises when it does not, None = no check: prepare() already ran it)
Prepared = tuple[Callable[[Any], Any], Any, bool | None]


@dataclass
class Context:
    corpus: Corpus
    contenders: list[Contender]
    budget: Budget
    quick: bool = False
    progress: Callable[[str], None] = lambda _: None
    timeout: float = 3.0
    """Pathological cases: seconds a subprocess may run."""
    max_items: int | None = None
    """Cap on items per row (the quick mode's subset)."""
    compile_rounds: int = 3
    scale_seconds: float = 8.0
    """A scale point is skipped for a contender whose estimated time exceeds this."""
    cache: dict[Any, Any] = field(default_factory=dict)

    cases: list[str] | None = None
    """Pathological case ids to run (default: all, or the quick subset)."""
    data: Path = BENCH_DATA
    """The folder the corpus was read from (its ``pathological/`` holds the catalog, if any)."""

    def limit(self, items: Sequence[Any]) -> list[Any]:
        """At most ``max_items``, taken evenly across the list so every source is represented."""
        if not self.max_items or len(items) <= self.max_items:
            return list(items)
        step = len(items) / self.max_items
        return [items[int(i * step)] for i in range(self.max_items)]


def _loop(pairs: list[tuple[Callable[[Any], Any], Any]]) -> Callable[[], None]:
    if pairs and all(_named(f) for f, _ in pairs):
        # The engine's `(name, data)` methods (`ToolSet.validate_arguments`, `validate_result`),
        # prepared as a partial of the name: called as their callers call them, both arguments at
        # once, so that the partial's own call is not timed as the engine's.
        calls = [(f.func, *f.args, arg) for f, arg in pairs]  # type: ignore[attr-defined]

        def run_named() -> None:
            for f, name, arg in calls:
                f(name, arg)

        return run_named

    def run() -> None:
        for f, arg in pairs:
            f(arg)

    return run


def _named(f: Callable[[Any], Any]) -> bool:
    return type(f) is functools.partial and len(f.args) == 1 and not f.keywords


def time_row(
    ctx: Context,
    row: Row,
    items: Sequence[Any],
    data_of: Callable[[Any], bytes],
    prepare: Callable[[Contender, Any], Prepared],
    *,
    budget: Budget | None = None,
    refusing: bool = False,
) -> Row:
    """Fill ``row.cells``: every contender over ``items``, side by side, as ratios to the floor.
    ``refusing``: the items are invalid, and each call answers whether it refused one."""
    ctx.progress(f"{row.case} {row.detail}".strip())
    n = len(items)
    calls: dict[str, Callable[[], None]] = {}
    subsets: dict[str, tuple[int, ...]] = {}
    for contender in ctx.contenders:
        if contender.kind == "floor":
            continue
        pairs: list[tuple[Callable[[Any], Any], Any]] = []
        taken: list[int] = []
        refusals: dict[str, list[str]] = {}
        wrong = 0
        for i, item in enumerate(items):
            try:
                f, arg, answers_bool = prepare(contender, item)
            except Refused as exc:
                refusals.setdefault(exc.status, []).append(exc.reason)
                continue
            try:
                if answers_bool is None:
                    accepted = True
                elif answers_bool:
                    accepted = f(arg) is not False
                else:
                    f(arg)
                    accepted = True
            except Exception:  # noqa: BLE001 - a valid instance rejected: counted, never timed
                accepted = False
            if not accepted:
                wrong += 1
                continue
            pairs.append((f, arg))
            taken.append(i)
        notes = []
        if wrong:
            notes.append(f"{wrong} invalid accepted" if refusing else f"{wrong} valid rejected")
        for status, reasons in refusals.items():
            notes.append(reasons[0] if len(reasons) == n else f"{len(reasons)} {status}: {reasons[0][:100]}")
        if not pairs:
            status = "wrong" if wrong else next(iter(refusals), "n/a")
            row.cells[contender.name] = Cell(status=status, items=0, of=n, note="; ".join(notes) or None)
            continue
        calls[contender.name] = _loop(pairs)
        subsets[contender.name] = tuple(taken)
        row.cells[contender.name] = Cell(status="ok", items=len(taken), of=n, note="; ".join(notes) or None)
    everything = tuple(range(n))
    floor_keys: dict[tuple[int, ...], str] = {everything: "floor"}
    for subset in subsets.values():
        floor_keys.setdefault(subset, f"floor/{len(floor_keys)}")
    for subset, key in floor_keys.items():
        calls[key] = _loop([(decode, data_of(items[i])) for i in subset])
    measured = measure(calls, budget or ctx.budget)
    row.floor_s = measured["floor"].median_s
    row.cells["floor"] = Cell(status="ok", ratio=1.0, median_s=row.floor_s, items=n, of=n)
    for name, subset in subsets.items():
        cell = row.cells[name]
        cell.median_s = measured[name].median_s
        cell.ratio = cell.median_s / measured[floor_keys[subset]].median_s
    return row


def _memo(ctx: Context, key: Any, build: Callable[[], Any]) -> Any:
    """Compile once per (contender, schema or tool set); a refusal is remembered too."""
    try:
        value = ctx.cache[key]
    except KeyError:
        try:
            value = build()
        except Refused as exc:
            value = exc
        ctx.cache[key] = value
    if isinstance(value, Refused):
        raise value
    return value


def _checker(ctx: Context, contender: Contender, schema: Any) -> Any:
    return _memo(ctx, ("checker", contender.name, id(schema)), lambda: contender.compile(schema))


def _tool_set(ctx: Context, contender: EngineContender, key: str, tools: list[dict[str, Any]]) -> Any:
    def build() -> Any:
        try:
            return engine.compile_tools(tools, engine=contender.engine)  # type: ignore[attr-defined]
        except Exception as exc:  # noqa: BLE001 - a refused tool list is shown, not fatal
            raise Refused("error", f"{type(exc).__name__}: {exc}") from None

    return _memo(ctx, ("toolset", contender.name, key), build)


def _refused_tool(tools: Any, name: str) -> None:
    rejected = getattr(tools, "rejected", {}) or {}
    if name in rejected:
        exc = rejected[name]
        raise Refused("refused", f"{getattr(exc, 'reason', 'rejected')}: {getattr(exc, 'message', exc)}")


# --------------------------------------------------------------------------------------- compile


def compile_workload(ctx: Context) -> Workload:
    schemas = ctx.limit(ctx.corpus.schemas())
    data = {label: encode(schema) for label, schema in schemas}
    work = Workload(
        name="compile",
        title=f"Compile every tool schema in {ctx.data.name}/",
        unit=f"one pass compiling {len(schemas)} schemas (input and output), ratio to decoding their bytes",
    )
    # A cold pass over every schema takes seconds for the code-generating libraries: they get two
    # rounds (besides the untimed pass that finds the schemas they refuse).
    budget = Budget(
        rounds=ctx.compile_rounds, round_seconds=ctx.budget.round_seconds, contender_seconds=4.0, min_rounds=2
    )

    def cold(contender: Contender, item: tuple[str, Any]) -> Prepared:
        compile_one = _memo(ctx, ("cold", contender.name), contender.cold_compiler)
        try:
            compile_one(item[1])
        except Exception as exc:  # noqa: BLE001 - a refusal or a library error, shown in the cell
            reason = getattr(exc, "reason", None)
            raise Refused("refused" if reason else "error", f"{reason or type(exc).__name__}") from None
        return compile_one, item[1], None

    work.rows.append(
        time_row(ctx, Row(case="cold", detail="nothing cached"), schemas, lambda it: data[it[0]], cold, budget=budget)
    )
    work.rows.append(_cold_and_first_call(ctx, budget))

    def warm(equal: bool) -> Callable[[Contender, tuple[str, Any]], Prepared]:
        def prepare(contender: Contender, item: tuple[str, Any]) -> Prepared:
            if not isinstance(contender, EngineContender):
                raise Refused("n/a", "no compile cache")
            eng = _memo(ctx, ("warm", contender.name), contender.fresh_engine)
            try:
                eng.compile(item[1])
            except Exception as exc:  # noqa: BLE001
                raise Refused("refused", str(getattr(exc, "reason", type(exc).__name__))) from None
            # An equal copy (a re-listed tool decoded again) is another object with the same content.
            schema = msgspec.json.decode(data[item[0]]) if equal else item[1]
            return eng.compile, schema, None

        return prepare

    work.rows.append(
        time_row(ctx, Row(case="warm", detail="cache hits, same object"), schemas, lambda it: data[it[0]], warm(False))
    )
    work.rows.append(
        time_row(
            ctx, Row(case="warm equal", detail="cache hits, an equal copy"), schemas, lambda it: data[it[0]], warm(True)
        )
    )
    cold_row, _, *warm_rows = work.rows
    raw = cold_row.cells.get("jsonschema-rs")
    for warm_row in warm_rows:
        what = "an equal copy" if warm_row.case == "warm equal" else "the same object"
        for name, cell in warm_row.cells.items():
            cold_cell = cold_row.cells.get(name)
            if name != "floor" and cell.median_s and cold_cell and cold_cell.median_s and cell.items == cold_cell.items:
                share = cell.median_s / cold_cell.median_s
                line = f"{column_label(name)}: a cache hit on {what} costs {share:.1%} of a cold compile"
                if raw is not None and raw.median_s and raw.items and cell.items:
                    per_item = (cell.median_s / cell.items) / (raw.median_s / raw.items)
                    line += f", {per_item:.1%} of a raw jsonschema-rs compile (per schema)"
                work.summary.append(line)
    return work


def _cold_and_first_call(ctx: Context, budget: Budget) -> Row:
    """Every tool with arguments: its input schema compiled with nothing cached, then its
    arguments checked once from bytes (the engine through `compile_tools` and
    `ToolSet.validate_arguments`, what a host does with a tool list it has just received; the raw
    libraries compile, decode and check). The floor decodes the schema."""
    tools = ctx.limit([t for t in ctx.corpus.tools if t.arguments is not None and isinstance(t.input_schema, dict)])
    schema_bytes = {id(t): encode(t.input_schema) for t in tools}
    arguments = {id(t): encode(t.arguments) for t in tools}

    def prepare(contender: Contender, tool: Any) -> Prepared:
        data = arguments[id(tool)]
        if isinstance(contender, EngineContender):
            if mcp_available() is not None:
                raise Refused("skipped", "the MCP layer is not installed")
            cold = _memo(ctx, ("first call", contender.name), lambda: contender.fresh_engine(cache_size=0))
            compile_tools = engine.compile_tools  # type: ignore[attr-defined]
            definition = {"name": tool.name, "inputSchema": tool.input_schema}

            def compile_and_call(one: dict[str, Any], data: bytes) -> Any:
                return compile_tools([one], engine=cold).validate_arguments(one["name"], data)

            try:
                compile_and_call(definition, data)
            except Exception as exc:  # noqa: BLE001 - a refusal, shown in the cell
                raise Refused("refused", str(getattr(exc, "reason", type(exc).__name__))) from None
            return functools.partial(compile_and_call, definition), data, None
        check = _memo(ctx, ("cold check", contender.name), contender.cold_check)
        schema = tool.input_schema

        def compile_and_check(schema: Any, data: bytes) -> Any:
            return check(schema, decode(data))

        try:
            compile_and_check(schema, data)
        except Exception as exc:  # noqa: BLE001 - whatever the library raises is the answer shown
            raise Refused("error", type(exc).__name__) from None
        return functools.partial(compile_and_check, schema), data, contender.kind == "raw"

    row = Row(case="cold + first call", detail="input schemas, compiled and called once")
    return time_row(ctx, row, tools, lambda t: schema_bytes[id(t)], prepare, budget=budget)


# ------------------------------------------------------------------------------------- arguments


def _tools_by_source(ctx: Context) -> list[tuple[str, list[Any]]]:
    groups: dict[str, list[Any]] = {}
    for tool in ctx.corpus.tools:
        if tool.arguments is not None and isinstance(tool.input_schema, (dict, bool)):
            groups.setdefault(tool.source, []).append(tool)
    everything = [t for ts in groups.values() for t in ts]
    if ctx.quick:
        return [("all", ctx.limit(everything))]
    return [("all", everything), *sorted(groups.items())]


def arguments_workload(ctx: Context) -> Workload:
    mcp = mcp_available() is None
    work = Workload(
        name="arguments",
        title="Tool-call arguments (recorded, or generated valid for every tool)",
        unit="one pass over the row's tools, ratio to decoding the arguments' bytes",
    )
    definitions: dict[str, list[dict[str, Any]]] = {}
    for tool in ctx.corpus.tools:
        definitions.setdefault(tool.source, []).append(tool.definition)
    payload = {id(t): encode(t.arguments) for t in ctx.corpus.tools if t.arguments is not None}
    # The same arguments with one property the schema does not name, for the tools whose schema
    # admits it: what a payload pays when the one-pass typed decode refuses it.
    extra = {
        id(t): encode({**t.arguments, "zz_extra": ["x", 1]})
        for t in ctx.corpus.tools
        if isinstance(t.arguments, dict)
        and isinstance(t.input_schema, dict)
        and is_valid_reference(t.input_schema, {**t.arguments, "zz_extra": ["x", 1]})
    }

    # The same arguments with one property of the wrong type, for the tools whose schema refuses
    # it: what an invalid call costs, each library reporting it as its docs say.
    invalid = {
        id(t): encode(wrong)
        for t in ctx.corpus.tools
        if (wrong := one_wrong_type(t.input_schema, t.arguments)) is not None
    }

    def prepare(form: str) -> Callable[[Contender, Any], Prepared]:
        """``form``: "bytes", "dicts", "typed" (bytes to the typed value), "extra" (bytes with
        an extra property) or "invalid" (bytes with a property of the wrong type, refused)."""

        def run(contender: Contender, tool: Any) -> Prepared:
            if form == "invalid":
                return _refusal(ctx, contender, tool, definitions[tool.source], invalid[id(tool)], mcp)
            if form == "extra":
                arg = extra[id(tool)]
            else:
                arg = tool.arguments if form == "dicts" else payload[id(tool)]
            if mcp and isinstance(contender, EngineContender):
                tools = _tool_set(ctx, contender, tool.source, definitions[tool.source])
                _refused_tool(tools, tool.name)
                if form == "typed":
                    return tools.tool(tool.name).input.decode_typed, arg, False
                return functools.partial(tools.validate_arguments, tool.name), arg, False
            checker = _checker(ctx, contender, tool.input_schema)
            if form != "dicts":
                return checker.from_bytes, arg, contender.kind == "raw"
            if checker.from_object is None:
                raise Refused("n/a", "decodes bytes only")
            return checker.from_object, arg, contender.kind == "raw"

        return run

    api = "ToolSet.validate_arguments" if mcp else "CompiledSchema.decode / .validate (MCP layer not available)"
    for source, tools in _tools_by_source(ctx):
        recorded = sum(t.arguments_recorded for t in tools)
        detail = f"{len(tools)} tools, {recorded} recorded"
        # Every tool from bytes, from dicts, to typed values and with an extra property; per
        # source, from bytes (the hot path) only.
        for form in ("bytes", "dicts", "typed", "extra", "invalid") if source == "all" else ("bytes",):
            case = f"{source} {form}"
            if form in ("extra", "invalid"):
                variant = extra if form == "extra" else invalid
                chosen = [t for t in tools if id(t) in variant]
                what = "admits it" if form == "extra" else "refuses it"
                row = Row(case=case, detail=f"{len(chosen)} tools whose schema {what}")
                data_of = functools.partial(_by_id, variant)
                work.rows.append(time_row(ctx, row, chosen, data_of, prepare(form), refusing=form == "invalid"))
                continue
            row = Row(case=case, detail=detail)
            work.rows.append(time_row(ctx, row, tools, lambda t: payload[id(t)], prepare(form)))
    work.unit += (
        f"; engine via {api}; 'typed': CompiledSchema.decode_typed (Structs); 'extra': the arguments"
        " with one property the schema does not name; 'invalid': with one property of the wrong type,"
        " refused with each library's report (the engine's ValidationFailed lists every issue;"
        " jsonschema-rs `validate`, fastjsonschema and python-jsonschema `validate` raise their first error)"
    )
    return work


def _by_id(documents: dict[int, bytes], item: Any) -> bytes:
    return documents[id(item)]


def _refusal(
    ctx: Context, contender: Contender, tool: Any, definitions: list[dict[str, Any]], data: bytes, mcp: bool
) -> Prepared:
    """The call refusing ``data``, an invalid arguments document of ``tool``, with the contender's
    report: ``True`` once refused as invalid (``False``, accepted, is counted as wrong)."""
    if mcp and isinstance(contender, EngineContender):
        tools = _tool_set(ctx, contender, tool.source, definitions)
        _refused_tool(tools, tool.name)
        validate, name = tools.validate_arguments, tool.name

        def refuses(document: bytes) -> bool:
            try:
                validate(name, document)
            except engine.ValidationFailed:
                return True
            return False

        return refuses, data, True
    refuses_with = _checker(ctx, contender, tool.input_schema).refuses
    if refuses_with is None:
        raise Refused("n/a", "reports no errors")
    return refuses_with, data, True


# --------------------------------------------------------------------------------------- results


def results_workload(ctx: Context) -> Workload:
    why = mcp_available()
    work = Workload(
        name="results",
        title="Recorded CallToolResult with structuredContent, from bytes",
        unit="one pass over the row's results, ratio to decoding the whole result",
    )
    results = [r for r in ctx.corpus.results if not r.result.get("isError")]
    groups = {
        "with outputSchema": [r for r in results if r.output_schema is not None],
        "no outputSchema": [r for r in results if r.output_schema is None],
    }
    definitions: dict[str, dict[str, dict[str, Any]]] = {}
    for r in ctx.corpus.results:
        tool: dict[str, Any] = {"name": r.tool, "inputSchema": {"type": "object"}}
        if r.output_schema is not None:
            tool["outputSchema"] = r.output_schema
        definitions.setdefault(r.source, {})[r.tool] = tool

    # The same results as a host reads them off the transport: the whole JSON-RPC response.
    responses = {id(r): encode({"jsonrpc": "2.0", "id": 1, "result": r.result}) for r in results}

    def prepare(contender: Contender, result: Any, *, response: bool = False, values: bool = False) -> Prepared:
        """``response``: the result inside its JSON-RPC response; ``values``: its structuredContent
        as a Python value, what an SDK's result object hands over."""
        data = responses[id(result)] if response else result.data
        if values:
            data = result.result["structuredContent"]
        if isinstance(contender, EngineContender):
            if why:
                raise Refused("skipped", why)
            tools = _tool_set(ctx, contender, "results:" + result.source, list(definitions[result.source].values()))
            _refused_tool(tools, result.tool)
            call = tools.validate_structured if values else tools.validate_result
            return functools.partial(call, result.tool), data, False
        if result.output_schema is None:
            raise Refused("n/a", "no outputSchema: nothing to validate")
        checker = _checker(ctx, contender, result.output_schema)
        check = checker.from_object
        if values:
            if check is None:
                raise Refused("n/a", "decodes bytes only")
            return check, data, contender.kind == "raw"

        def decode_and_check(data: bytes) -> Any:
            return check(decode(data)["structuredContent"])

        def decode_response_and_check(data: bytes) -> Any:
            return check(decode(data)["result"]["structuredContent"])

        return (decode_response_and_check if response else decode_and_check), data, contender.kind == "raw"

    for case, items in groups.items():
        items = ctx.limit(items)
        if items:
            work.rows.append(
                time_row(ctx, Row(case=case, detail=f"{len(items)} results"), items, lambda r: r.data, prepare)
            )
        if ctx.quick:
            break
    items = ctx.limit(groups["with outputSchema"])
    if items and not ctx.quick:
        row = Row(case="with outputSchema, in a JSON-RPC response", detail=f"{len(items)} responses")
        work.rows.append(
            time_row(ctx, row, items, lambda r: responses[id(r)], functools.partial(prepare, response=True))
        )
    # structuredContent as the SDKs hand it over (a Python value), as the adapters check it.
    items = [r for r in items if "structuredContent" in r.result]
    if items:
        row = Row(case="structuredContent as values", detail=f"{len(items)} values")
        work.rows.append(time_row(ctx, row, items, lambda r: r.data, functools.partial(prepare, values=True)))
    return work


# ----------------------------------------------------------------------------------- elicitation


def elicitation_workload(ctx: Context) -> Workload:
    why = mcp_available()
    work = Workload(
        name="elicitation",
        title=f"ElicitResult payloads for the forms in {ctx.data.name}/elicitation/, from bytes",
        unit="one pass over the row's payloads, ratio to decoding them",
    )
    forms = [f for f in ctx.corpus.forms if f.content is not None]
    payloads = {id(f): encode({"action": "accept", "content": f.content}) for f in forms}

    def prepare(contender: Contender, form: Any) -> Prepared:
        data = payloads[id(form)]
        if isinstance(contender, EngineContender):
            if why:
                raise Refused("skipped", why)

            def build() -> Any:
                try:
                    return engine.compile_elicitation(form.requested_schema, engine=contender.engine)  # type: ignore[attr-defined]
                except Exception as exc:  # noqa: BLE001
                    raise Refused("refused", f"{getattr(exc, 'reason', type(exc).__name__)}: {exc}") from None

            compiled = _memo(ctx, ("form", contender.name, form.id), build)
            return compiled.decode_result, data, False
        check = _checker(ctx, contender, form.requested_schema).from_object

        def decode_and_check(raw: bytes) -> Any:
            answer = decode(raw)
            return answer["action"] in ("accept", "decline", "cancel") and check(answer["content"])

        return decode_and_check, data, contender.kind == "raw"

    items = ctx.limit(forms)
    row = Row(case="all forms", detail=f"{len(items)} accept payloads")
    work.rows.append(time_row(ctx, row, items, lambda f: payloads[id(f)], prepare))

    def compile_and_answer(cached: bool) -> Callable[[Contender, Any], Prepared]:
        """Each form compiled, then its answer read once: as a client does on each
        `elicitation/create` (the engine on an engine that caches schemas, or that caches none)."""

        def prepare(contender: Contender, form: Any) -> Prepared:
            data = payloads[id(form)]
            schema = form.requested_schema
            if isinstance(contender, EngineContender):
                if why:
                    raise Refused("skipped", why)
                overrides = {} if cached else {"cache_size": 0}
                eng = _memo(ctx, ("forms", cached, contender.name), lambda: contender.fresh_engine(**overrides))
                compile_form = engine.compile_elicitation  # type: ignore[attr-defined]

                def engine_answer(schema: Any, data: bytes) -> Any:
                    return compile_form(schema, engine=eng).decode_result(data)

                try:
                    engine_answer(schema, data)
                except Exception as exc:  # noqa: BLE001
                    raise Refused("refused", str(getattr(exc, "reason", type(exc).__name__))) from None
                return functools.partial(engine_answer, schema), data, None
            check = _memo(ctx, ("cold check", contender.name), contender.cold_check)

            def raw_answer(schema: Any, data: bytes) -> Any:
                answer = decode(data)
                return answer["action"] in ("accept", "decline", "cancel") and check(schema, answer["content"])

            try:
                raw_answer(schema, data)
            except Exception as exc:  # noqa: BLE001
                raise Refused("error", type(exc).__name__) from None
            return functools.partial(raw_answer, schema), data, contender.kind == "raw"

        return prepare

    for cached in (False, True):
        case = "compiled + answered, cached engine" if cached else "compiled + answered, nothing cached"
        row = Row(case=case, detail="a form compiled for each answer")
        work.rows.append(time_row(ctx, row, items, lambda f: payloads[id(f)], compile_and_answer(cached)))
    if why:
        work.skipped = f"engine columns {why}"
    return work


# ----------------------------------------------------------------------------------------- scale


def _wide_schema(n: int) -> dict[str, Any]:
    kinds = [
        {"type": "string", "maxLength": 64},
        {"type": "integer", "minimum": 0},
        {"type": "string", "enum": ["a", "b", "c"]},
        {"type": "object", "properties": {"x": {"type": "number"}}, "required": ["x"]},
        {"type": "array", "items": {"type": "string"}, "maxItems": 8},
        {"type": "boolean"},
    ]
    properties = {f"p{i}": kinds[i % len(kinds)] for i in range(n)}
    return {"type": "object", "properties": properties, "required": list(properties), "additionalProperties": False}


def _wide_instance(n: int) -> dict[str, Any]:
    values = ["text", 7, "b", {"x": 1.5}, ["u", "v"], True]
    return {f"p{i}": values[i % len(values)] for i in range(n)}


def _reversed_wide_instance(n: int) -> dict[str, Any]:
    return dict(reversed(_wide_instance(n).items()))


_RECORD_SCHEMA = {
    "type": "array",
    "items": {
        "type": "object",
        "properties": {
            "id": {"type": "integer", "minimum": 0},
            "name": {"type": "string", "maxLength": 80},
            "tags": {"type": "array", "items": {"type": "string"}},
            "score": {"type": "number"},
            "active": {"type": "boolean"},
        },
        "required": ["id", "name", "active"],
        "additionalProperties": False,
    },
}


# A tool that writes a file (the reference filesystem server's `write_file`): the text is most
# of the arguments, prose with the brackets and colons text holds.
_TEXT_SCHEMA = {
    "type": "object",
    "properties": {"path": {"type": "string"}, "content": {"type": "string"}},
    "required": ["path", "content"],
}


def _text_arguments(kilobytes: int) -> dict[str, Any]:
    line = "- [ ] Review section {n}: the parser reads [a-z]+ and {{braces}}; see notes.\n"
    text = "".join(line.format(n=i) for i in range(kilobytes * 1024 // len(line) + 1))
    return {"path": "/tmp/notes.md", "content": text[: kilobytes * 1024]}


# A tool that inserts rows it does not describe (database servers' `insert`, `write_records`):
# records under a property typed only as objects, whose values no keyword constrains.
_FREE_FORM_SCHEMA = {
    "type": "object",
    "properties": {"table": {"type": "string"}, "rows": {"type": "array", "items": {"type": "object"}}},
    "required": ["table", "rows"],
}


def _free_form_arguments(n: int) -> dict[str, Any]:
    return {"table": "events", "rows": _records(n)}


def _records(n: int) -> list[dict[str, Any]]:
    return [{"id": i, "name": f"item {i}", "tags": ["a", "b"], "score": i / 3, "active": i % 2 == 0} for i in range(n)]


def _tool_list(ctx: Context, n: int) -> list[dict[str, Any]]:
    base = [t.definition for t in ctx.corpus.tools if isinstance(t.input_schema, dict)]
    out = []
    for i in range(n):
        tool = dict(base[i % len(base)])
        tool["name"] = f"{tool['name']}_{i}"
        out.append(tool)
    return out


def scale_workload(ctx: Context) -> Workload:
    work = Workload(
        name="scale",
        title="Cost as work grows: schema size, instance size, number of tools",
        unit="ratio to decoding the same bytes at each size (flat = grows like parsing)",
    )
    sizes = {
        "schema properties": (10, 100) if ctx.quick else (10, 100, 1000),
        "schema properties, keys reversed": (10, 100) if ctx.quick else (10, 100, 1000),
        "instance items": (10, 100) if ctx.quick else (10, 100, 1000, 10000),
        "free-form records": (10, 100) if ctx.quick else (10, 100, 1000),
        "text KB": (1, 10) if ctx.quick else (1, 10, 100),
        "tools": (10, 100) if ctx.quick else (10, 100, 1000, 10000),
    }
    estimates: dict[tuple[str, str], tuple[int, float]] = {}

    def over_budget(series: str, contender: Contender, n: int) -> None:
        if contender.name == "engine[auto]":
            return  # the curve the scale workload exists for: always measured
        last = estimates.get((series, contender.name))
        # A measurement takes about four passes (calibration and three rounds).
        if last is not None and last[1] * n / last[0] * 4 > ctx.scale_seconds:
            raise Refused("skipped", f"est. {last[1] * n / last[0]:.1f}s per pass, over the budget")

    def remember(row: Row, series: str, n: int) -> Row:
        for name, cell in row.cells.items():
            if cell.median_s is not None:
                estimates[(series, name)] = (n, cell.median_s)
        return row

    def one_document_per_size(series: str, schema_of: Callable[[int], Any], document_of: Callable[[int], Any]) -> None:
        """A row per size of the series: one document, from bytes, against one schema."""
        for n in sizes[series]:
            schema, data = schema_of(n), encode(document_of(n))

            def prepare(contender: Contender, _: Any, schema: Any = schema, data: bytes = data, n: int = n) -> Prepared:
                over_budget(series, contender, n)
                return _checker(ctx, contender, schema).from_bytes, data, contender.kind == "raw"

            row = Row(case=f"{series} {n}", series=series, size=n, detail=f"{len(data)} B")
            work.rows.append(remember(time_row(ctx, row, [None], lambda _, data=data: data, prepare), series, n))

    one_document_per_size("schema properties", _wide_schema, _wide_instance)
    # The same documents with their keys in the reverse of the schema's order, as a sender may list
    # them: a typed decode that looked keys up one field at a time would cost their square here.
    one_document_per_size("schema properties, keys reversed", _wide_schema, _reversed_wide_instance)
    one_document_per_size("instance items", lambda _n: _RECORD_SCHEMA, _records)
    one_document_per_size("free-form records", lambda _n: _FREE_FORM_SCHEMA, _free_form_arguments)
    one_document_per_size("text KB", lambda _n: _TEXT_SCHEMA, _text_arguments)

    mcp = mcp_available() is None
    budget = Budget(rounds=ctx.compile_rounds, round_seconds=ctx.budget.round_seconds, contender_seconds=3.0)
    for n in sizes["tools"]:
        tools = _tool_list(ctx, n)
        data = encode({"tools": tools})

        def many(contender: Contender, _item: Any, tools: list[Any] = tools, n: int = n) -> Prepared:
            over_budget("tools", contender, n)
            if isinstance(contender, EngineContender) and mcp:
                # No compile cache: every call compiles every schema, as a fresh engine would,
                # without timing the engine's construction (raw compiles have none either).
                cold = contender.fresh_engine(cache_size=0)

                def compile_tools(batch: list[Any]) -> Any:
                    return engine.compile_tools(batch, engine=cold)  # type: ignore[attr-defined]

                return compile_tools, tools, None
            compile_one = contender.cold_compiler()

            def compile_all(batch: list[Any]) -> dict[tuple[str, str], Any]:
                # The same work as compile_tools: every input schema and every output schema,
                # each validator kept by its tool, as a tool registry keeps them (one dropped at
                # once leaves its memory to the next compile, which a kept one does not).
                kept: dict[tuple[str, str], Any] = {}
                for tool in batch:
                    for key in ("inputSchema", "outputSchema"):
                        schema = tool.get(key)
                        if schema is None:
                            continue
                        try:
                            kept[tool["name"], key] = compile_one(schema)
                        except Exception:  # noqa: BLE001,S112 - the few refused schemas cost what they cost
                            continue
                return kept

            return compile_all, tools, None

        row = Row(case=f"tools {n}", series="tools", size=n, detail=f"compile, {len(data) // 1024} KiB list")
        work.rows.append(
            remember(time_row(ctx, row, [None], lambda _, data=data: data, many, budget=budget), "tools", n)
        )
    work.unit += "; tools rows: compiling every inputSchema and outputSchema cold, each kept" + (
        " via engine.compile_tools" if mcp else ""
    )
    work.growth = growth_exponents(work.rows)
    return work


def growth_exponents(rows: Sequence[Row]) -> dict[str, dict[str, float]]:
    """``k`` in time ~ size**k per series and contender, from its smallest to its largest size."""
    points: dict[str, dict[str, list[tuple[int, float]]]] = {}
    for row in rows:
        if row.series is None or not row.size:
            continue
        for name, cell in row.cells.items():
            if cell.median_s:
                points.setdefault(row.series, {}).setdefault(name, []).append((row.size, cell.median_s))
    growth: dict[str, dict[str, float]] = {}
    for series, by_name in points.items():
        for name, pts in by_name.items():
            (n0, t0), (n1, t1) = min(pts), max(pts)
            if n1 > n0:
                growth.setdefault(series, {})[name] = round(math.log(t1 / t0) / math.log(n1 / n0), 2)
    return growth


WORKLOADS: dict[str, Callable[[Context], Workload]] = {
    "compile": compile_workload,
    "arguments": arguments_workload,
    "results": results_workload,
    "elicitation": elicitation_workload,
    "scale": scale_workload,
}
