#!/usr/bin/env node
// Benchmark: @awr/mcp-client's MCPClient against the official SDK's Client, both calling
// server-everything's `echo` over stdio and Streamable HTTP, sequentially and with 32 calls in
// flight. Runs of the two clients alternate so machine noise hits both alike; the table shows
// the median calls/s of each and their ratio (ours / SDK).
//
//   node scripts/bench-client.mjs [--calls 2000] [--rounds 3] [--concurrency 32] [--warmup 2000]
//
// It runs our package from its TypeScript sources: the script re-executes itself under
// `--conditions=@awr/source --import tsx` (tsx is a devDependency of packages/mcp-client), so
// no build is needed. Not a test: it asserts nothing and is not run by CI.
import { spawn } from "node:child_process";
import { once } from "node:events";
import { createRequire } from "node:module";
import { createServer } from "node:net";
import { dirname, join } from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";

const root = join(dirname(fileURLToPath(import.meta.url)), "..");
const pkg = join(root, "packages/mcp-client");
const requireFromPkg = createRequire(join(pkg, "package.json"));

if (!process.execArgv.some((arg) => arg.includes("@awr/source"))) {
  const tsx = pathToFileURL(requireFromPkg.resolve("tsx")).href;
  const child = spawn(
    process.execPath,
    [
      ...process.execArgv,
      "--conditions=@awr/source",
      "--import",
      tsx,
      fileURLToPath(import.meta.url),
      ...process.argv.slice(2),
    ],
    { stdio: "inherit" },
  );
  const [code] = await once(child, "exit");
  process.exit(code ?? 1);
}

const args = process.argv.slice(2);
function option(name, fallback) {
  const index = args.indexOf(`--${name}`);
  return index >= 0 ? Number(args[index + 1]) : fallback;
}
const CALLS = option("calls", 2000);
const ROUNDS = option("rounds", 3);
const CONCURRENCY = option("concurrency", 32);
const WARMUP = option("warmup", 2000);

const ours = await import(pathToFileURL(join(pkg, "src/index.ts")).href);
const sdkDir = join(pkg, "node_modules/@modelcontextprotocol/sdk/dist/esm");
const { Client } = await import(pathToFileURL(join(sdkDir, "client/index.js")).href);
const { StdioClientTransport } = await import(pathToFileURL(join(sdkDir, "client/stdio.js")).href);
const { StreamableHTTPClientTransport } = await import(
  pathToFileURL(join(sdkDir, "client/streamableHttp.js")).href
);
const everything = join(pkg, "node_modules/@modelcontextprotocol/server-everything/dist/index.js");

async function freePort() {
  const server = createServer().listen(0, "127.0.0.1");
  await once(server, "listening");
  const { port } = server.address();
  server.close();
  await once(server, "close");
  return port;
}

/** server-everything over HTTP (it binds every interface; a local benchmark only). */
async function startHttpServer() {
  const port = await freePort();
  const child = spawn(process.execPath, [everything, "streamableHttp"], {
    env: { ...process.env, PORT: String(port) },
    stdio: ["ignore", "ignore", "pipe"],
  });
  let text = "";
  await new Promise((resolve, reject) => {
    child.stderr.on("data", (chunk) => {
      text += chunk;
      if (text.includes("listening on port")) resolve();
    });
    child.once("exit", () => reject(new Error(`server-everything exited: ${text}`)));
  });
  child.stderr.resume();
  return { url: `http://127.0.0.1:${port}/mcp`, stop: () => child.kill("SIGKILL") };
}

const clientInfo = { name: "bench", version: "1.0.0" };

/** Each factory returns { call(i), close() } for one connected client. */
const factories = {
  async ours(transport, url) {
    const config =
      transport === "stdio"
        ? { command: process.execPath, args: [everything, "stdio"] }
        : { type: "http", url };
    const client = new ours.MCPClient(
      ours.createTransport(config, { closeGraceMs: 200 }),
      clientInfo,
    );
    await client.connect();
    return {
      call: (i) => client.callTool("echo", { message: `m${i}` }, { timeout: 30_000 }),
      close: () => client.close(),
    };
  },
  async sdk(transport, url) {
    const client = new Client(clientInfo);
    const t =
      transport === "stdio"
        ? new StdioClientTransport({
            command: process.execPath,
            args: [everything, "stdio"],
            stderr: "ignore",
          })
        : new StreamableHTTPClientTransport(new URL(url));
    await client.connect(t);
    return {
      call: (i) =>
        client.callTool({ name: "echo", arguments: { message: `m${i}` } }, undefined, {
          timeout: 30_000,
        }),
      close: () => client.close(),
    };
  },
};

async function measure(kind, transport, url, concurrency) {
  const client = await factories[kind](transport, url);
  try {
    // Warm-up: a fresh server process (stdio) needs a few thousand calls before its JIT settles.
    for (let i = 0; i < WARMUP; i++) await client.call(i);
    let next = 0;
    const started = performance.now();
    await Promise.all(
      Array.from({ length: concurrency }, async () => {
        while (next < CALLS) await client.call(next++);
      }),
    );
    return CALLS / ((performance.now() - started) / 1000);
  } finally {
    await client.close();
  }
}

const median = (values) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)];

const http = await startHttpServer();
const rows = [];
try {
  for (const transport of ["stdio", "http"]) {
    for (const [mode, concurrency] of [
      ["sequential", 1],
      [`${CONCURRENCY} concurrent`, CONCURRENCY],
    ]) {
      const results = { ours: [], sdk: [] };
      for (let round = 0; round < ROUNDS; round++) {
        // Alternate which client goes first, so neither always runs on a warmer machine.
        const order = round % 2 === 0 ? ["ours", "sdk"] : ["sdk", "ours"];
        for (const kind of order)
          results[kind].push(await measure(kind, transport, http.url, concurrency));
      }
      const row = {
        transport,
        mode,
        "ours calls/s": Math.round(median(results.ours)),
        "sdk calls/s": Math.round(median(results.sdk)),
        ratio: Number((median(results.ours) / median(results.sdk)).toFixed(2)),
      };
      rows.push(row);
      console.log(JSON.stringify(row));
    }
  }
} finally {
  http.stop();
}
console.log(`\n${CALLS} echo calls per run, ${ROUNDS} alternated rounds, median of each:`);
console.table(rows);
