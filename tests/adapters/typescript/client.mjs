// The MCP TypeScript SDK's own client, as an application would use it: list the tools, then run
// each call in the plan with client.callTool (which checks structuredContent against the tool's
// outputSchema, error results included). Prints one JSON document: every outcome, in order.
//
// node client.mjs <url> '<plan: [{"name": ..., "arguments": {...}}, ...]>'
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";

const [url, planText] = process.argv.slice(2);
const plan = JSON.parse(planText);
const client = new Client({ name: "engine-interop", version: "1.0.0" });
const outcomes = { protocolVersion: null, listed: null, listError: null, calls: [] };
try {
  const transport = new StreamableHTTPClientTransport(new URL(url));
  await client.connect(transport);
  outcomes.protocolVersion = transport.protocolVersion ?? null;
  try {
    outcomes.listed = (await client.listTools()).tools.map((tool) => tool.name);
  } catch (error) {
    outcomes.listError = { code: error.code ?? null, message: String(error.message ?? error) };
  }
  for (const call of plan) {
    try {
      const result = await client.callTool({ name: call.name, arguments: call.arguments });
      outcomes.calls.push({ name: call.name, result });
    } catch (error) {
      outcomes.calls.push({ name: call.name, error: { code: error.code ?? null, message: String(error.message ?? error) } });
    }
  }
} finally {
  await client.close();
}
process.stdout.write(JSON.stringify(outcomes));
