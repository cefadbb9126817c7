// Smoke test of the Quick start (run by .ci/quickstart-smoke), as a new user meets it: starts
// ./quickstart.sh on a free port with its stdout and stderr in one stream (as on a terminal) and
// checks, once the connection summary is printed:
//   - no installer or compiler output reached the screen, and at most 15 lines came before the
//     summary;
//   - the printed Claude Code and Cursor .mcp.json parse as JSON and the Codex config.toml as
//     TOML, each pointing at the service and naming the AWR_DEMO_TOKEN variable, and the token
//     itself appears nowhere on screen;
//   - the printed `export` line and `awr` command, run in a fresh shell, work;
//   - the official MCP SDK client, sending the header of the Claude Code config with the variable
//     expanded, connects, sees awr_projects_list and the 8 domain tools and the "bookshop" project;
// then stops it like Ctrl-C (SIGINT to its process group) and expects exit code 0.
import { execFile, spawn } from "node:child_process";
import { readFileSync } from "node:fs";
import { createRequire } from "node:module";
import { createServer } from "node:net";
import { fileURLToPath } from "node:url";
import { promisify } from "node:util";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";

const repo = fileURLToPath(new URL("../../../", import.meta.url));
// smol-toml is the registry's TOML parser; it is resolved from the package that depends on it.
const { parse: parseToml } = createRequire(`${repo}packages/awr-server/package.json`)("smol-toml");
const TOTAL_MS = 175_000;
const MAX_LINES_BEFORE_SUMMARY = 15;
const SUMMARY_START = /^AWR demo service is running at /;
const SUMMARY_END = /^ {5}pnpm exec awr /;
const TOKEN_ENV = "AWR_DEMO_TOKEN";
/** What installers, compilers and build tools print; none of it may reach the screen. */
const NOISE =
  /gyp|prebuild|node-pre-gyp|make\[|g\+\+|\bcc1plus\b|warning:|npm (warn|notice)|WARN|ENOTFOUND|turbo|tsc -p|Progress: resolved|Lockfile|Update available|\+{10}/;

const deadline = Date.now() + TOTAL_MS;
const remaining = () => Math.max(0, deadline - Date.now());
/** @param {number} ms @param {string} what */
const timeout = (ms, what) =>
  new Promise((_, reject) => setTimeout(() => reject(new Error(`timed out: ${what}`)), ms).unref());
const run = promisify(execFile);

function freePort() {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once("error", reject);
    server.listen(0, "127.0.0.1", () => {
      const { port } = /** @type {import("node:net").AddressInfo} */ (server.address());
      server.close(() => resolve(port));
    });
  });
}

/** @param {unknown} condition truthy, or the check fails @param {string} message */
function check(condition, message) {
  if (!condition) throw new Error(message);
}

/**
 * The indented block after the line matching `label`, up to the next line indented less.
 * @param {string[]} lines
 * @param {RegExp} label
 */
function blockAfter(lines, label) {
  const at = lines.findIndex((line) => label.test(line));
  check(at >= 0, `the summary has no line matching ${label}`);
  const block = [];
  for (const line of lines.slice(at + 1)) {
    if (!/^ {5}/.test(line)) break;
    block.push(line.slice(5));
  }
  return block.join("\n");
}

const port = await freePort();
const url = `http://127.0.0.1:${port}/mcp`;
console.log(`quickstart-smoke: starting ./quickstart.sh on port ${port}`);
// One pipe for both streams, so lines keep the order a terminal would show.
const child = spawn("bash", ["-c", "exec ./quickstart.sh 2>&1"], {
  cwd: repo,
  env: { ...process.env, AWR_DEMO_PORT: String(port) },
  stdio: ["ignore", "pipe", "inherit"],
  detached: true,
});
let screen = "";
const exited = new Promise((resolve) =>
  child.once("exit", (code, signal) => resolve({ code, signal })),
);
const summarised = new Promise(
  /** @param {(value?: void) => void} resolve */ (resolve) => {
    child.stdout.on("data", (chunk) => {
      process.stdout.write(chunk);
      screen += chunk.toString();
      if (screen.split("\n").some((line) => SUMMARY_END.test(line))) resolve();
    });
  },
);

let status = 0;
try {
  await Promise.race([
    summarised,
    exited.then(({ code, signal }) => {
      throw new Error(`quickstart.sh exited early (code ${code}, signal ${signal})`);
    }),
    timeout(remaining() - 15_000, "no connection summary"),
  ]);
  const lines = screen.split("\n");
  const start = lines.findIndex((line) => SUMMARY_START.test(line));
  const before = lines.slice(0, start).filter((line) => line.trim() !== "");
  console.log(`quickstart-smoke: ${before.length} lines before the summary`);
  check(
    before.length <= MAX_LINES_BEFORE_SUMMARY,
    `${before.length} lines before the summary, over ${MAX_LINES_BEFORE_SUMMARY}`,
  );
  const noisy = lines.filter((line) => NOISE.test(line));
  check(noisy.length === 0, `installer or compiler output on screen:\n${noisy.join("\n")}`);
  check(!/quickstart\.log/.test(screen), "the log file is named although nothing failed");

  const token = readFileSync(`${repo}.awr-demo/token`, "utf8").trim();
  check(!screen.includes(token), "the token itself is printed");

  const claude = JSON.parse(blockAfter(lines, /^ {3}Claude Code, \.mcp\.json/));
  const cursor = JSON.parse(blockAfter(lines, /^ {3}Cursor, \.cursor\/mcp\.json/));
  const codex = parseToml(blockAfter(lines, /^ {3}Codex, ~\/\.codex\/config\.toml/));
  check(
    claude.mcpServers.awr.type === "http" && claude.mcpServers.awr.url === url,
    `Claude Code config: ${JSON.stringify(claude)}`,
  );
  check(
    claude.mcpServers.awr.headers.Authorization === `Bearer \${${TOKEN_ENV}}`,
    `Claude Code config does not read ${TOKEN_ENV}: ${JSON.stringify(claude)}`,
  );
  check(
    cursor.mcpServers.awr.url === url &&
      cursor.mcpServers.awr.headers.Authorization === `Bearer \${env:${TOKEN_ENV}}`,
    `Cursor config: ${JSON.stringify(cursor)}`,
  );
  check(
    codex.mcp_servers.awr.url === url && codex.mcp_servers.awr.bearer_token_env_var === TOKEN_ENV,
    `Codex config: ${JSON.stringify(codex)}`,
  );
  console.log("quickstart-smoke: the three host configs parse and read AWR_DEMO_TOKEN");

  // The printed commands, as printed, in a fresh shell without the variable.
  const exportLine = lines.find((line) => line.startsWith(`     export ${TOKEN_ENV}=`))?.trim();
  const awrLine = lines.find((line) => SUMMARY_END.test(line))?.trim();
  check(exportLine && awrLine, "the summary lacks the export line or the awr command");
  const { [TOKEN_ENV]: _unset, ...cleanEnv } = process.env;
  const { stdout } = await run("bash", ["-c", `${exportLine} && ${awrLine}`], {
    cwd: repo,
    env: cleanEnv,
    timeout: 30_000,
  });
  check(/^bookshop\s/.test(stdout), `the printed awr command answered:\n${stdout}`);
  console.log(`quickstart-smoke: printed awr command -> ${stdout.split("\n")[0]}`);

  // The SDK client with the Claude Code header, ${AWR_DEMO_TOKEN} expanded as the host does.
  const headers = {
    Authorization: claude.mcpServers.awr.headers.Authorization.replace(`\${${TOKEN_ENV}}`, token),
  };
  const client = new Client({ name: "quickstart-smoke", version: "1.0.0" });
  await Promise.race([
    client.connect(new StreamableHTTPClientTransport(new URL(url), { requestInit: { headers } })),
    timeout(15_000, "connect"),
  ]);
  const { tools } = await client.listTools();
  check(
    tools.length === 9,
    `expected 9 tools (awr_projects_list and 8 domains), got ${tools.length}`,
  );
  const listed = await client.callTool({ name: "awr_projects_list", arguments: {} });
  const listedContent = /** @type {{ projects?: { key: string }[] } | undefined} */ (
    listed.structuredContent
  );
  const keys = listedContent?.projects?.map((p) => p.key);
  check(JSON.stringify(keys) === '["bookshop"]', `projects: ${JSON.stringify(listed)}`);
  const result = await client.callTool({
    name: "awr_query",
    arguments: {
      project: "bookshop",
      child_tool: "awr_project_status",
      arguments: { view: "full" },
    },
  });
  const { project_id, project } = /** @type {{ project_id?: unknown, project?: unknown }} */ (
    result.structuredContent ?? {}
  );
  check(
    !result.isError && typeof project_id === "string" && project === "bookshop",
    `awr_project_status: ${JSON.stringify(result)}`,
  );
  console.log(`quickstart-smoke: SDK client: 9 tools, project bookshop (${project_id})`);
  await client.close();
} catch (error) {
  console.error(`quickstart-smoke: FAILED: ${/** @type {Error} */ (error).message}`);
  status = 1;
}

if (child.exitCode === null && child.signalCode === null) {
  // Ctrl-C on a terminal signals the whole foreground process group.
  process.kill(-(/** @type {number} */ (child.pid)), "SIGINT");
  const outcome = await Promise.race([
    exited,
    timeout(Math.max(remaining(), 5_000), "exit after SIGINT"),
  ]).catch((error) => {
    console.error(`quickstart-smoke: FAILED: ${error.message}; killing it`);
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
  process.kill(-(/** @type {number} */ (child.pid)), "SIGKILL");
} catch {}
console.log(status === 0 ? "quickstart-smoke: ok" : "quickstart-smoke: failed");
process.exit(status);
