"""The command line: exit statuses, the --json shape, and the sentences people read."""

from __future__ import annotations

import io
import json
import subprocess
import sys
from pathlib import Path

import pytest

from engine._cli import main

ROOT = Path(__file__).parents[2]
TOOLS = ROOT / "bench_data" / "tools"


def run(*argv: str, stdin: bytes | None = None, monkeypatch: pytest.MonkeyPatch | None = None) -> tuple[int, str, str]:
    out, err = io.StringIO(), io.StringIO()
    if stdin is not None:
        assert monkeypatch is not None
        monkeypatch.setattr(sys, "stdin", io.TextIOWrapper(io.BytesIO(stdin)))
    code = main(list(argv), out=out, err=err)
    return code, out.getvalue(), err.getvalue()


@pytest.fixture
def tools_file(tmp_path: Path) -> Path:
    tools = [
        {"name": "ok_tool", "inputSchema": {"type": "object", "properties": {"q": {"type": "string"}}},
         "outputSchema": {"type": "array", "items": {"type": "integer"}}},
        {"name": "remote", "inputSchema": {"type": "object", "properties": {"x": {"$ref": "https://evil.example/s.json"}}}},
        {"name": "bad_dialect", "inputSchema": {"$schema": "https://example.com/my-dialect", "type": "object"}},
        {"name": "no_schema"},
    ]
    path = tmp_path / "tools.json"
    path.write_text(json.dumps({"jsonrpc": "2.0", "id": 1, "result": {"tools": tools}}))
    return path


def test_check_reports_each_refusal_with_reason_and_location(tools_file: Path) -> None:
    code, out, _ = run("check", str(tools_file))
    assert code == 1
    assert "JSON-RPC response (tools/list result), 4 tools" in out
    assert "ok      ok_tool" in out
    assert "REFUSED remote" in out
    assert "inputSchema: refused (remote-ref) at '/properties/x/$ref'" in out
    assert "https://evil.example/s.json" in out
    assert "(unsupported-dialect)" in out and "https://example.com/my-dialect" in out
    assert "no inputSchema" in out
    assert "3 of 4 refused" in out


def test_check_json_shape(tools_file: Path) -> None:
    code, out, _ = run("check", str(tools_file), "--json")
    assert code == 1
    doc = json.loads(out)
    assert doc["summary"]["tools"] == 4 and doc["summary"]["refused"] == 3
    assert doc["summary"]["reasons"]["remote-ref"] == 1
    assert doc["summary"]["limits"]["max_schema_depth"] > 0
    by_name = {t["name"]: t for t in doc["tools"]}
    ok = by_name["ok_tool"]
    assert ok["status"] == "ok"
    for key in ("inputSchema", "outputSchema"):
        slot = ok["schemas"][key]
        assert slot["status"] == "ok" and slot["dialect"] == "2020-12" and slot["backend"]
        assert isinstance(slot["why"], str) and isinstance(slot["guard"], dict)
    refusal = by_name["remote"]["schemas"]["inputSchema"]["refusal"]
    assert refusal["reason"] == "remote-ref"
    assert set(refusal) == {"reason", "message", "location", "details"}


def test_check_all_accepted_exits_zero(tmp_path: Path) -> None:
    path = tmp_path / "one.json"
    path.write_text(json.dumps({"type": "object", "required": ["a"]}))
    code, out, _ = run("check", str(path))
    assert code == 0
    assert "one schema" in out and "All 1 accepted." in out


def test_check_real_server_list() -> None:
    code, out, _ = run("check", str(TOOLS / "modelcontextprotocol-servers.json"), "--json")
    doc = json.loads(out)
    assert doc["summary"]["document"] == "list of tools"
    assert doc["summary"]["tools"] == len(json.loads((TOOLS / "modelcontextprotocol-servers.json").read_text()))
    assert code == (1 if doc["summary"]["refused"] else 0)


@pytest.mark.parametrize(
    ("content", "phrase"),
    [
        (None, "cannot read the file"),
        (b"{not json", "is not usable JSON"),
        (b"42", "expected a tools/list result"),
    ],
)
def test_check_unusable_input_exits_two(tmp_path: Path, content: bytes | None, phrase: str) -> None:
    path = tmp_path / "input.json"
    if content is not None:
        path.write_bytes(content)
    code, out, err = run("check", str(path))
    assert code == 2 and out == ""
    assert phrase in err and err.startswith("engine check: ")


def test_validate_prints_every_issue(tmp_path: Path) -> None:
    schema = tmp_path / "s.json"
    schema.write_text(json.dumps({"type": "object", "properties": {"a": {"type": "integer"}, "b": {"type": "string"}},
                                  "required": ["a", "b", "c"]}))
    instance = tmp_path / "i.json"
    instance.write_text(json.dumps({"a": "x", "b": 2}))
    code, out, _ = run("validate", "--schema", str(schema), "--instance", str(instance))
    assert code == 1
    assert "invalid, 3 issues" in out
    assert "at /a:" in out and "at /b:" in out and "[schema /required]" in out
    code, out, _ = run("validate", "--schema", str(schema), "--instance", str(instance), "--json")
    doc = json.loads(out)
    assert doc["valid"] is False and len(doc["issues"]) == 3
    assert {i["instance_path"] for i in doc["issues"]} == {"", "/a", "/b"}


def test_validate_from_stdin(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    schema = tmp_path / "s.json"
    schema.write_text(json.dumps({"type": "array", "items": {"type": "integer"}}))
    code, out, _ = run("validate", "--schema", str(schema), "-", stdin=b"[1, 2, 3]", monkeypatch=monkeypatch)
    assert code == 0 and "standard input: valid" in out
    code, out, _ = run("validate", "--schema", str(schema), "-", stdin=b"[1, 2", monkeypatch=monkeypatch)
    assert code == 1 and "not acceptable JSON (malformed-json)" in out


def test_validate_refused_schema_and_missing_instance(tmp_path: Path) -> None:
    schema = tmp_path / "s.json"
    schema.write_text(json.dumps({"$ref": "file:///etc/passwd"}))
    instance = tmp_path / "i.json"
    instance.write_text("1")
    code, _, err = run("validate", "--schema", str(schema), "--instance", str(instance))
    assert code == 1 and "is refused (unresolvable-ref)" in err
    code, _, err = run("validate", "--schema", str(schema))
    assert code == 2 and "--instance FILE" in err


def test_bad_configuration_is_a_sentence(tmp_path: Path) -> None:
    config = tmp_path / "engine.toml"
    config.write_text('backend = "nope"\n')
    path = tmp_path / "s.json"
    path.write_text("{}")
    code, _, err = run("check", str(path), "--config", str(config))
    assert code == 2 and "invalid engine configuration" in err


def engine_cli(*args: str) -> subprocess.CompletedProcess[str]:
    command = [sys.executable, "-m", "engine", *args]
    return subprocess.run(command, capture_output=True, text=True, cwd=ROOT, check=False)


def test_help_teaches_with_examples() -> None:
    proc = engine_cli("--help")
    assert proc.returncode == 0
    assert "examples:" in proc.stdout and "engine check tools.json" in proc.stdout
    assert "exit status" in proc.stdout
    proc = engine_cli("check", "--help")
    assert proc.returncode == 0 and "--json" in proc.stdout and "tools/list" in proc.stdout


def test_bench_without_a_checkout_says_what_to_do(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    import engine._cli.bench as cli_bench

    monkeypatch.setattr(cli_bench, "find_benchmarks", lambda: None)
    code, _, err = run("bench", "--quick")
    assert code == 2 and "nox -s bench" in err and "source checkout" in err


def test_bench_runs_the_checkouts_runner_with_the_arguments_given(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capfd: pytest.CaptureFixture[str]
) -> None:
    package = tmp_path / "benchmarks"
    package.mkdir()
    (package / "__init__.py").write_text("")
    (package / "__main__.py").write_text("import sys\nprint('runner got', sys.argv[1:])\nsys.exit(3)\n")
    monkeypatch.chdir(tmp_path)
    code, _, _ = run("bench", "--quick", "--workloads", "compile")
    assert code == 3  # the runner's own exit status
    assert "runner got ['--quick', '--workloads', 'compile']" in capfd.readouterr().out


class Terminal(io.StringIO):
    def isatty(self) -> bool:
        return True


def test_progress_shows_on_a_terminal_only(tmp_path: Path) -> None:
    tools = [{"name": f"t{i}", "inputSchema": {"type": "object"}} for i in range(40)]
    path = tmp_path / "tools.json"
    path.write_text(json.dumps(tools))
    terminal = Terminal()
    assert main(["check", str(path)], out=io.StringIO(), err=terminal) == 0
    assert "checking 40/40: t39" in terminal.getvalue()
    quiet = Terminal()
    assert main(["check", str(path), "--quiet"], out=io.StringIO(), err=quiet) == 0
    assert quiet.getvalue() == ""
    piped = io.StringIO()
    assert main(["check", str(path)], out=io.StringIO(), err=piped) == 0
    assert piped.getvalue() == ""


def test_check_applies_mcp_rules_on_tools(tmp_path: Path) -> None:
    tools = [
        {"name": "string_args", "inputSchema": {"type": "string"}},
        {"name": "twice", "inputSchema": {"type": "object"}},
        {"name": "twice", "inputSchema": {"type": "object"}},
        {"name": "no_params", "inputSchema": True},
    ]
    path = tmp_path / "tools.json"
    path.write_text(json.dumps({"tools": tools}))
    code, out, _ = run("check", str(path), "--json")
    assert code == 1
    reports = json.loads(out)["tools"]
    first = reports[0]["schemas"]["inputSchema"]
    assert first["status"] == "refused" and first["refusal"]["location"] == "/inputSchema/type"
    assert "MCP requires" in first["refusal"]["message"]
    assert all("more than once" in r["schemas"]["inputSchema"]["refusal"]["message"] for r in reports[1:3])
    assert reports[3]["status"] == "ok"  # `true`: a tool without parameters (allow_empty_input_schema)


def test_check_shows_the_guards_measurements_and_limit_refusals(tmp_path: Path) -> None:
    deep: dict = {"type": "object"}
    for _ in range(30):
        deep = {"type": "object", "properties": {"x": deep}}
    tools = [
        {"name": "shallow", "inputSchema": {"type": "object", "properties": {"q": {"type": "string"}}}},
        {"name": "deep", "inputSchema": deep},
    ]
    path = tmp_path / "tools.json"
    path.write_text(json.dumps(tools))
    code, out, _ = run("check", str(path), "--json", "--config", str(write_limits(tmp_path)))
    assert code == 1
    shallow, refused = json.loads(out)["tools"]
    depth = shallow["schemas"]["inputSchema"]["guard"]["max_schema_depth"]
    assert depth["bound"] == 20 and 0 < depth["measured"] <= 20
    refusal = refused["schemas"]["inputSchema"]["refusal"]
    assert refusal["reason"] == "limit-exceeded"
    assert refusal["details"]["limit"] == "max_schema_depth" and refusal["details"]["bound"] == 20
    assert refusal["details"]["measured"] > 20 and refusal["location"].startswith("/properties/x")
    code, text, _ = run("check", str(path), "--config", str(write_limits(tmp_path)))
    assert "schema_depth " in text and "/20" in text and "(limit-exceeded) at '/properties/x" in text


def write_limits(tmp_path: Path) -> Path:
    config = tmp_path / "engine.toml"
    config.write_text("[limits]\nmax_schema_depth = 20\n")
    return config
