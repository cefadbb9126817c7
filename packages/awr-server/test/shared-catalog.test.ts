import { OPERATION_LIST } from "@awr/awr-ledger";
import { CallLimiter, type ToolHost } from "@awr/awr-server";
import type { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { afterEach, describe, expect, it } from "vitest";
import { fakeBackend } from "./support/fake-backend.js";
import { type HttpFixture, startFixture, TOKENS } from "./support/http-fixture.js";
import { connectInMemory } from "./support/in-memory.js";

// The tool catalog is built once per process and shared by every server instance (one per HTTP
// request); these tests check that sharing it changes nothing a caller can see.

const clients: Client[] = [];
let fixture: HttpFixture | undefined;
afterEach(async () => {
  await Promise.all(clients.splice(0).map((client) => client.close()));
  await fixture?.close();
  fixture = undefined;
});

async function hostFor(
  mode: ToolHost["mode"],
  client: string,
  extras: { projects?: boolean; workstream?: boolean } = {},
): Promise<ToolHost> {
  const ledger = await fakeBackend().open("/p");
  return {
    mode,
    caller: { client },
    exposure: "flat",
    limiter: new CallLimiter(64),
    resolveProject: async () => ({ ledger, root: "/nonexistent-root" }),
    ...(extras.projects ? { listProjects: () => ({ client, projects: [] }) } : {}),
    ...(extras.workstream ? { workstreams: true } : {}),
  };
}

async function connect(host: ToolHost): Promise<Client> {
  const client = await connectInMemory(host);
  clients.push(client);
  return client;
}

describe("the tool catalog shared by every server instance", () => {
  it("lists the same tools to every server of a transport, and each transport its own", async () => {
    const http1 = await (await connect(await hostFor("http", "a", { projects: true }))).listTools();
    const http2 = await (await connect(await hostFor("http", "b", { projects: true }))).listTools();
    const withWorkstreams = await (
      await connect(await hostFor("http", "c", { projects: true, workstream: true }))
    ).listTools();
    const stdio = await (await connect(await hostFor("stdio", "stdio"))).listTools();

    expect(http2).toEqual(http1);
    const projectTools = OPERATION_LIST.filter(
      (o) => o.availability === undefined && o.surface !== "cli",
    );
    expect(http1.tools.map((t) => t.name)).toEqual([
      "awr_projects_list",
      ...projectTools.map((o) => o.tool),
    ]);
    expect(stdio.tools.map((t) => t.name)).toEqual(projectTools.map((o) => o.tool));
    expect(withWorkstreams.tools.map((t) => t.name)).toEqual([
      ...http1.tools.map((t) => t.name),
      "awr_workstream",
    ]);
    expect(withWorkstreams.tools.slice(0, http1.tools.length)).toEqual(http1.tools);
    const httpAppend = http1.tools.find((t) => t.name === "awr_event_append");
    const stdioAppend = stdio.tools.find((t) => t.name === "awr_event_append");
    expect(httpAppend?.inputSchema.required).toEqual(
      expect.arrayContaining(["project", "request_id", "expected_revision"]),
    );
    expect(stdioAppend?.inputSchema.properties?.["project"]).toBeUndefined();
    expect(stdioAppend?.inputSchema.required).not.toContain("request_id");
  });

  it("answers every CLI-only operation as an unknown tool on the shared service too, -32601", async () => {
    const client = await connect(await hostFor("http", "a", { projects: true, workstream: true }));
    for (const { tool } of OPERATION_LIST.filter((o) => o.surface === "cli")) {
      const error = await client
        .callTool({ name: tool, arguments: { project: "p" } })
        .catch((e: unknown) => e);
      expect((error as { code?: number }).code, tool).toBe(-32601);
    }
  });

  it("is not changed by a client that alters the tool list it received", async () => {
    const first = await (await connect(await hostFor("stdio", "stdio"))).listTools();
    const tool = first.tools.find((t) => t.name === "awr_work_get");
    if (!tool) throw new Error("awr_work_get not listed");
    tool.description = "changed";
    tool.inputSchema.properties = {};
    const second = await (await connect(await hostFor("stdio", "stdio"))).listTools();
    const again = second.tools.find((t) => t.name === "awr_work_get");
    expect(again?.description).not.toBe("changed");
    expect(Object.keys(again?.inputSchema.properties ?? {})).toEqual([
      "work",
      "branch",
      "source_sha",
    ]);
  });

  it("still refuses bad input through the shared schemas", async () => {
    const client = await connect(await hostFor("http", "a", { projects: true }));
    const result = await client.callTool({
      name: "awr_event_append",
      arguments: { project: "p", type: "note", expected_revision: 1, unknown_field: true },
      // (`type` is not an argument: the original's name is event_type.)
    });
    expect(result.isError).toBe(true);
    expect(result.structuredContent).toMatchObject({ code: "InvalidInput" });
    const issues = (result.structuredContent as { details: { issues: { path: string }[] } }).details
      .issues;
    expect(issues.map((issue) => issue.path)).toEqual(
      expect.arrayContaining(["request_id", "event_type", "summary", ""]),
    );
  });

  it("keeps concurrent HTTP callers apart: each request answers for its own credential", async () => {
    fixture = await startFixture(fakeBackend());
    const url = fixture.service.url;
    const call = async (token: string, id: number) => {
      const response = await fetch(url, {
        method: "POST",
        headers: {
          "Content-Type": "application/json",
          Accept: "application/json, text/event-stream",
          Authorization: `Bearer ${token}`,
        },
        body: JSON.stringify({
          jsonrpc: "2.0",
          id,
          method: "tools/call",
          params: { name: "awr_projects_list", arguments: {} },
        }),
      });
      const body = (await response.json()) as {
        id: number;
        result: { structuredContent: { client: string; projects: { key: string }[] } };
      };
      return { id: body.id, ...body.result.structuredContent };
    };
    const answers = await Promise.all(
      Array.from({ length: 24 }, (_, i) =>
        call(i % 2 === 0 ? TOKENS.engineering : TOKENS.reviewer, i),
      ),
    );
    for (const [i, answer] of answers.entries()) {
      expect(answer.id).toBe(i);
      if (i % 2 === 0) {
        expect(answer.client).toBe("engineering");
        expect(answer.projects.map((p) => p.key)).toEqual(["billing", "support"]);
      } else {
        expect(answer.client).toBe("reviewer");
        expect(answer.projects.map((p) => p.key)).toEqual(["billing"]);
      }
    }
  });
});
