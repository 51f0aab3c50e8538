"""Times each pathological case through the engine (python -m tests.guard.time_catalog).

Cold: a fresh engine per case (compile, then every payload). Prints one line per case."""

from __future__ import annotations

import sys
import time
from pathlib import Path

import engine

sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "bench_data" / "pathological"))
from catalog import cases  # noqa: E402


def main() -> None:
    for case in cases():
        eng = engine.Engine(engine.EngineConfig.load(env={}, **case.config))
        started = time.perf_counter()
        outcome = "compiled"
        try:
            compiled = eng.compile(case.schema, registry=case.registry or None)
        except engine.SchemaRejected as refused:
            outcome = f"refused {refused.reason}" + (
                f" ({refused.details.get('limit')})" if refused.details.get("limit") else ""
            )
            compiled = None
        compile_ms = (time.perf_counter() - started) * 1e3
        runs = []
        for payload in case.payloads if compiled else []:
            t0 = time.perf_counter()
            try:
                if payload.data is not None:
                    compiled.decode(payload.data)
                else:
                    compiled.validate(payload.value)
                got = "valid"
            except engine.ValidationFailed as failure:
                got = "invalid" + (" (cut)" if failure.truncated else "")
            except engine.DecodeError as error:
                got = str(error.reason)
            runs.append(f"{payload.name}={got} {(time.perf_counter() - t0) * 1e3:.1f}ms")
        print(f"{case.name:34} {outcome:40} {compile_ms:7.1f} ms  {'; '.join(runs)}")


if __name__ == "__main__":
    main()
