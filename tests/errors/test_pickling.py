"""Every error the engine raises crosses a process boundary as itself: a process pool's worker
pickles what it raises, and a caller there catches the same type with the same attributes."""

from __future__ import annotations

import copy
import pickle
from concurrent.futures import ProcessPoolExecutor
from typing import Any

import pytest

import engine
from engine.backends import refuse


def _raised(call: Any) -> engine.EngineError:
    with pytest.raises(engine.EngineError) as info:
        call()
    return info.value


def _errors() -> list[engine.EngineError]:
    tools = engine.compile_tools([{"name": "a", "inputSchema": {"type": "object", "required": ["x"]}}])
    strict = engine.Engine(backend="msgspec")
    return [
        _raised(lambda: engine.compile({"$ref": "https://evil.example/x"})),
        _raised(lambda: engine.compile({"type": "integer"}).validate("x")),
        _raised(lambda: engine.Engine(limits={"max_explain_work": 0}).compile({"type": "integer"}).validate(1.5)),
        _raised(lambda: engine.compile({"type": "integer"}).decode(b"[1,")),
        _raised(lambda: tools.validate_arguments("b", {})),
        _raised(lambda: tools.validate_arguments("a", {})),
        _raised(lambda: engine.EngineConfig(cache_size=-1)),
        _raised(lambda: strict.compile({"not": {"type": "string"}, "dependentRequired": {"a": ["b"]}})),
        refuse("msgspec", "a reason", location="/x"),
    ]


def _same(error: engine.EngineError, again: engine.EngineError) -> None:
    assert type(again) is type(error)
    assert str(again) == str(error) and again.args == error.args
    assert vars(again) == vars(error) and again.reason == error.reason


@pytest.mark.parametrize("error", _errors(), ids=lambda e: type(e).__name__)
def test_errors_pickle_and_copy_as_themselves(error: engine.EngineError) -> None:
    _same(error, pickle.loads(pickle.dumps(error)))
    _same(error, copy.deepcopy(error))
    _same(error, copy.copy(error))


def _validate(payload: object) -> object:
    return engine.compile({"type": "integer"}).validate(payload)


def test_a_failure_in_a_process_pool_arrives_as_itself() -> None:
    with ProcessPoolExecutor(1) as pool:
        with pytest.raises(engine.ValidationFailed) as info:
            pool.submit(_validate, "x").result()
    assert info.value.issues[0].keyword == "type" and info.value.reason == "invalid-instance"


def test_an_elicitation_request_pickles_with_its_result() -> None:
    from engine.adapters._elicit import InputRequired

    request = InputRequired({"resultType": "input_required", "inputRequests": {}})
    again = pickle.loads(pickle.dumps(request))
    assert type(again) is InputRequired and again.result == request.result and str(again) == str(request)
