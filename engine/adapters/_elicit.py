"""Elicitation on every protocol generation, SDK-neutral.

Up to 2025-11-25 a server asks mid-call: it sends ``elicitation/create`` to the client and waits.
From 2026-07-28 (SEP-2322) there is no back channel: the tool answers the call with an
``InputRequiredResult`` naming what it needs, and the client calls again with
``inputResponses`` (and the ``requestState`` it was given). :func:`ask` does the right one for the
session at hand; on the multi-round path it raises :class:`InputRequired`, which the adapters turn
into the tool's answer.

Answers from earlier rounds of the same call travel in ``requestState`` (the client echoes it), so
a handler may ask several questions one after the other. Every answer is validated by the
compiled form each time it is read: an echoed state is no more trusted than the answer itself.
"""

from __future__ import annotations

import time
from collections.abc import Awaitable, Callable, Mapping
from typing import Any

import msgspec

from .. import _metrics
from .._errors import EngineError, Issue, ValidationFailed
from .._mcp import ElicitationForm, ElicitResult
from ._catalog import log_invalid, observe

__all__ = ["STATE_PREFIX", "InputRequired", "StateTooLarge", "ask"]

STATE_PREFIX = "engine-elicit:"
"""Marks a ``requestState`` this module wrote (earlier answers, as JSON)."""

_MAX_STATE_BYTES = 1024 * 1024  # an echoed state is client data: bounded before it is parsed


class InputRequired(Exception):  # noqa: N818 - it is a request, not an error
    """Raised by ``elicit`` on a 2026-07-28 session when the answer is not there yet.

    ``result`` is the ``InputRequiredResult`` (a dict in the MCP wire form) the tool call must
    return: the adapters return it for you; a handler running without one catches this and
    returns ``exc.result``."""

    def __init__(self, result: dict[str, Any]) -> None:
        Exception.__init__(self, "the client must answer an elicitation first (InputRequiredResult)")
        self.result = result

    def __reduce__(self) -> tuple[Any, ...]:
        return (type(self), (self.result,))  # the default would pass the message as the result


class StateTooLarge(EngineError):
    """The answers of a call's earlier rounds are more than a ``requestState`` carries between
    rounds (:data:`_MAX_STATE_BYTES`, the most one is read back)."""

    reason = "too-large"

    def __init__(self, size: int) -> None:
        EngineError.__init__(
            self,
            f"the answers this call's earlier elicitations gave take {size} characters, more than the "
            f"{_MAX_STATE_BYTES} a requestState carries between rounds: ask for less in one call",
        )
        self.size = size

    def __reduce__(self) -> tuple[Any, ...]:
        return (type(self), (self.size,))


def carried_answers(state: Any) -> dict[str, Any]:
    """The answers an earlier round put in ``requestState`` (empty when it is not ours)."""
    if not isinstance(state, str) or not state.startswith(STATE_PREFIX) or len(state) > _MAX_STATE_BYTES:
        return {}
    try:
        answers = msgspec.json.decode(state[len(STATE_PREFIX) :])
    except msgspec.DecodeError:
        return {}
    return answers if isinstance(answers, dict) else {}


def _plain(answer: Any) -> Any:
    dump = getattr(answer, "model_dump", None)
    if callable(dump):  # an SDK model (ElicitResult)
        return dump(by_alias=True, mode="json", exclude_none=True)
    return answer


async def ask(
    *,
    modern: bool,
    form: ElicitationForm,
    message: str,
    requested_schema: Mapping[str, Any],
    key: str,
    responses: Mapping[str, Any] | None,
    state: Any,
    send: Callable[[], Awaitable[Any]],
    tool: str | None,
) -> ElicitResult:
    """Ask on a handshake-era session (``send``), or read / request the answer on a 2026-07-28 one."""
    if not modern:
        raw = _plain(await send())
    else:
        carried = carried_answers(state)
        current = {k: _plain(v) for k, v in (responses or {}).items()}
        if key in current:
            raw = current[key]
        elif key in carried:
            raw = carried[key]
        else:
            answers = {**carried, **{k: v for k, v in current.items() if isinstance(v, Mapping)}}
            request = {
                "method": "elicitation/create",
                "params": {"mode": "form", "message": message, "requestedSchema": dict(requested_schema)},
            }
            result: dict[str, Any] = {"resultType": "input_required", "inputRequests": {key: request}}
            if answers:
                carried_state = STATE_PREFIX + msgspec.json.encode(answers).decode()
                if len(carried_state) > _MAX_STATE_BYTES:
                    # A state the next round would not read: the questions asked again, round
                    # after round, until the client gives up.
                    raise StateTooLarge(len(carried_state))
                result["requestState"] = carried_state
            raise InputRequired(result)
    hooks = _metrics.hooks
    start = time.perf_counter() if hooks else 0.0
    try:
        if not isinstance(raw, Mapping):
            raise ValidationFailed(
                [
                    Issue(
                        instance_path="",
                        keyword_location="/type",
                        keyword="type",
                        message="an elicitation answer must be an object",
                    )
                ]
            )
        answer = form.decode_result(dict(raw))
    except EngineError as exc:
        if hooks:
            observe(tool, "elicitation", "server", start, False, True)
        log_invalid(tool, "elicitation", "server", exc, enforced=True)
        raise
    if hooks:
        observe(tool, "elicitation", "server", start, True, True)
    return answer
