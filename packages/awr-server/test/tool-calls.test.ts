import { LedgerError } from "@awr/awr-ledger";
import {
  AwrToolError,
  BUSY_ERROR_CODE,
  CallLimiter,
  createAwrServer,
  PROJECT_TOOLS,
  type ToolHost,
} from "@awr/awr-server";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { InMemoryTransport } from "@modelcontextprotocol/sdk/inMemory.js";
import { ErrorCode, McpError } from "@modelcontextprotocol/sdk/types.js";
import { afterEach, describe, expect, it } from "vitest";
import { fakeBackend } from "./support/fake-backend.js";

const clients: Client[] = [];
afterEach(async () => {
  await Promise.all(clients.splice(0).map((client) => client.close()));
});

type Respond = Parameters<typeof fakeBackend>[0];

async function connect(respond?: Respond, limit = 64) {
  const ledger = await fakeBackend(respond).open("/p");
  const host: ToolHost = {
    mode: "stdio",
    caller: { client: "stdio" },
    limiter: new CallLimiter(limit),
    resolveProject: async () => ({ ledger, root: "/nonexistent-root" }),
  };
  const server = createAwrServer(host);
  const [a, b] = InMemoryTransport.createLinkedPair();
  await server.connect(a);
  const client = new Client({ name: "test", version: "1.0.0" });
  await client.connect(b);
  clients.push(client);
  return client;
}

describe("the AWR tools on one project", () => {
  it("lists the 20 tools with strict schemas, output schemas and honest annotations", async () => {
    const client = await connect();
    const { tools } = await client.listTools();
    expect(tools.map((t) => t.name)).toEqual(PROJECT_TOOLS.map((t) => t.name));
    expect(tools).toHaveLength(20);
    for (const tool of tools) {
      expect(tool.inputSchema.additionalProperties, tool.name).toBe(false);
      expect(Object.keys(tool.outputSchema?.properties ?? {}), tool.name).toEqual(
        expect.arrayContaining(["project_revision", "code", "message", "details"]),
      );
      expect(tool.description?.length ?? 0, tool.name).toBeGreaterThan(60);
      expect(tool.inputSchema.properties?.["project"], tool.name).toBeUndefined();
    }
    const byName = new Map(tools.map((t) => [t.name, t]));
    expect(byName.get("awr_project_status")?.annotations?.readOnlyHint).toBe(true);
    expect(byName.get("awr_session_start")?.annotations?.readOnlyHint).toBe(false);
    expect(byName.get("awr_work_transition")?.annotations?.destructiveHint).toBe(true);
    expect(byName.get("awr_evidence_record")?.annotations?.destructiveHint).toBe(false);
    // stdio: request_id optional, expected_revision required.
    expect(byName.get("awr_session_start")?.inputSchema.required).toContain("expected_revision");
    expect(byName.get("awr_session_start")?.inputSchema.required).not.toContain("request_id");
  });

  it("returns the ledger's JSON as structuredContent and as the same text", async () => {
    const client = await connect();
    const result = await client.callTool({ name: "awr_work_get", arguments: { work: "W-1" } });
    expect(result.isError).toBeFalsy();
    expect(result.structuredContent).toEqual({
      project_revision: 1,
      method: "workGet",
      input: { work: "W-1" },
      client: "stdio",
    });
    expect(JSON.parse((result.content as [{ text: string }])[0].text)).toEqual(
      result.structuredContent,
    );
  });

  it("answers an unknown tool with JSON-RPC error -32601, not a tool result", async () => {
    const client = await connect();
    const error = await client
      .callTool({ name: "awr_nope", arguments: {} })
      .catch((e: unknown) => e);
    expect(error).toBeInstanceOf(McpError);
    expect((error as McpError).code).toBe(ErrorCode.MethodNotFound);
  });

  it("refuses unknown fields and out-of-bounds values as InvalidInput with the issues", async () => {
    const client = await connect();
    const extra = await client.callTool({
      name: "awr_work_get",
      arguments: { work: "W", colour: 1 },
    });
    expect(extra.isError).toBe(true);
    expect(extra.structuredContent).toMatchObject({ code: "InvalidInput" });
    expect(JSON.stringify(extra.structuredContent)).toContain("colour");
    const limit = await client.callTool({ name: "awr_work_ready", arguments: { limit: 101 } });
    expect(limit.structuredContent).toMatchObject({ code: "InvalidInput" });
    const missing = await client.callTool({
      name: "awr_session_end",
      arguments: { status: "ended" },
    });
    expect(JSON.stringify(missing.structuredContent)).toContain("expected_revision");
  });

  it("refuses arguments over 1 MiB before the ledger sees them", async () => {
    const seen: string[] = [];
    const client = await connect((method) => {
      seen.push(method);
      return { project_revision: 1 };
    });
    const result = await client.callTool({
      name: "awr_event_append",
      arguments: { type: "note", expected_revision: 1, payload: { blob: "x".repeat(1024 * 1024) } },
    });
    expect(result.structuredContent).toMatchObject({
      code: "InvalidInput",
      details: { limit: 1048576 },
    });
    expect(seen).toEqual([]);
  });

  it("maps ledger and server errors to isError results carrying code, message and details", async () => {
    const client = await connect((method) => {
      if (method === "sessionStart") {
        throw new LedgerError("RevisionConflict", "stale revision", { expected: 3, actual: 5 });
      }
      throw new AwrToolError("RuleViolation", "project access denied");
    });
    // Listing first makes the SDK client validate every result against the output schemas.
    await client.listTools();
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
    const denied = await client.callTool({ name: "awr_project_status", arguments: {} });
    expect(denied.structuredContent).toEqual({
      code: "RuleViolation",
      message: "project access denied",
    });
  });

  it("fails fast with a busy error past the in-flight limit, and serves again afterwards", async () => {
    let release!: () => void;
    const gate = new Promise<void>((resolve) => {
      release = resolve;
    });
    const client = await connect(async () => {
      await gate;
      return { project_revision: 1 };
    }, 2);
    const running = [1, 2].map(() =>
      client.callTool({ name: "awr_project_status", arguments: {} }),
    );
    await new Promise((resolve) => setTimeout(resolve, 50));
    const busy = await client
      .callTool({ name: "awr_project_status", arguments: {} })
      .catch((e: unknown) => e);
    expect((busy as McpError).code).toBe(BUSY_ERROR_CODE);
    expect((busy as McpError).message).toMatch(/busy/);
    release();
    await Promise.all(running);
    const after = await client.callTool({ name: "awr_project_status", arguments: {} });
    expect(after.isError).toBeFalsy();
  });

  it("passes a cancelled call's abort through to the ledger", async () => {
    let aborted: Promise<unknown> | undefined;
    const ledgerSignals: AbortSignal[] = [];
    const ledger = await fakeBackend().open("/p");
    const host: ToolHost = {
      mode: "stdio",
      caller: { client: "stdio" },
      limiter: new CallLimiter(4),
      resolveProject: async () => ({
        ledger: {
          ...ledger,
          projectStatus: (_input, _caller, options) => {
            const signal = options?.signal as AbortSignal;
            ledgerSignals.push(signal);
            aborted = new Promise((resolve) => signal.addEventListener("abort", resolve));
            return new Promise((_resolve, reject) =>
              signal.addEventListener("abort", () => reject(signal.reason)),
            );
          },
        },
        root: "/nonexistent-root",
      }),
    };
    const server = createAwrServer(host);
    const [a, b] = InMemoryTransport.createLinkedPair();
    await server.connect(a);
    const client = new Client({ name: "test", version: "1.0.0" });
    await client.connect(b);
    clients.push(client);
    const controller = new AbortController();
    const reason = new Error("user pressed stop");
    const call = client.callTool({ name: "awr_project_status", arguments: {} }, undefined, {
      signal: controller.signal,
    });
    while (ledgerSignals.length === 0) await new Promise((resolve) => setTimeout(resolve, 5));
    controller.abort(reason);
    // The SDK client wraps the reason in its own RequestTimeout-coded error.
    await expect(call).rejects.toThrow(/user pressed stop/);
    await aborted;
    expect(ledgerSignals[0]?.aborted).toBe(true);
  });
});
