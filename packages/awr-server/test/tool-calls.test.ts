import { LedgerError, OPERATION_LIST } from "@awr/awr-ledger";
import {
  AwrToolError,
  BUSY_ERROR_CODE,
  CallLimiter,
  createAwrServer,
  type LedgerPort,
  type ToolHost,
} from "@awr/awr-server";
import type { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { InMemoryTransport } from "@modelcontextprotocol/sdk/inMemory.js";
import type { JSONRPCMessage } from "@modelcontextprotocol/sdk/types.js";
import { ErrorCode, McpError } from "@modelcontextprotocol/sdk/types.js";
import { afterEach, describe, expect, it } from "vitest";
import { fakeBackend } from "./support/fake-backend.js";
import { connectInMemory } from "./support/in-memory.js";

const clients: Client[] = [];
afterEach(async () => {
  await Promise.all(clients.splice(0).map((client) => client.close()));
});

type Respond = Parameters<typeof fakeBackend>[0];

function stdioHost(ledger: LedgerPort, limit = 64): ToolHost {
  return {
    mode: "stdio",
    caller: { client: "stdio" },
    exposure: "flat",
    limiter: new CallLimiter(limit),
    resolveProject: async () => ({ ledger, root: "/nonexistent-root" }),
  };
}

/** Sends raw JSON-RPC messages to a server and collects its answers by id. */
async function rawServer(respond?: Respond) {
  const server = createAwrServer(stdioHost(await fakeBackend(respond).open("/p")));
  const [serverSide, clientSide] = InMemoryTransport.createLinkedPair();
  const answers = new Map<unknown, (message: JSONRPCMessage) => void>();
  clientSide.onmessage = (message) => answers.get((message as { id?: unknown }).id)?.(message);
  await server.connect(serverSide);
  await clientSide.start();
  return {
    async request(message: Record<string, unknown>) {
      const answered = new Promise<JSONRPCMessage>((resolve) =>
        answers.set(message["id"], resolve),
      );
      await clientSide.send({ jsonrpc: "2.0", ...message } as JSONRPCMessage);
      return (await answered) as { error?: { code: number; message: string }; result?: unknown };
    },
    close: () => server.close(),
  };
}

async function connect(respond?: Respond, limit = 64) {
  const ledger = await fakeBackend(respond).open("/p");
  const host: ToolHost = {
    mode: "stdio",
    caller: { client: "stdio" },
    exposure: "flat",
    limiter: new CallLimiter(limit),
    resolveProject: async () => ({ ledger, root: "/nonexistent-root" }),
  };
  const client = await connectInMemory(host);
  clients.push(client);
  return client;
}

describe("the AWR tools on one project", () => {
  it("lists the catalog's 32 flat tools as the original does: strict schemas, honest annotations, no output schemas", async () => {
    const client = await connect();
    const { tools } = await client.listTools();
    const projectTools = OPERATION_LIST.filter(
      (o) => o.availability === undefined && o.surface !== "cli",
    );
    expect(tools.map((t) => t.name)).toEqual(projectTools.map((o) => o.tool));
    expect(tools).toHaveLength(32);
    for (const tool of tools) {
      expect(tool.inputSchema.additionalProperties, tool.name).toBe(false);
      expect(tool.outputSchema, tool.name).toBeUndefined();
      expect(tool.description?.length ?? 0, tool.name).toBeGreaterThan(60);
      expect(tool.inputSchema.properties?.["project"], tool.name).toBeUndefined();
      const read = tool.annotations?.readOnlyHint === true;
      expect(tool.annotations, tool.name).toEqual({
        readOnlyHint: read,
        destructiveHint: ["awr_work_transition", "awr_change_apply", "awr_change_recover"].includes(
          tool.name,
        ),
        idempotentHint: read,
        openWorldHint: false,
      });
    }
    const byName = new Map(tools.map((t) => [t.name, t]));
    expect(byName.get("awr_project_status")?.annotations?.readOnlyHint).toBe(true);
    expect(byName.get("awr_session_start")?.annotations?.readOnlyHint).toBe(false);
    // stdio: request_id optional on every write but recovery, expected_revision required.
    expect(byName.get("awr_session_start")?.inputSchema.required).toContain("expected_revision");
    expect(byName.get("awr_session_start")?.inputSchema.required).not.toContain("request_id");
    expect(byName.get("awr_session_start")?.inputSchema.properties?.["request_id"]).toBeDefined();
    expect(byName.get("awr_operation_recover")?.inputSchema.required).toEqual([
      "request_id",
      "expected_revision",
    ]);
  });

  it("returns the ledger's JSON as structuredContent and as the same text", async () => {
    const client = await connect();
    const result = await client.callTool({ name: "awr_work_get", arguments: { work: "W-1" } });
    expect(result.isError).toBeFalsy();
    expect(result.structuredContent).toEqual({
      project_revision: 1,
      tool: "awr_work_get",
      input: { work: "W-1" },
      client: "stdio",
    });
    expect(JSON.parse((result.content as [{ text: string }])[0].text)).toEqual(
      result.structuredContent,
    );
  });

  it("names itself awr-mcp, as the original does", async () => {
    const client = await connect();
    expect(client.getServerVersion()?.name).toBe("awr-mcp");
  });

  it("answers tools/list with a cursor with -32602: the catalog is one page", async () => {
    const raw = await rawServer();
    const answer = await raw.request({ id: 1, method: "tools/list", params: { cursor: "2" } });
    expect(answer.error?.code).toBe(ErrorCode.InvalidParams);
    expect(answer.error?.message).toContain("no next cursor");
    const whole = await raw.request({ id: 2, method: "tools/list", params: {} });
    expect((whole.result as { tools: unknown[] }).tools).toHaveLength(32);
    await raw.close();
  });

  it("answers an unknown tool with JSON-RPC error -32601, not a tool result", async () => {
    const client = await connect();
    const error = await client
      .callTool({ name: "awr_nope", arguments: {} })
      .catch((e: unknown) => e);
    expect(error).toBeInstanceOf(McpError);
    expect((error as McpError).code).toBe(ErrorCode.MethodNotFound);
  });

  it("answers every CLI-only operation as an unknown tool, -32601, and never runs it", async () => {
    const ran: string[] = [];
    const client = await connect((tool) => {
      ran.push(tool);
      return { project_revision: 1 };
    });
    const cliOnly = OPERATION_LIST.filter((o) => o.surface === "cli").map((o) => o.tool);
    expect(cliOnly).toEqual(
      expect.arrayContaining([
        "awr_context_bootstrap",
        "awr_work_list",
        "awr_operation_list",
        "awr_source_list",
        "awr_source_scan",
      ]),
    );
    for (const name of cliOnly) {
      const error = await client.callTool({ name, arguments: {} }).catch((e: unknown) => e);
      expect(error, name).toBeInstanceOf(McpError);
      expect((error as McpError).code, name).toBe(ErrorCode.MethodNotFound);
    }
    expect(ran).toEqual([]);
  });

  it("answers malformed tools/call params with -32602, never -32603", async () => {
    const raw = await rawServer();
    try {
      for (const [id, params] of [
        [1, undefined],
        [2, { name: 7 }],
        [3, { arguments: {} }],
        [4, { name: "awr_work_get", arguments: ["W-1"] }],
      ] as const) {
        const answer = await raw.request({
          id,
          method: "tools/call",
          ...(params === undefined ? {} : { params }),
        });
        expect([id, answer.error?.code]).toEqual([id, ErrorCode.InvalidParams]);
      }
    } finally {
      await raw.close();
    }
  });

  it("answers arguments nested 10,000 deep with -32602 without overflowing the stack", async () => {
    const raw = await rawServer();
    try {
      let deep: unknown = "bottom";
      for (let i = 0; i < 10_000; i++) deep = { a: deep };
      const answer = await raw.request({
        id: "deep",
        method: "tools/call",
        params: { name: "awr_event_append", arguments: { payload: deep } },
      });
      expect(answer.error?.code).toBe(ErrorCode.InvalidParams);
      expect(answer.error?.message).toContain("deeper than 32 levels");
    } finally {
      await raw.close();
    }
  });

  it("refuses unknown fields, prototype keys and out-of-bounds values as InvalidInput naming every problem", async () => {
    const seen: string[] = [];
    const client = await connect((tool) => {
      seen.push(tool);
      return { project_revision: 1 };
    });
    const extra = await client.callTool({
      name: "awr_work_get",
      arguments: { work: "W", colour: 1 },
    });
    expect(extra.isError).toBe(true);
    expect(extra.structuredContent).toMatchObject({ code: "InvalidInput" });
    expect(JSON.stringify(extra.structuredContent)).toContain("1 unknown argument");
    for (const key of ["__proto__", "constructor", "prototype"]) {
      const hostile = await client.callTool({
        name: "awr_project_status",
        arguments: JSON.parse(`{"${key}": {"polluted": true}}`),
      });
      expect([key, (hostile.structuredContent as { code?: string }).code]).toEqual([
        key,
        "InvalidInput",
      ]);
      expect(JSON.stringify(hostile.structuredContent)).toContain("1 unknown argument");
    }
    expect(({} as Record<string, unknown>)["polluted"]).toBeUndefined();
    const limit = await client.callTool({ name: "awr_work_ready", arguments: { limit: 101 } });
    expect(limit.structuredContent).toMatchObject({ code: "InvalidInput" });
    const missing = await client.callTool({
      name: "awr_session_end",
      arguments: { outcome: "finished" },
    });
    const text = JSON.stringify(missing.structuredContent);
    for (const problem of ["expected_revision", "outcome", "session or conversation"]) {
      expect(text).toContain(problem);
    }
    expect(seen).toEqual([]);
  });

  it("never repeats an unknown argument's or payload field's name, naming its position and count", async () => {
    const SENTINEL = "fixture-value-only-never-real";
    const client = await connect(() => ({ project_revision: 1 }));
    const tools = [
      "awr_project_status",
      "awr_work_ready",
      "awr_work_get",
      "awr_search",
      "awr_context_compile",
      "awr_work_transition",
      "awr_event_append",
      "awr_evidence_record",
    ];
    for (const name of tools) {
      const refused = await client.callTool({ name, arguments: { [SENTINEL]: "ordinary value" } });
      expect([name, (refused.structuredContent as { code?: string }).code]).toEqual([
        name,
        "InvalidInput",
      ]);
      expect(JSON.stringify(refused)).not.toContain(SENTINEL);
      expect(JSON.stringify(refused.structuredContent)).toContain("1 unknown argument");
    }
    const event = { event_type: "work.observed", summary: "s", expected_revision: 1 };
    const payload = await client.callTool({
      name: "awr_event_append",
      arguments: { ...event, payload: { [`${SENTINEL}-a`]: "v", [`${SENTINEL}-b`]: "v" } },
    });
    expect(JSON.stringify(payload)).not.toContain(SENTINEL);
    expect(payload.structuredContent).toMatchObject({
      code: "InvalidInput",
      details: {
        issues: [{ path: "payload", message: expect.stringMatching(/^2 unknown fields/) }],
      },
    });
    const metric = await client.callTool({
      name: "awr_event_append",
      arguments: { ...event, payload: { metrics: { ok: 1, [SENTINEL]: "slow" } } },
    });
    expect(JSON.stringify(metric)).not.toContain(SENTINEL);
    expect(metric.structuredContent).toMatchObject({
      details: { issues: [{ path: "payload.metrics[entry 2]", message: "must be a number" }] },
    });
  });

  it("refuses arguments over 1 MiB before the ledger sees them", async () => {
    const seen: string[] = [];
    const client = await connect((tool) => {
      seen.push(tool);
      return { project_revision: 1 };
    });
    const result = await client.callTool({
      name: "awr_event_append",
      arguments: {
        event_type: "note",
        summary: "s",
        expected_revision: 1,
        payload: { body: "x".repeat(1024 * 1024) },
      },
    });
    expect(result.structuredContent).toMatchObject({
      code: "InvalidInput",
      details: { limit: 1048576 },
    });
    expect(seen).toEqual([]);
  });

  it("maps ledger and server errors to isError results carrying code, message and details", async () => {
    const client = await connect((tool) => {
      if (tool === "awr_session_start") {
        throw new LedgerError("RevisionConflict", "stale revision", { expected: 3, actual: 5 });
      }
      if (tool === "awr_context_compile") {
        throw new LedgerError(
          "ContextIncomplete",
          "no such work",
          { work: "X" },
          {
            result: {
              ok: false,
              completeness: { complete: false },
              error: { code: "ContextIncomplete" },
            },
          },
        );
      }
      throw new AwrToolError("RuleViolation", "project access denied");
    });
    const conflict = await client.callTool({
      name: "awr_session_start",
      arguments: {
        work: "W",
        conversation: "c",
        agent: "a",
        provider: "p",
        model: "m",
        expected_revision: 3,
      },
    });
    expect(conflict.isError).toBe(true);
    expect(conflict.structuredContent).toEqual({
      code: "RevisionConflict",
      message: "stale revision",
      details: { expected: 3, actual: 5 },
    });
    expect(JSON.parse((conflict.content as [{ text: string }])[0].text)).toEqual(
      conflict.structuredContent,
    );
    const partial = await client.callTool({
      name: "awr_context_compile",
      arguments: { work: "X" },
    });
    expect(partial.isError).toBe(true);
    expect(partial.structuredContent).toEqual({
      ok: false,
      completeness: { complete: false },
      error: { code: "ContextIncomplete" },
    });
    const denied = await client.callTool({
      name: "awr_project_status",
      arguments: { view: "full" },
    });
    expect(denied.structuredContent).toEqual({
      code: "RuleViolation",
      message: "project access denied",
    });
  });

  it("answers a write that failed unexpectedly with write_outcome unknown, not -32603", async () => {
    const client = await connect(() => {
      throw new Error("disk I/O error while finishing");
    });
    const lost = await client.callTool({
      name: "awr_event_append",
      arguments: { event_type: "note", summary: "s", expected_revision: 1, request_id: "r-9" },
    });
    expect(lost.isError).toBe(true);
    expect(lost.structuredContent).toMatchObject({
      code: "MutationConflict",
      details: { write_outcome: "unknown", request_id: "r-9" },
    });
    expect((lost.structuredContent as { message: string }).message).toContain("awr_operation_get");
    // A read that fails unexpectedly has no outcome to report: it is an internal error.
    const read = await client
      .callTool({ name: "awr_project_status", arguments: { view: "full" } })
      .catch((e: unknown) => e);
    expect((read as McpError).code).toBe(ErrorCode.InternalError);
  });

  it("fails fast with a busy error past the in-flight limit, and serves again afterwards", async () => {
    let release!: () => void;
    const gate = new Promise<void>((resolve) => {
      release = resolve;
    });
    let started = 0;
    const client = await connect(async () => {
      started++;
      await gate;
      return { project_revision: 1 };
    }, 2);
    const running = [1, 2].map(() =>
      client.callTool({ name: "awr_project_status", arguments: { view: "full" } }),
    );
    while (started < 2) await new Promise((resolve) => setImmediate(resolve));
    const busy = await client
      .callTool({ name: "awr_project_status", arguments: { view: "full" } })
      .catch((e: unknown) => e);
    expect((busy as McpError).code).toBe(BUSY_ERROR_CODE);
    expect((busy as McpError).message).toMatch(/busy/);
    release();
    await Promise.all(running);
    const after = await client.callTool({
      name: "awr_project_status",
      arguments: { view: "full" },
    });
    expect(after.isError).toBeFalsy();
  });

  it("passes a cancelled call's abort through to the ledger", async () => {
    let aborted: Promise<unknown> | undefined;
    const ledgerSignals: AbortSignal[] = [];
    const ledger: LedgerPort = {
      close: async () => undefined,
      execute: (_tool, _input, _caller, options) => {
        const signal = options?.signal as AbortSignal;
        ledgerSignals.push(signal);
        aborted = new Promise((resolve) => signal.addEventListener("abort", resolve));
        return new Promise((_resolve, reject) =>
          signal.addEventListener("abort", () => reject(signal.reason)),
        );
      },
    };
    const client = await connectInMemory(stdioHost(ledger, 4));
    clients.push(client);
    const controller = new AbortController();
    const reason = new Error("user pressed stop");
    const call = client.callTool(
      { name: "awr_project_status", arguments: { view: "full" } },
      undefined,
      {
        signal: controller.signal,
      },
    );
    while (ledgerSignals.length === 0) await new Promise((resolve) => setImmediate(resolve));
    controller.abort(reason);
    // The SDK client wraps the reason in its own RequestTimeout-coded error.
    await expect(call).rejects.toThrow(/user pressed stop/);
    await aborted;
    expect(ledgerSignals[0]?.aborted).toBe(true);
  });
});
