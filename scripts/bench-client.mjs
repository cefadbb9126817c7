#!/usr/bin/env node
// Benchmark: @awr/mcp-client's MCPClient against the official SDK's Client, both calling
// server-everything's `echo` over stdio and Streamable HTTP, sequentially and with 32 calls in
// flight. Every measurement runs in a fresh node process that holds one client only, so
// `process.cpuUsage()` there is that client's own CPU (the server is another process; for
// stdio it is that process's child). Runs of the two clients alternate, so machine noise hits
// both alike; the table shows the median calls/s and CPU µs per call of each, and the ratios
// (ours / SDK). Over stdio a third, minimal client (the floor) is measured the same way, and
// ours once more with `processGroup: false` (the "same-session" columns; see oursSameSession).
//
//   node scripts/bench-client.mjs [--calls 10000] [--http-calls 1500] [--warmup 10000]
//       [--http-warmup 500] [--rounds 5] [--concurrency 32] [--only stdio|http]
//
// A worker alone (for profiling one client; "auto" starts its own HTTP server):
//   node --cpu-prof scripts/bench-client.mjs --worker ours|oursSameSession|sdk|floor stdio|http auto CONCURRENCY CALLS WARMUP
//
// It runs our client from the built dist/ (`pnpm build`; `pnpm bench` builds when it is
// missing). Not a test: it asserts nothing and is not run by CI.
import { spawn } from "node:child_process";
import { once } from "node:events";
import { existsSync } from "node:fs";
import { createServer } from "node:net";
import { dirname, join } from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";

const self = fileURLToPath(import.meta.url);
const root = join(dirname(self), "..");
const pkg = join(root, "packages/mcp-client");
const oursEntry = join(pkg, "dist/index.js");
const sdkDir = join(pkg, "node_modules/@modelcontextprotocol/sdk/dist/esm");
const everything = join(pkg, "node_modules/@modelcontextprotocol/server-everything/dist/index.js");
const clientInfo = { name: "bench", version: "1.0.0" };

const args = process.argv.slice(2);
/**
 * The value after `--name` on the command line, else `fallback`.
 * @param {string} name
 * @param {number} [fallback]
 */
function option(name, fallback) {
  const index = args.indexOf(`--${name}`);
  return index >= 0 ? args[index + 1] : fallback;
}

/**
 * One connected client, as each factory returns it.
 * @typedef {{ call(i: number): Promise<unknown>; close(): Promise<unknown> }} BenchClient
 */

/**
 * Each factory returns { call(i), close() } for one connected client: over `transport` ("stdio"
 * or "http"), the HTTP server at `url`.
 * @type {Record<string, (transport: string, url: string, extra?: Record<string, unknown>) => Promise<BenchClient>>}
 */
const factories = {
  /**
   * The floor, stdio only: the least a client can do (stringify, write, split lines, parse,
   * match the id; no validation, timeouts, cancellation or framing safety). It shows how much
   * of a call's CPU is the pipe and the event loop rather than any client library.
   */
  async floor(transport) {
    if (transport !== "stdio") throw new Error("the floor client speaks stdio only");
    const child = spawn(process.execPath, [everything, "stdio"], {
      stdio: ["pipe", "pipe", "ignore"],
    });
    /** @type {Map<number, (message: unknown) => void>} */
    const pending = new Map();
    let buffer = "";
    let lastId = 0;
    child.stdout.setEncoding("utf8");
    child.stdout.on("data", (text) => {
      buffer += text;
      for (let end = buffer.indexOf("\n"); end >= 0; end = buffer.indexOf("\n")) {
        const message = JSON.parse(buffer.slice(0, end));
        buffer = buffer.slice(end + 1);
        pending.get(message.id)?.(message);
        pending.delete(message.id);
      }
    });
    /** @param {string} method @param {unknown} params */
    const request = (method, params) =>
      new Promise((resolve) => {
        const id = ++lastId;
        pending.set(id, resolve);
        child.stdin.write(`${JSON.stringify({ jsonrpc: "2.0", id, method, params })}\n`);
      });
    await request("initialize", { protocolVersion: "2025-11-25", capabilities: {}, clientInfo });
    child.stdin.write('{"jsonrpc":"2.0","method":"notifications/initialized"}\n');
    return {
      call: (/** @type {number} */ i) =>
        request("tools/call", { name: "echo", arguments: { message: `m${i}` } }),
      close: async () => {
        child.kill("SIGKILL");
        await once(child, "exit");
      },
    };
  },
  /** @param {string} transport @param {string} url @param {Record<string, unknown>} [extra] */
  async ours(transport, url, extra = {}) {
    const ours = await import(pathToFileURL(oursEntry).href);
    const config =
      transport === "stdio"
        ? { command: process.execPath, args: [everything, "stdio"] }
        : { type: "http", url };
    const client = new ours.MCPClient(
      ours.createTransport(config, { closeGraceMs: 200, ...extra }),
      clientInfo,
    );
    await client.connect();
    return {
      call: (/** @type {number} */ i) =>
        client.callTool("echo", { message: `m${i}` }, { timeout: 30_000 }),
      close: () => client.close(),
    };
  },
  /**
   * Ours with `processGroup: false`, stdio only. By default our server leads its own process
   * group, which Node can only create with setsid(): a new session, and on Linux with
   * autogroup scheduling a scheduling group of its own. On a busy machine that delays every
   * wake-up of the server, costing calls/s and client CPU whatever the client's code does; the
   * SDK's server (and the floor's) stays in the host's session. This row shows the code alone.
   */
  /** @param {string} transport @param {string} url */
  oursSameSession(transport, url) {
    if (transport !== "stdio") throw new Error("oursSameSession is a stdio measurement");
    return /** @type {(typeof factories)[string]} */ (factories.ours)(transport, url, {
      processGroup: false,
    });
  },
  /** @param {string} transport @param {string} url */
  async sdk(transport, url) {
    const { Client } = await import(pathToFileURL(join(sdkDir, "client/index.js")).href);
    const client = new Client(clientInfo);
    let t;
    if (transport === "stdio") {
      const { StdioClientTransport } = await import(
        pathToFileURL(join(sdkDir, "client/stdio.js")).href
      );
      t = new StdioClientTransport({
        command: process.execPath,
        args: [everything, "stdio"],
        stderr: "ignore",
      });
    } else {
      const { StreamableHTTPClientTransport } = await import(
        pathToFileURL(join(sdkDir, "client/streamableHttp.js")).href
      );
      t = new StreamableHTTPClientTransport(new URL(url));
    }
    await client.connect(t);
    return {
      call: (/** @type {number} */ i) =>
        client.callTool({ name: "echo", arguments: { message: `m${i}` } }, undefined, {
          timeout: 30_000,
        }),
      close: () => client.close(),
    };
  },
};

/** Worker mode: one client, one measurement, one JSON line on stdout. */
async function worker() {
  const [kind, transport, given, concurrency, calls, warmup] = args.slice(1);
  const server = transport === "http" && given === "auto" ? await startHttpServer() : undefined;
  const factory = /** @type {(typeof factories)[string]} */ (
    factories[/** @type {string} */ (kind)]
  );
  const client = await factory(
    /** @type {string} */ (transport),
    /** @type {string} */ (server?.url ?? given),
  );
  const total = Number(calls);
  // Warm-up: both processes' JITs settle before the clock starts.
  for (let i = 0; i < Number(warmup); i++) await client.call(i);
  let next = 0;
  const cpu = process.cpuUsage();
  const started = performance.now();
  await Promise.all(
    Array.from({ length: Number(concurrency) }, async () => {
      while (next < total) await client.call(next++);
    }),
  );
  const seconds = (performance.now() - started) / 1000;
  const used = process.cpuUsage(cpu);
  await client.close();
  server?.stop();
  process.stdout.write(
    `${JSON.stringify({ callsPerSecond: total / seconds, cpuUsPerCall: (used.user + used.system) / total, systemUsPerCall: used.system / total })}\n`,
  );
  process.exit(0);
}

const CALLS = Number(option("calls", 10000));
const HTTP_CALLS = Number(option("http-calls", 1500));
const HTTP_WARMUP = Number(option("http-warmup", 500));
const ROUNDS = Number(option("rounds", 5));
const CONCURRENCY = Number(option("concurrency", 32));
// Over stdio 2,000 warm-up calls left JIT tier-up inside the timed window: with 32 in flight
// our client's CPU per call fell from about 20 to about 9 µs between 4,000 calls after 2,000
// and 20,000-30,000 after 10,000, the SDK's from 30-38 to 24-27. The goal is a steady state.
const WARMUP = Number(option("warmup", 10000));
const ONLY = option("only", undefined);

if (!existsSync(oursEntry)) {
  console.error(`bench-client: ${oursEntry} is missing: run \`pnpm build\` first`);
  process.exit(2);
}

async function freePort() {
  const server = createServer().listen(0, "127.0.0.1");
  await once(server, "listening");
  const { port } = /** @type {import("node:net").AddressInfo} */ (server.address());
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
      if (text.includes("listening on port")) resolve(undefined);
    });
    child.once("exit", () => reject(new Error(`server-everything exited: ${text}`)));
  });
  child.stderr.resume();
  return { url: `http://127.0.0.1:${port}/mcp`, stop: () => child.kill("SIGKILL") };
}

/**
 * One measurement in a worker process of its own.
 * @param {string} kind the client (a factory's name)
 * @param {string} transport
 * @param {string} url
 * @param {string | number | undefined} concurrency calls in flight
 * @returns {Promise<{ callsPerSecond: number; cpuUsPerCall: number; systemUsPerCall: number }>}
 */
async function measure(kind, transport, url, concurrency) {
  const child = spawn(
    process.execPath,
    [
      self,
      "--worker",
      kind,
      transport,
      url,
      String(concurrency),
      String(transport === "http" ? HTTP_CALLS : CALLS),
      String(transport === "http" ? HTTP_WARMUP : WARMUP),
    ],
    { stdio: ["ignore", "pipe", "inherit"] },
  );
  let out = "";
  child.stdout.on("data", (chunk) => {
    out += chunk;
  });
  const [code] = await once(child, "exit");
  if (code !== 0) throw new Error(`bench worker ${kind} ${transport} exited with ${code}`);
  return JSON.parse(/** @type {string} */ (out.trim().split("\n").pop()));
}

if (args[0] === "--worker") await worker();

/** @param {readonly number[]} values */
const median = (values) =>
  /** @type {number} */ ([...values].sort((a, b) => a - b)[Math.floor(values.length / 2)]);
/** @param {number} value */
const round2 = (value) => Number(value.toFixed(2));

const http = await startHttpServer();
/** @type {Record<string, string | number | undefined>[]} */
const rows = [];
try {
  for (const transport of ["stdio", "http"]) {
    if (ONLY && ONLY !== transport) continue;
    for (const [mode, concurrency] of [
      ["sequential", 1],
      [`${CONCURRENCY} concurrent`, CONCURRENCY],
    ]) {
      /** @type {Record<"ours" | "sdk" | "floor" | "oursSameSession", Awaited<ReturnType<typeof measure>>[]>} */
      const results = { ours: [], sdk: [], floor: [], oursSameSession: [] };
      /** @type {(keyof typeof results)[]} */
      const kinds =
        transport === "stdio" ? ["ours", "sdk", "floor", "oursSameSession"] : ["ours", "sdk"];
      for (let round = 0; round < ROUNDS; round++) {
        // Rotate which client goes first, so none always runs on a warmer machine.
        const order = kinds.map(
          (_, i) => /** @type {keyof typeof results} */ (kinds[(i + round) % kinds.length]),
        );
        for (const kind of order)
          results[kind].push(await measure(kind, transport, http.url, concurrency));
      }
      /** @param {keyof typeof results} kind */
      const rate = (kind) => median(results[kind].map((r) => r.callsPerSecond));
      /** @param {keyof typeof results} kind */
      const cpu = (kind) => median(results[kind].map((r) => r.cpuUsPerCall));
      /** @type {Record<string, string | number | undefined>} */
      const row = {
        transport,
        mode,
        "ours calls/s": Math.round(rate("ours")),
        "sdk calls/s": Math.round(rate("sdk")),
        ratio: round2(rate("ours") / rate("sdk")),
        "ours cpu µs/call": round2(cpu("ours")),
        "sdk cpu µs/call": round2(cpu("sdk")),
        "cpu ratio": round2(cpu("ours") / cpu("sdk")),
      };
      if (results.floor.length > 0) {
        row["floor cpu µs/call"] = round2(cpu("floor"));
        row["floor cpu ratio"] = round2(cpu("floor") / cpu("sdk"));
      }
      if (results.oursSameSession.length > 0) {
        row["same-session calls/s"] = Math.round(rate("oursSameSession"));
        row["same-session cpu µs/call"] = round2(cpu("oursSameSession"));
        row["same-session cpu ratio"] = round2(cpu("oursSameSession") / cpu("sdk"));
      }
      rows.push(row);
      console.log(JSON.stringify(row));
    }
  }
} finally {
  http.stop();
}
console.log(
  `\necho calls per run: stdio ${CALLS} after ${WARMUP} warm-up calls, HTTP ${HTTP_CALLS} after ${HTTP_WARMUP}; ${ROUNDS} alternated rounds, one process per run; medians:`,
);
console.table(rows);
