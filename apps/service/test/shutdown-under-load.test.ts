import { writeFile } from "node:fs/promises";
import { connect, type Socket } from "node:net";
import { join } from "node:path";
import { performance } from "node:perf_hooks";
import type { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { largeGoalsManifest, makeProject, tempDir, writeRegistry } from "./support/projects.js";
import {
  httpClient,
  killAll,
  type RunningService,
  startHttpService,
} from "./support/service-process.js";

/**
 * SIGTERM to the shared service while connections that carry no work are open: sockets that never
 * sent a byte, keep-alive sockets after a finished exchange, slowloris sockets still sending
 * their headers, and an authenticated POST whose body has not all arrived. None of them is work
 * in progress, so none may hold the stop: the service exits as soon as the tool calls already
 * running have answered. The bound (3 s) is generous for a loaded test machine; the grace it must
 * beat is 10 s.
 */

const TOKEN = "t".repeat(48);
const IDLE_SOCKETS = 250;
const KEEP_ALIVE_SOCKETS = 50;
const SLOWLORIS_SOCKETS = 20;
const EXIT_BOUND_MS = 3000;
/** Headings in the source the running call reindexes: a call of a second or two. */
const HEADINGS = 4_000;
const MANIFEST = largeGoalsManifest("loaded");

let dir: string;
let cleanup: () => Promise<void>;
let projects = 0;
const sockets: Socket[] = [];
const timers: NodeJS.Timeout[] = [];

beforeAll(async () => {
  ({ dir, cleanup } = await tempDir("awr-service-shutdown-"));
});
afterEach(() => {
  for (const timer of timers.splice(0)) clearInterval(timer);
  for (const socket of sockets.splice(0)) socket.destroy();
  killAll();
});
afterAll(async () => {
  await cleanup?.();
});

/**
 * A service of its own for one project whose goals source changed after the last index into
 * HEADINGS headings, so that the reindex `reindexCall` asks for runs a second or two.
 */
async function loadedService(): Promise<{ service: RunningService; reindexCall: object }> {
  const name = `loaded-${++projects}`;
  const parent = join(dir, name);
  const project = await makeProject(parent, "project", { manifest: MANIFEST });
  const sections = Array.from(
    { length: HEADINGS },
    (_, i) => `## Goal ${i} {#g${i}}\n\nSection ${i} of a large plan.\n`,
  );
  await writeFile(join(project.root, "GOALS.md"), sections.join("\n"));
  const registry = await writeRegistry(
    parent,
    [{ key: "loaded", ...project }],
    [{ id: "eng", token: TOKEN, write: ["loaded"] }],
  );
  const service = await startHttpService(registry.file, registry.env);
  const reindexCall = {
    name: "awr_source_reindex",
    arguments: { project: "loaded", expected_revision: 1, request_id: `reindex-${name}` },
  };
  return { service, reindexCall };
}

/**
 * Starts the reindex on `client` and resolves once it is known to be running: a read sent after
 * it is answered (SourceStale: the source is not indexed yet) while it is not.
 */
async function running(client: Client, call: object) {
  let answeredAt: number | undefined;
  const answer = client
    .callTool(call as Parameters<Client["callTool"]>[0], undefined, { timeout: 60_000 })
    .finally(() => {
      answeredAt = performance.now();
    });
  const read = await client.callTool({
    name: "awr_project_status",
    arguments: { project: "loaded", view: "full" },
  });
  expect(read.structuredContent).toMatchObject({ code: "SourceStale" });
  expect(answeredAt).toBeUndefined();
  return { answer, answeredAt: () => answeredAt };
}

function open(url: URL): Promise<Socket> {
  return new Promise((resolve, reject) => {
    const socket = connect(Number(url.port), url.hostname, () => resolve(socket));
    socket.on("error", reject);
    sockets.push(socket);
  });
}

/** Resolves once `socket` has received text matching `pattern`. */
function received(socket: Socket, pattern: RegExp): Promise<string> {
  let text = "";
  return new Promise((resolve) => {
    socket.on("data", (chunk: Buffer) => {
      text += chunk.toString("latin1");
      if (pattern.test(text)) resolve(text);
    });
  });
}

const closed = (socket: Socket) =>
  new Promise<void>((resolve) => {
    if (socket.destroyed) resolve();
    else socket.once("close", () => resolve());
  });

/**
 * Opens the idle, keep-alive, slowloris and half-sent-body connections on `service`; resolves
 * with the half-sent body's socket once the service is reading that body.
 */
async function load(service: RunningService): Promise<Socket> {
  const url = new URL(service.url);
  for (let i = 0; i < IDLE_SOCKETS; i += 1) await open(url);
  for (let i = 0; i < KEEP_ALIVE_SOCKETS; i += 1) {
    const socket = await open(url);
    const answered = received(socket, /\r\n\r\n/);
    socket.write(
      `GET /mcp HTTP/1.1\r\nHost: 127.0.0.1\r\nAuthorization: Bearer ${TOKEN}\r\nConnection: keep-alive\r\n\r\n`,
    );
    await answered;
  }
  for (let i = 0; i < SLOWLORIS_SOCKETS; i += 1) {
    const socket = await open(url);
    socket.write("POST /mcp HTTP/1.1\r\nHost: 127.0.0.1\r\n");
    let line = 0;
    timers.push(
      setInterval(() => {
        if (!socket.destroyed) socket.write(`X-Slow-${line++}: a\r\n`);
      }, 100),
    );
  }
  // `Expect: 100-continue`: the service answers once it has the headers and is reading the body.
  const partial = await open(url);
  const reading = received(partial, /100 Continue/);
  partial.write(
    `POST /mcp HTTP/1.1\r\nHost: 127.0.0.1\r\nAuthorization: Bearer ${TOKEN}\r\nContent-Type: application/json\r\nAccept: application/json, text/event-stream\r\nContent-Length: 200\r\nExpect: 100-continue\r\n\r\n`,
  );
  await reading;
  partial.write('{"jsonrpc":"2.0","id":1,"method":"tools/call"');
  return partial;
}

describe("SIGTERM to the shared service under idle load", () => {
  it("exits at once when no tool call runs, answering the half-sent body 503", async () => {
    const { service } = await loadedService();
    const partial = await load(service);
    const refusal = received(partial, /\r\n\r\n[\s\S]*\}/);
    const signalled = performance.now();
    service.proc.kill("SIGTERM");
    expect(await service.exited).toBe(0);
    const elapsed = performance.now() - signalled;
    expect(elapsed).toBeLessThan(EXIT_BOUND_MS);
    const answer = await refusal;
    expect(answer).toMatch(/^HTTP\/1\.1 503 /);
    expect(answer).toMatch(/\r\nconnection: close\r\n/i);
    await closed(partial);
    expect(service.stderr()).toMatch(/stopped/);
  }, 60_000);

  it("lets a running tool call finish and answer, then exits at once", async () => {
    const { service, reindexCall } = await loadedService();
    const client = await httpClient(service.url, TOKEN);
    const partial = await load(service);
    const call = await running(client, reindexCall);
    let refusedAt: number | undefined;
    const refusal = received(partial, /^HTTP\/1\.1 503 /)
      .then(() => closed(partial))
      .then(() => {
        refusedAt = performance.now();
      });
    service.proc.kill("SIGTERM");
    const answer = await call.answer;
    expect(answer.isError).toBe(false);
    expect(answer.structuredContent).toMatchObject({ source_refresh_performed: true });
    expect(await service.exited).toBe(0);
    const exitedAt = performance.now();
    await refusal;
    const answeredAt = call.answeredAt() as number;
    // The half-sent body was refused and its connection closed while the call still ran.
    expect(answeredAt).toBeGreaterThan(refusedAt as number);
    expect(exitedAt - answeredAt).toBeLessThan(EXIT_BOUND_MS);
    await client.close().catch(() => undefined);
  }, 120_000);

  it("exits at once with a non-zero code on a second signal while a call runs", async () => {
    const { service, reindexCall } = await loadedService();
    const client = await httpClient(service.url, TOKEN);
    const call = await running(client, reindexCall);
    void call.answer.catch(() => undefined);
    service.proc.kill("SIGINT");
    await new Promise<void>((resolve) => {
      const check = () => service.stderr().includes("SIGINT: finishing") && resolve();
      service.proc.stderr?.on("data", check);
      check();
    });
    service.proc.kill("SIGINT");
    expect(await service.exited).toBe(130);
    await client.close().catch(() => undefined);
  }, 60_000);
});
