"""A backend put off at compile time (``auto``: msgspec's decision waits for the first document)
is decided once, whichever threads ask at once: ``backend`` and ``notes`` read while another
thread decides give that decision, never an ``AttributeError`` or a decision of their own."""

from __future__ import annotations

import sys
import threading
from types import FrameType
from typing import Any

import engine
import engine._compiled as compiled_module
from engine._compiled import CompiledSchema

REFUSED = {"type": "object", "properties": {"a": {"type": "string"}}, "allOf": [{"required": ["a"]}]}


def test_backend_read_after_another_thread_decided_is_that_decision() -> None:
    # A thread whose lookup of `backend` failed while the decision was pending enters
    # `__getattr__`; another decides before it looks: it reads the decision.
    compiled = engine.Engine().compile({"type": "object", "properties": {"q": {"type": "string"}}})
    compiled._decide()  # noqa: SLF001 - the other thread's decision
    assert CompiledSchema.__getattr__(compiled, "backend") == "msgspec"
    assert CompiledSchema.__getattr__(compiled, "notes") == {}


def test_a_decision_in_progress_is_waited_for() -> None:
    # Thread A is paused inside the decision, its refusal found but not yet recorded as made;
    # thread B asks for the backend and reads a document meanwhile, then A goes on. B must wait
    # for A's decision: deciding again itself, it read A's cleared decoder as no refusal (the
    # schema then said `msgspec`, with no notes, for good).
    compiled = engine.Engine().compile(REFUSED)
    source = compiled_module.__file__
    with open(source, encoding="utf-8") as text:
        line = next(n for n, code in enumerate(text, 1) if code.strip() == "self._undecided = None")
    paused, release = threading.Event(), threading.Event()

    def tracer(frame: FrameType, event: str, arg: Any) -> Any:
        if frame.f_code.co_name != "_decide":
            return None

        def local(inner: FrameType, inner_event: str, _arg: Any) -> Any:
            if inner_event == "line" and inner.f_lineno == line:
                paused.set()
                release.wait(10)
            return local

        return local

    def decide_in_a() -> None:
        sys.settrace(tracer)
        try:
            compiled.decode(b'{"a": "x"}')  # the first document: the translator decides, and refuses
        finally:
            sys.settrace(None)

    seen: dict[str, Any] = {}

    def ask_in_b() -> None:
        seen["value"] = compiled.decode(b'{"a": "x"}')
        seen["backend"], seen["notes"] = compiled.backend, dict(compiled.notes)

    a = threading.Thread(target=decide_in_a)
    a.start()
    assert paused.wait(10)
    b = threading.Thread(target=ask_in_b)
    b.start()
    b.join(0.3)  # B waits for the decision (it would have finished on its own by now)
    release.set()
    a.join(10)
    b.join(10)
    alone = engine.Engine().compile(REFUSED)
    assert seen["value"] == {"a": "x"}
    assert seen["backend"] == compiled.backend == alone.backend == "jsonschema-rs"
    assert seen["notes"] == compiled.notes == alone.notes and "msgspec" in compiled.notes
