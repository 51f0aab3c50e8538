"""``python -m benchmarks.limits FILE...``: measure tool schemas against the guard's limits.

Each FILE is a JSON array of MCP tool definitions, recorded results or elicitation requests
(their ``inputSchema`` / ``outputSchema`` / ``requestedSchema``), or one schema. Prints, for each limit, its
default, the largest value measured and where, and the headroom; then the guard's share of a cold
compile. Used to pick the defaults (see the README's ``## Guard`` section).
"""

from __future__ import annotations

import json
import sys
import time
from pathlib import Path
from typing import Any

from engine import Engine, EngineConfig, SchemaRejected
from engine._dialect import Dialect, check_meta_schema, detect_dialect
from engine._guard import LIMIT_MEANINGS, inspect
from engine._intake import load_schema


def schemas_in(path: Path) -> list[tuple[str, Any]]:
    data = json.loads(path.read_text())
    if not isinstance(data, list):
        return [(path.name, data)]
    found = []
    for index, item in enumerate(data):
        if not isinstance(item, dict):
            continue
        name = item.get("name") or item.get("tool") or item.get("id") or index
        for key in ("inputSchema", "outputSchema", "requestedSchema"):
            if isinstance(item.get(key), (dict, bool)):
                found.append((f"{path.stem}:{name}:{key}", item[key]))
    return found


def main(argv: list[str]) -> int:
    config = EngineConfig.load(env={})
    limits = config.limits
    best: dict[str, tuple[int, str]] = {}
    guard_time = compile_time = 0.0
    compiled = refused = 0
    cold = Engine(config.replace(cache_size=0))  # every compile is a cold one
    for arg in argv:
        for name, schema in schemas_in(Path(arg)):
            try:
                t0 = time.perf_counter()
                cold.compile(schema)
                t1 = time.perf_counter()
                schema_value, size, *_ = load_schema(schema, limits)
                dialect = detect_dialect(schema_value, Dialect(config.default_dialect))
                check_meta_schema(schema_value, dialect)
                t2 = time.perf_counter()
                report = inspect(schema_value, dialect, {}, config, document=size)
                t3 = time.perf_counter()
            except SchemaRejected as exc:
                refused += 1
                print(f"refused {name}: {exc.reason}: {exc.message}", file=sys.stderr)
                continue
            compiled += 1
            compile_time += t1 - t0
            guard_time += t3 - t2
            for limit, value in report.measured.items():
                if value > best.get(limit, (-1, ""))[0]:
                    best[limit] = (value, f"{name}{report.locations.get(limit, '')}")
    print(f"{compiled} schemas compiled, {refused} refused")
    print(f"{'limit':26} {'default':>9} {'corpus max':>10} {'headroom':>9}  where")
    for limit in LIMIT_MEANINGS:
        value, where = best.get(limit, (0, ""))
        bound = getattr(limits, limit)
        headroom = f"{bound / value:.0f}x" if value else "-"
        print(f"{limit:26} {bound:>9} {value:>10} {headroom:>9}  {where}")
    if compile_time:
        print(
            f"guard: {guard_time * 1e3:.1f} ms of {compile_time * 1e3:.1f} ms cold compile "
            f"({100 * guard_time / compile_time:.1f}%)"
        )
    return 0


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
