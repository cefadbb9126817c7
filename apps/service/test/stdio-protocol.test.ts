import type { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { call, hostProject, logicalState, revisionOf } from "./support/host-fixture.js";
import { tempDir } from "./support/projects.js";
import { killAll, spawnService, stdioClient } from "./support/service-process.js";

/**
 * awr-mcp's stdio edge spoken to directly, one JSON-RPC line at a time (as a minimal host does),
 * and a write whose final receipt is lost: the answers a host can rely on.
 */

type Message = Record<string, unknown> & { id?: unknown; error?: { code: number } };

/** A line-protocol conversation with one awr-mcp process. */
function lineClient(root: string, env: Record<string, string> = {}) {
  const child = spawnService(["--project", root], env);
  const received: Message[] = [];
  let buffer = "";
  const waiters: (() => void)[] = [];
  child.proc.stdout?.on("data", (chunk: Buffer) => {
    buffer += chunk.toString();
    let newline = buffer.indexOf("\n");
    while (newline >= 0) {
      const line = buffer.slice(0, newline).trim();
      buffer = buffer.slice(newline + 1);
      if (line !== "") received.push(JSON.parse(line) as Message);
      newline = buffer.indexOf("\n");
    }
    for (const wake of waiters.splice(0)) wake();
  });
  const next = async (match: (m: Message) => boolean): Promise<Message> => {
    for (;;) {
      const index = received.findIndex(match);
      if (index >= 0) return received.splice(index, 1)[0] as Message;
      await new Promise<void>((resolve) => waiters.push(resolve));
    }
  };
  return {
    send(text: string) {
      child.proc.stdin?.write(`${text}\n`);
    },
    reply: (id: unknown) => next((m) => m.id === id),
    /** The next answer that has no id (an error about a line it could not read). */
    anonymous: () => next((m) => m.id === null || m.id === undefined || Array.isArray(m)),
    end() {
      child.proc.stdin?.end();
      return child.exited;
    },
  };
}

const INITIALIZE = JSON.stringify({
  jsonrpc: "2.0",
  id: 1,
  method: "initialize",
  params: {
    protocolVersion: "2025-11-25",
    capabilities: {},
    clientInfo: { name: "line-host", version: "1" },
  },
});
const INITIALIZED = JSON.stringify({ jsonrpc: "2.0", method: "notifications/initialized" });

let dir: string;
let cleanup: () => Promise<void>;
let root: string;
const clients: Client[] = [];

beforeAll(async () => {
  ({ dir, cleanup } = await tempDir("awr-stdio-protocol-"));
  root = await hostProject(dir, "p");
});
afterEach(async () => {
  await Promise.allSettled(clients.splice(0).map((c) => c.close()));
});
afterAll(async () => {
  killAll();
  await cleanup?.();
});

describe("awr-mcp on stdio, line by line", () => {
  it("negotiates, lists, calls, answers bad requests by their JSON-RPC codes and exits 0 at EOF", async () => {
    const before = logicalState(root);
    const host = lineClient(root);
    host.send(INITIALIZE);
    expect((await host.reply(1))["result"]).toMatchObject({ protocolVersion: "2025-11-25" });
    host.send(INITIALIZED);
    host.send(JSON.stringify({ jsonrpc: "2.0", id: 2, method: "tools/list" }));
    const listed = (await host.reply(2))["result"] as { tools: unknown[] };
    expect(listed.tools).toHaveLength(8); // the domain tools
    const callLine = (id: number, params: unknown) =>
      JSON.stringify({ jsonrpc: "2.0", id, method: "tools/call", params });
    host.send(callLine(3, { name: "awr_project_status", arguments: { view: "full" } }));
    const status = (await host.reply(3))["result"] as { structuredContent: { read_only: boolean } };
    expect(status.structuredContent.read_only).toBe(true);
    // Invalid params are -32602, never an internal error.
    host.send(JSON.stringify({ jsonrpc: "2.0", id: 4, method: "tools/call" }));
    expect((await host.reply(4)).error?.code).toBe(-32602);
    host.send(callLine(5, { name: 42, arguments: {} }));
    expect((await host.reply(5)).error?.code).toBe(-32602);
    host.send(callLine(6, { name: "awr_unlisted", arguments: {} }));
    expect((await host.reply(6)).error?.code).toBe(-32601);
    // An empty batch is an invalid request.
    host.send("[]");
    expect((await host.anonymous()).error?.code).toBe(-32600);
    // A message that is JSON but not JSON-RPC 2.0 is told what is wrong with it, under its id.
    host.send(JSON.stringify({ jsonrpc: "1.0", id: 8, method: "ping" }));
    expect((await host.reply(8)).error).toEqual({
      code: -32600,
      message: 'Invalid Request: jsonrpc must be "2.0"; got "1.0".',
    });
    // 10,000 levels of nesting in an argument: refused, and the server keeps answering.
    const deep = `${"[".repeat(10_000)}${"]".repeat(10_000)}`;
    host.send(
      `{"jsonrpc":"2.0","id":7,"method":"tools/call","params":{"name":"awr_search","arguments":{"text":${deep}}}}`,
    );
    expect((await host.reply(7)).error?.code).toBe(-32602);
    // Prototype keys are unknown arguments like any other.
    for (const [id, key] of [
      [8, "__proto__"],
      [9, "constructor"],
      [10, "prototype"],
    ] as const) {
      host.send(
        `{"jsonrpc":"2.0","id":${id},"method":"tools/call","params":{"name":"awr_work_ready","arguments":{"${key}":{"limit":1}}}}`,
      );
      const refused = (await host.reply(id))["result"] as {
        isError: boolean;
        structuredContent: { code: string; message: string };
      };
      expect(refused.isError).toBe(true);
      expect(refused.structuredContent.code).toBe("InvalidInput");
      expect(refused.structuredContent.message).toContain("1 unknown argument");
    }
    host.send(callLine(11, { name: "awr_work_ready", arguments: { limit: 1 } }));
    expect((await host.reply(11))["result"]).toMatchObject({ isError: false });
    expect(await host.end()).toBe(0);
    expect(logicalState(root)).toEqual(before);
  });

  it("answers a write whose final receipt is lost as an isError result, then recovers it", async () => {
    const { client: doomed } = await stdioClient(root, { AWR_TEST_FAULT: "finish_fails" });
    clients.push(doomed);
    const revision = revisionOf(root);
    const args = {
      event_type: "work.observed",
      summary: "A write whose receipt is lost",
      expected_revision: revision,
      request_id: "lost-receipt-1",
    };
    const lost = await call(doomed, "awr_event_append", args, true);
    expect(lost).toMatchObject({
      code: "MutationConflict",
      details: { write_outcome: "unknown", request_id: "lost-receipt-1" },
    });
    await doomed.close();
    const { client } = await stdioClient(root);
    clients.push(client);
    const pending = await call(client, "awr_operation_get", { request_id: "lost-receipt-1" });
    expect(pending["outcome"]).toBe("unknown");
    const recovered = await call(client, "awr_operation_recover", {
      request_id: "lost-receipt-1",
      expected_revision: revisionOf(root),
    });
    expect(recovered["write_outcome"]).toBe("committed");
    const replay = await call(client, "awr_event_append", args);
    expect(replay["replayed"]).toBe(true);
  });
});
