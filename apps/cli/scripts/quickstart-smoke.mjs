// Smoke test of the Quick start (run by .ci/quickstart-smoke): starts ./quickstart.sh on a free
// port, waits until the service listens, connects with the official MCP SDK client over
// Streamable HTTP with the generated bearer token, checks the 21 tools and one status call,
// then stops it with SIGINT and expects exit code 0. Bounded to about two minutes in total.
import { spawn } from "node:child_process";
import { readFileSync } from "node:fs";
import { createServer } from "node:net";
import { fileURLToPath } from "node:url";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";

const repo = fileURLToPath(new URL("../../../", import.meta.url));
const TOTAL_MS = 120_000;
const deadline = Date.now() + TOTAL_MS;
const remaining = () => Math.max(0, deadline - Date.now());

function freePort() {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once("error", reject);
    server.listen(0, "127.0.0.1", () => {
      const { port } = server.address();
      server.close(() => resolve(port));
    });
  });
}

function fail(message) {
  throw new Error(message);
}

const port = await freePort();
const url = `http://127.0.0.1:${port}/mcp`;
console.log(`quickstart-smoke: starting ./quickstart.sh on port ${port}`);
const child = spawn("./quickstart.sh", [], {
  cwd: repo,
  env: { ...process.env, AWR_DEMO_PORT: String(port) },
  stdio: ["ignore", "inherit", "pipe"],
  detached: true,
});
let log = "";
const exited = new Promise((resolve) =>
  child.once("exit", (code, signal) => resolve({ code, signal })),
);
const listening = new Promise((resolve) => {
  child.stderr.on("data", (chunk) => {
    process.stderr.write(chunk);
    log += chunk.toString();
    if (/listening on http:\/\//.test(log)) resolve(true);
  });
});
const timeout = (ms, what) =>
  new Promise((_, reject) => setTimeout(() => reject(new Error(`timed out: ${what}`)), ms).unref());

let status = 0;
try {
  await Promise.race([
    listening,
    exited.then(({ code, signal }) =>
      fail(`quickstart.sh exited early (code ${code}, signal ${signal})`),
    ),
    timeout(remaining() - 15_000, "the service did not start listening"),
  ]);
  const token = readFileSync(`${repo}.awr-demo/token`, "utf8").trim();
  const transport = new StreamableHTTPClientTransport(new URL(url), {
    requestInit: { headers: { Authorization: `Bearer ${token}` } },
  });
  const client = new Client({ name: "quickstart-smoke", version: "1.0.0" });
  await Promise.race([client.connect(transport), timeout(15_000, "connect")]);
  const { tools } = await client.listTools();
  console.log(`quickstart-smoke: ${tools.length} tools`);
  if (tools.length !== 21)
    fail(`expected 21 tools, got ${tools.length}: ${tools.map((t) => t.name).join(", ")}`);
  const listed = await client.callTool({ name: "awr_projects_list", arguments: {} });
  const key = listed.structuredContent?.projects?.[0]?.key ?? "demo";
  const result = await client.callTool({ name: "awr_project_status", arguments: { project: key } });
  const projectId = result.structuredContent?.project_id;
  if (result.isError || typeof projectId !== "string" || projectId === "") {
    fail(`awr_project_status gave no project_id: ${JSON.stringify(result)}`);
  }
  console.log(`quickstart-smoke: awr_project_status -> project_id ${projectId}`);
  await client.close();
} catch (error) {
  console.error(`quickstart-smoke: FAILED: ${error.message}`);
  status = 1;
}

if (child.exitCode === null && child.signalCode === null) {
  process.kill(child.pid, "SIGINT");
  const outcome = await Promise.race([
    exited,
    timeout(Math.max(remaining(), 5_000), "exit after SIGINT"),
  ]).catch((error) => {
    console.error(`quickstart-smoke: FAILED: ${error.message}; killing it`);
    try {
      process.kill(-child.pid, "SIGKILL");
    } catch {}
    return { code: null, signal: "SIGKILL" };
  });
  if (outcome.code !== 0) {
    console.error(
      `quickstart-smoke: FAILED: after SIGINT the service exited with code ${outcome.code} (signal ${outcome.signal}), not 0`,
    );
    status = 1;
  } else {
    console.log("quickstart-smoke: stopped cleanly with exit code 0");
  }
}
// Nothing the quick start started may outlive the smoke test.
try {
  process.kill(-child.pid, "SIGKILL");
} catch {}
console.log(status === 0 ? "quickstart-smoke: ok" : "quickstart-smoke: failed");
process.exit(status);
