import type { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { fakeBackend } from "./support/fake-backend.js";
import { type HttpFixture, initializeBody, startFixture, TOKENS } from "./support/http-fixture.js";

const calls: { tool: string; client: string; root: string }[] = [];
let fixture: HttpFixture;
let engineering: Client;
let reviewer: Client;

beforeAll(async () => {
  fixture = await startFixture(
    fakeBackend((tool, input, caller, root) => {
      calls.push({ tool, client: caller.client, root });
      return { project_revision: 7, tool, input };
    }),
  );
  engineering = await fixture.connect(TOKENS.engineering);
  reviewer = await fixture.connect(TOKENS.reviewer);
});
afterAll(async () => {
  await fixture?.close();
});

const start = (project: string, extra: Record<string, unknown> = {}) => ({
  name: "awr_session_start",
  arguments: {
    project,
    work: "W-1",
    conversation: "c-1",
    agent: "a",
    provider: "p",
    model: "m",
    expected_revision: 7,
    request_id: "req-1",
    ...extra,
  },
});

/** A raw initialize request with `token` (none: no Authorization) and `headers` over the MCP ones. */
const initialize = (token: string | undefined, headers?: Record<string, string>) =>
  fixture.send({ token, headers, body: initializeBody });

describe("the shared HTTP service's security", () => {
  it("answers a request without a token with 401 and WWW-Authenticate: Bearer", async () => {
    const res = await initialize(undefined);
    expect(res.status).toBe(401);
    expect(res.headers["www-authenticate"]).toMatch(/^Bearer/);
  });

  it("answers a wrong token with 401", async () => {
    const res = await initialize("x".repeat(40));
    expect(res.status).toBe(401);
  });

  it("refuses an Origin not listed with 403, before looking at the token", async () => {
    const res = await initialize(undefined, { Origin: "https://evil.example" });
    expect(res.status).toBe(403);
    const listed = await initialize(TOKENS.engineering, { Origin: "https://good.example" });
    expect(listed.status).toBe(200);
    expect(listed.headers["access-control-allow-origin"]).toBeUndefined();
  });

  it("refuses a Host outside the loopback defaults with 403, after the token", async () => {
    const res = await initialize(TOKENS.engineering, { Host: "evil.example:80" });
    expect(res.status).toBe(403);
    const noToken = await initialize(undefined, { Host: "evil.example" });
    expect(noToken.status).toBe(401);
    const localhost = await initialize(TOKENS.engineering, { Host: "localhost:9" });
    expect(localhost.status).toBe(200);
  });

  it("answers no CORS preflight and serves only POST /mcp", async () => {
    const options = await fixture.send({
      method: "OPTIONS",
      token: TOKENS.engineering,
      headers: { "Access-Control-Request-Method": "POST" },
    });
    expect(options.status).toBe(405);
    expect(options.headers["access-control-allow-origin"]).toBeUndefined();
    const get = await fixture.send({
      method: "GET",
      token: TOKENS.engineering,
    });
    expect(get.status).toBe(405);
    const other = await fixture.send({
      path: "/other",
      token: TOKENS.engineering,
      body: initializeBody,
    });
    expect(other.status).toBe(404);
  });

  it("refuses a body over 2 MiB with 413", async () => {
    const res = await fixture.send({
      token: TOKENS.engineering,
      body: Buffer.alloc(2 * 1024 * 1024 + 1, 32),
    });
    expect(res.status).toBe(413);
  });

  it("refuses tool arguments over 1 MiB with InvalidInput", async () => {
    const result = await engineering.callTool({
      name: "awr_event_append",
      arguments: {
        project: "billing",
        type: "note",
        expected_revision: 7,
        request_id: "big",
        payload: { blob: "x".repeat(1024 * 1024 + 10) },
      },
    });
    expect(result.structuredContent).toMatchObject({ code: "InvalidInput" });
  });

  it("refuses unknown fields with InvalidInput", async () => {
    const result = await engineering.callTool(start("billing", { colour: "red" }));
    expect(result.structuredContent).toMatchObject({ code: "InvalidInput" });
  });

  it("requires request_id on every write over HTTP", async () => {
    const args = { ...start("billing").arguments } as Record<string, unknown>;
    delete args["request_id"];
    const result = await engineering.callTool({ name: "awr_session_start", arguments: args });
    expect(result.structuredContent).toMatchObject({ code: "InvalidInput" });
    expect(JSON.stringify(result.structuredContent)).toContain("request_id");
  });

  it("refuses a read-only client's write with RuleViolation, and lets it read", async () => {
    const write = await reviewer.callTool(start("billing"));
    expect(write.structuredContent).toMatchObject({ code: "RuleViolation" });
    const read = await reviewer.callTool({
      name: "awr_project_status",
      arguments: { project: "billing", view: "full" },
    });
    expect(read.isError).toBeFalsy();
  });

  it("gives an ungranted key, an unknown key and a path the same denial", async () => {
    const answers = await Promise.all(
      ["support", "nowhere", `${fixture.dir}/billing`].map((project) =>
        reviewer.callTool({ name: "awr_project_status", arguments: { project, view: "full" } }),
      ),
    );
    for (const answer of answers) {
      expect(answer.structuredContent).toEqual({
        code: "RuleViolation",
        message: "project access denied",
      });
    }
  });

  it("calls the ledger as the registry client, so sessions and waits stay the client's own", async () => {
    calls.length = 0;
    await engineering.callTool({
      name: "awr_session_get",
      arguments: { project: "billing", session: "S" },
    });
    await reviewer.callTool({
      name: "awr_session_get",
      arguments: { project: "billing", session: "S" },
    });
    expect(calls.map((c) => [c.tool, c.client])).toEqual([
      ["awr_session_get", "engineering"],
      ["awr_session_get", "reviewer"],
    ]);
    expect(calls[0]?.root).toBe(`${fixture.dir}/billing`);
  });

  it("lists awr_projects_list and the 8 domain tools, each domain requiring project", async () => {
    const { tools } = await engineering.listTools();
    expect(tools).toHaveLength(9);
    expect(tools.map((t) => t.name)).toContain("awr_projects_list");
    expect(tools.map((t) => t.name)).not.toContain("awr_workstream");
    for (const tool of tools.filter((t) => t.name !== "awr_projects_list")) {
      expect(tool.inputSchema.required, tool.name).toContain("project");
    }
  });

  it("lists the projects a credential may use with key, project_id and access, never a root or path", async () => {
    const mine = await reviewer.callTool({ name: "awr_projects_list", arguments: {} });
    // The original's answer: ok, read_only and selection around client and projects.
    expect(mine.structuredContent).toEqual({
      ok: true,
      read_only: true,
      client: "reviewer",
      projects: [{ key: "billing", project_id: "01BILLING", access: "read" }],
      selection: "pass project on every project-scoped call; no shared current project",
    });
    expect(JSON.stringify(mine)).not.toContain(fixture.dir);
    const theirs = await engineering.callTool({ name: "awr_projects_list", arguments: {} });
    expect(
      (theirs.structuredContent as { projects: { access: string }[] }).projects.map(
        (p) => p.access,
      ),
    ).toEqual(["write", "write"]);
  });
});
