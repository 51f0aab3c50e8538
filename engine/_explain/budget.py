"""What an explanation may spend, and what it has found: the work and time budget, the issue list
(capped, and marked truncated where it was cut), and the measures of an instance the estimates
multiply by."""

from __future__ import annotations

import re
import time
from collections.abc import Iterator, Mapping
from typing import Any

import msgspec

from .._config import Limits
from .._errors import Issue, ValidationFailed
from .._instance import json_values
from .._pointer import pointer
from .measure import PATH_CHARACTERS_PER_EVALUATION

__all__ = [
    "EXPLAIN_FRAMES",
    "INFINITE",
    "MAX_MESSAGE",
    "NAMES_PER_EVALUATION",
    "NAMES_READ_PER_EVALUATION",
    "NAME_KEYWORDS",
    "PATH_CHARACTERS",
    "POINTER_CHARACTERS",
    "WEIGHED_TEXT",
    "SECONDS_PER_EVALUATION",
    "SPENT",
    "Budget",
    "Issues",
    "Pointer",
    "collect",
    "count_objects",
    "cut_message",
    "shown_pointer",
    "error_weight",
    "location_weight",
    "failed",
    "missing_names",
    "node_weight",
    "opening",
    "room_for",
    "too_costly",
]

EXPLAIN_FRAMES = 512
"""Nested schema applications the error path of jsonschema-rs runs safely: it first crashed at
1,024 on a 1 MiB thread stack (building nested error contexts); a factor of two below."""

SECONDS_PER_EVALUATION = 50e-6
"""The slowest error-path evaluation measured (the ``anyOf`` tower above: 10.7 s for 206,000
evaluations); a piece is started only if its estimate, at this rate, fits the time left."""

INFINITE = 1 << 62

Pointer = tuple[str | int, ...]


NAMES_PER_EVALUATION = 8
"""Errors one evaluation at :data:`SECONDS_PER_EVALUATION` stands for, where a ``required`` or
a dependency list makes one a missing name: jsonschema-rs builds each with a copy of the object
(1,000,000 such errors took 6.7-9.4 s; 20,000 missing names of a 2,000-member object, 22 s)."""

VALUES_PER_EVALUATION = 64
"""Values copied into an error that one evaluation stands for, where an ``enum`` or a ``const``
is copied into the error of each value it refuses (some 0.5 microseconds a value)."""

# The keywords whose lists make errors: an error a name (a missing one), or a copy of the list.
_NAME_LISTS = ("required",)
_NAME_MAPS = ("dependentRequired", "dependencies")
_COPIED = ("enum", "const")
_WEIGHED = frozenset({*_NAME_LISTS, *_NAME_MAPS, *_COPIED, "not", "propertyNames"})


def node_weight(node: Mapping[str, Any]) -> int:
    """What one evaluation of the subschema ``node`` may cost on the error path beyond itself, in
    evaluations: the names its ``required`` and dependency lists hold (an error each, see
    :data:`NAMES_PER_EVALUATION`) and the values its ``enum`` and ``const`` hold (copied into an
    error, see :data:`VALUES_PER_EVALUATION`). 0 for the short lists of most schemas."""
    names = 0
    for keyword in _NAME_LISTS:
        listed = node.get(keyword)
        if isinstance(listed, list):
            names += len(listed)
    for keyword in _NAME_MAPS:
        lists = node.get(keyword)
        if isinstance(lists, Mapping):
            names += sum(len(listed) for listed in lists.values() if isinstance(listed, list))
    copied = characters = 0
    for keyword in _COPIED:
        if keyword in node:
            copied += json_values(node[keyword], INFINITE)
            characters += _characters(node[keyword])
    if "not" in node:  # its error quotes the subschema, written out
        characters += _characters(node["not"])
    for keyword in _NAME_LISTS:
        listed = node.get(keyword)
        if isinstance(listed, list):
            characters += _characters(listed)
    for keyword in _NAME_MAPS:  # the names each trigger requires (its subschemas are weighed apart)
        lists = node.get(keyword)
        if isinstance(lists, Mapping):
            characters += sum(_characters(listed) for listed in lists.values() if isinstance(listed, list))
    return names // NAMES_PER_EVALUATION + copied // VALUES_PER_EVALUATION + characters // CHARACTERS_PER_EVALUATION


CHARACTERS_PER_EVALUATION = 16_384
"""Characters of the strings an error copies (a ``const``, an ``enum``, a missing name) that one
evaluation stands for (2-5 ms an error of 900,000 characters, some 55 evaluations): a ``const`` of
900,000 characters against 1,000 items made 2.7 GB of errors in 1.6-5 s, counted as one value
each."""


def _characters(value: Any) -> int:
    """The characters of the strings ``value`` holds, keys included."""
    count, stack = 0, [value]
    while stack:
        item = stack.pop()
        if type(item) is str:
            count += len(item)
        elif type(item) is dict:
            count += sum(map(len, item))
            stack.extend(item.values())
        elif type(item) is list:
            stack.extend(item)
    return count


def error_weight(documents: tuple[Any, ...]) -> int:
    """What one evaluation of ``documents`` (a schema and its resources) may cost on the error
    path, in evaluations: 1 plus the heaviest :func:`node_weight` of its objects (1 for most
    schemas), as if every subschema were that one (a heavy one may be reached through many
    references), plus the longest location an error may copy (:func:`location_weight`). One walk,
    made once per schema on its first failure: every object is weighed, property maps and data
    included (more, never less, than the subschemas alone), but what an ``enum`` or ``const``
    holds is counted as its values, not walked again (so nothing is counted twice: a subschema
    under a property named ``const`` counts as values, a list of names in it an eighth of what it
    would as a subschema's)."""
    heaviest = longest = 0
    stack: list[tuple[Any, int]] = [(document, 0) for document in documents]
    while stack:
        node, characters = stack.pop()
        kind = type(node)  # plain JSON values: the schema's private copy, through intake
        if kind is dict:
            # Every error below copies the keys on the way (its schema path) and the base URI.
            for keyword in ("$id", "id"):
                if type(node.get(keyword)) is str:
                    characters += len(node[keyword])
            longest = max(longest, characters)
            if _WEIGHED.isdisjoint(node):
                stack.extend([(value, characters + len(key)) for key, value in node.items()])
                continue
            if "propertyNames" in node:
                # An error for each failing name, each copying the whole object: names times the
                # object's size, which no weight per value bounds (700 names of 3,000 characters:
                # 1.5 GB). Explained piece by piece, a name at a time.
                return INFINITE
            heaviest = max(heaviest, node_weight(node))
            stack.extend([(value, characters + len(key)) for key, value in node.items() if key not in _COPIED])
        elif kind is list:
            stack.extend([(item, characters + 1) for item in node])
    return 1 + heaviest + longest // PATH_CHARACTERS_PER_EVALUATION


def location_weight(location: tuple[str | int, ...]) -> int:
    """What the location of a subschema weighs on each error below it, in evaluations: every
    error copies it (a definition named with 300,000 characters above 3,000 failing items made
    1.7 GB of errors)."""
    if len(location) < 8 and all(len(str(token)) < 128 for token in location):
        return 0  # (most locations: no walk of their tokens' lengths)
    return sum(len(str(token)) for token in location) // PATH_CHARACTERS_PER_EVALUATION


WEIGHED_TEXT = re.compile(rb'"(?:required|dependentRequired|dependencies|enum|const|not|propertyNames)":')
"""A key :func:`node_weight` reads, as a schema's canonical text spells it: a text without one
weighs 1 without a walk."""


def opening(limits: Limits) -> int:
    """What :meth:`Budget.allowance` is as an explanation starts, read without the clock."""
    work = limits.max_explain_work
    by_time = int(limits.max_explain_seconds / SECONDS_PER_EVALUATION)
    return max(0, work if work < by_time else by_time)


class Budget:
    __slots__ = ("deadline", "work")

    def __init__(self, limits: Limits) -> None:
        self.work = limits.max_explain_work
        self.deadline = time.monotonic() + limits.max_explain_seconds

    def allowance(self) -> int:
        """The most evaluations a step may start now: what is left of the work, and of the time
        at the measured rate."""
        seconds = self.deadline - time.monotonic()
        if seconds <= 0 or self.work <= 0:
            return 0
        return min(self.work, int(seconds / SECONDS_PER_EVALUATION))

    def spend(self, work: int) -> None:
        self.work -= work

    def out_of_time(self) -> bool:
        return time.monotonic() >= self.deadline

    def seconds_left(self) -> float:
        return self.deadline - time.monotonic()


class Issues(msgspec.Struct):
    cap: int
    issues: list[Issue] = msgspec.field(default_factory=list)
    truncated: bool = False
    paths: int = 0  # the characters of the instance paths of `issues`

    @property
    def full(self) -> bool:
        return self.truncated and len(self.issues) >= self.cap

    def _room(self, issue: Issue) -> bool:
        return len(self.issues) < self.cap and (not self.issues or self.paths + _pointers(issue) <= room_for(self.cap))

    def add(self, issue: Issue) -> bool:
        """Keep ``issue``; ``False`` once the list is full (then it is marked truncated)."""
        if not self._room(issue):
            self.truncated = True
            return False
        self.issues.append(issue)
        self.paths += _pointers(issue)
        return True

    def cut(self, issue: Issue) -> None:
        """The explanation stops here: say so."""
        self.truncated = True
        if self._room(issue):
            self.issues.append(issue)
            self.paths += _pointers(issue)

    def run(self, issues: Iterator[Issue], budget: Budget, path: str, location: Pointer) -> None:
        """Read the issues of one piece, each re-rooted at ``path`` / ``location``."""
        first = len(self.issues)
        room = room_for(self.cap) - self.paths
        if collect(issues, self.issues, self.cap, budget.deadline, path, pointer(location), room):
            self.truncated = True
        self.paths += sum(map(_pointers, self.issues[first:]))

    def failure(self) -> ValidationFailed:
        return failed(self.issues, truncated=self.truncated)


PATH_CHARACTERS = 1 << 20
"""The characters of pointers (instance paths and keyword locations) an issue list holds beyond
its first issue: a path holds every key above the value, a keyword location every name on the way
(100 issues under one key of 8 MB were 800 MB of paths; under a `dependentSchemas` name of 900 KB,
20 MB of locations)."""


POINTER_CHARACTERS = 256
"""The characters of pointers an issue is allowed on average, where ``max_issues`` asks for more
issues than :data:`PATH_CHARACTERS` holds at that (corpus issues: under 100)."""


def room_for(cap: int) -> int:
    """The characters of pointers a list of ``cap`` issues may hold past its first issue."""
    return max(PATH_CHARACTERS, cap * POINTER_CHARACTERS)


def _pointers(issue: Issue) -> int:
    return len(issue.instance_path) + len(issue.keyword_location)


def collect(
    issues: Iterator[Issue],
    into: list[Issue],
    cap: int,
    deadline: float,
    path: str,
    prefix: str,
    room: int | None = None,
) -> bool:
    """Read ``issues`` into ``into`` (``cap`` at most in all), each re-rooted at ``path`` (in the
    instance) and ``prefix`` (in the schema), until ``deadline`` (``time.monotonic``); whether the
    list was cut there: an issue left unread (over the cap, or the time up once one was read; or
    its pointers over the ``room`` left for them (:func:`room_for` ``cap``, where not given), once
    ``into`` holds one), or the backend refusing
    to go on. The last issue read with the time up cuts nothing."""
    monotonic = time.monotonic
    read = 0
    if room is None:
        room = room_for(cap)
    try:
        for issue in issues:
            if len(into) >= cap or (read and monotonic() > deadline):
                return True
            read += 1
            room -= len(path) + len(issue.instance_path) + len(prefix) + len(issue.keyword_location)
            if room < 0 and into:
                return True
            message = issue.message
            if len(message) > MAX_MESSAGE:
                message = cut_message(message)
            if "\n" in message:  # a quoted key or value's own: a message is one line
                message = message.replace("\n", "\\n")
            if path or prefix or message is not issue.message:
                issue = Issue(
                    instance_path=path + issue.instance_path,
                    keyword_location=prefix + issue.keyword_location,
                    keyword=issue.keyword,
                    message=message,
                )
            into.append(issue)
    except (ValueError, RecursionError, RuntimeError) as exc:
        # jsonschema-rs refuses to describe a failing value that nests 256 levels or more (and
        # panics, raised as RuntimeError, where it cannot allocate what its errors copy).
        if len(into) < cap:
            message = f"instance is invalid; the explanation stopped: {exc}"
            into.append(Issue(instance_path=path, keyword_location=prefix, keyword="", message=message))
        return True
    return False


MAX_MESSAGE = 1_000
"""The longest issue message kept whole. A backend's message quotes the failing value and what the
keyword lists (a value outside a 10,000-value enum: half a megabyte), and a host hands messages
to a model as the tool's error text: a longer one is cut, saying so."""


def cut_message(message: str) -> str:
    """``message`` cut to :data:`MAX_MESSAGE` characters, with how long it was."""
    return f"{message[:MAX_MESSAGE]}... (message cut: {len(message)} characters)"


def failed(issues: list[Issue], *, truncated: bool, at: str = "") -> ValidationFailed:
    """The failure listing ``issues``, never none: the fast path said no, so it says so at least
    (of the instance at ``at``, where it is in a document holding it)."""
    if not issues:
        issues.append(Issue(instance_path=at, keyword_location="", keyword="", message="instance is invalid"))
    return ValidationFailed(issues, truncated=truncated)


SPENT = "max_explain_seconds spent (explanation truncated)"
"""Why an explanation stopped where its time ran out."""


def shown_pointer(location: str) -> str:
    """A pointer as a message quotes it (``'/'`` for the root), cut after :data:`SHOWN_POINTER`
    characters: a key may be megabytes long."""
    if len(location) <= SHOWN_POINTER:
        return repr(location or "/")
    return f"{location[:SHOWN_POINTER]!r}... (pointer cut: {len(location)} characters)"


SHOWN_POINTER = 200


def too_costly(path: str, location: str, cost: int) -> str:
    """The message of the issue that ends an explanation early. It claims nothing about the part
    it names (that part may hold no issue): only that the instance is invalid and the explanation
    stopped there."""
    part = f"{shown_pointer(path)} against {shown_pointer(location)}"
    estimate = f"an estimated {cost} evaluations" if cost < INFINITE else "work the budget cannot bound"
    return (
        f"instance is invalid; explaining {part} further would take {estimate}, over what is left of "
        "max_explain_work / max_explain_seconds (explanation truncated)"
    )


NAME_KEYWORDS = ("required", "dependentRequired", "dependencies")


def missing_names(
    own: Mapping[str, Any], instance: Mapping[str, Any], budget: Budget, dependent: bool, cap: int
) -> list[Issue]:
    """The issues of ``own``'s lists of names (``required``, and the ``dependencies`` and, where
    the dialect has it (``dependent``), ``dependentRequired`` lists of the properties ``instance``
    has) that ``instance`` misses, in the backend's words and order, one past ``cap`` at most, each at its
    keyword (the caller puts them under its path). A name is a set lookup: one evaluation stands
    for :data:`NAMES_READ_PER_EVALUATION` of them."""
    issues: list[Issue] = []
    lists: list[tuple[str, Any]] = [("required", own.get("required"))]
    for keyword in ("dependentRequired", "dependencies") if dependent else ("dependencies",):
        by_property = own.get(keyword)
        if isinstance(by_property, Mapping):
            lists += [(keyword, names) for name, names in by_property.items() if name in instance]
    for keyword, names in lists:
        if not isinstance(names, list):
            continue
        budget.spend(len(names) // NAMES_READ_PER_EVALUATION)
        for name in names:
            if isinstance(name, str) and name not in instance:
                if len(issues) > cap:  # one past the cap: the list is cut there
                    return issues
                message = f"{_quoted(name)} is a required property"
                issues.append(
                    Issue(instance_path="", keyword_location="/" + keyword, keyword="required", message=message)
                )
    return issues


NAMES_READ_PER_EVALUATION = 1_000
"""Names of a list looked up in an object that one evaluation stands for (some 50 ns each)."""


def _quoted(name: str) -> str:
    import json  # on the slow path that explains a failure

    return json.dumps(name, ensure_ascii=False)


def count_objects(document: Any) -> int:
    count, stack = 0, [document]
    while stack:
        node = stack.pop()
        if isinstance(node, Mapping):
            count += 1
            stack.extend(node.values())
        elif isinstance(node, list):
            stack.extend(node)
    return count
