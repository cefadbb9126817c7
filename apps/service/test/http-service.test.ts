import { connect as tcpConnect } from "node:net";
import type { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { describe, expect, it } from "vitest";
import { runAgentDay, sdkCaller } from "./support/agent-day.js";
import { useClientSet } from "./support/client-set.js";
import { makeProject, writeRegistry } from "./support/projects.js";
import { fails, ok, startHttpService } from "./support/service-process.js";
import { useSharedService } from "./support/shared-service.js";

const TOKENS = { eng: "e".repeat(48), rev: "r".repeat(48), other: "o".repeat(48) };

const set = useClientSet("awr-service-http-");
const shared = useSharedService(set, async (dir) => {
  const alpha = await makeProject(dir, "alpha");
  const beta = await makeProject(dir, "beta");
  return writeRegistry(
    dir,
    [
      { key: "alpha", ...alpha },
      { key: "beta", ...beta },
    ],
    [
      { id: "eng", token: TOKENS.eng, write: ["alpha", "beta"] },
      { id: "rev", token: TOKENS.rev, read: ["alpha"] },
      { id: "other", token: TOKENS.other, write: ["alpha", "beta"] },
    ],
  );
});

const client = (token: string): Promise<Client> => shared.connect(token);

async function revisionOf(c: Client, project: string): Promise<number> {
  return (await ok(c, "awr_project_status", { project, view: "full" }))[
    "project_revision"
  ] as number;
}

describe("awr-mcp over shared HTTP", () => {
  it("runs an agent's whole day through the official SDK client", async () => {
    const eng = await client(TOKENS.eng);
    const { tools } = await eng.listTools();
    expect(tools).toHaveLength(9); // awr_projects_list and the 8 domain tools
    const projects = await ok(eng, "awr_projects_list", {});
    expect((projects["projects"] as { key: string }[]).map((p) => p.key)).toEqual([
      "alpha",
      "beta",
    ]);
    await runAgentDay(sdkCaller(eng), { project: "alpha", prefix: "http-day" });
  });

  it("replays a repeated request and refuses a reused request_id with other arguments", async () => {
    const eng = await client(TOKENS.eng);
    const revision = await revisionOf(eng, "beta");
    const args = {
      project: "beta",
      event_type: "note",
      summary: "once",
      expected_revision: revision,
      request_id: "replay-1",
    };
    const first = await ok(eng, "awr_event_append", args);
    const again = await ok(eng, "awr_event_append", args);
    expect(again["replayed"]).toBe(true);
    expect(again["project_revision"]).toBe(first["project_revision"]);
    const changed = await fails(eng, "awr_event_append", { ...args, summary: "twice" });
    expect(changed.code).toBe("SourceConflict");
  });

  it("lets exactly one of two racing writers win; the other gets RevisionConflict", async () => {
    const eng = await client(TOKENS.eng);
    const other = await client(TOKENS.other);
    for (let round = 0; round < 4; round++) {
      const revision = await revisionOf(eng, "beta");
      const results = await Promise.all(
        [eng, other].map((c, i) =>
          c.callTool({
            name: "awr_event_append",
            arguments: {
              project: "beta",
              event_type: "note",
              summary: "race",
              expected_revision: revision,
              request_id: `race-${round}-${i}`,
            },
          }),
        ),
      );
      const winners = results.filter((r) => !r.isError);
      const losers = results.filter((r) => r.isError);
      expect(winners).toHaveLength(1);
      expect(losers[0]?.structuredContent).toMatchObject({
        code: "RevisionConflict",
        details: { expected: revision },
      });
    }
  });

  it("keeps sessions and waits to the client that made them", async () => {
    const eng = await client(TOKENS.eng);
    const other = await client(TOKENS.other);
    let revision = await revisionOf(eng, "beta");
    const started = await ok(eng, "awr_session_start", {
      project: "beta",
      work: "W-2",
      conversation: "private",
      agent: "a",
      provider: "p",
      model: "m",
      expected_revision: revision,
      request_id: "own-1",
    });
    const session = (started["session"] as { id: string }).id;
    revision = started["project_revision"] as number;
    const waited = await ok(eng, "awr_session_wait", {
      project: "beta",
      session,
      question: "ok?",
      context_hash: "h",
      digest: "d",
      next_action: "wait",
      expected_revision: revision,
      request_id: "own-2",
    });
    revision = waited["project_revision"] as number;
    const wait = (waited["wait"] as { id: string }).id;
    const peek = await fails(other, "awr_session_get", { project: "beta", session });
    expect(peek.code).toBe("RuleViolation");
    const reply = await fails(other, "awr_session_reply", {
      project: "beta",
      wait,
      reply: "hijack",
      expected_revision: revision,
      request_id: "steal-1",
    });
    expect(reply.code).toBe("RuleViolation");
    const byConversation = await fails(other, "awr_session_get", {
      project: "beta",
      conversation: "private",
    });
    expect(byConversation.code).toBe("NotFound");
    const receipt = await fails(other, "awr_operation_get", {
      project: "beta",
      request_id: "own-1",
    });
    expect(receipt.code).toBe("NotFound");
  });

  it("keeps projects isolated: writes to one never move another", async () => {
    const eng = await client(TOKENS.eng);
    const alphaBefore = await revisionOf(eng, "alpha");
    const beta = await revisionOf(eng, "beta");
    await ok(eng, "awr_event_append", {
      project: "beta",
      event_type: "note",
      summary: "isolated",
      expected_revision: beta,
      request_id: "iso-1",
    });
    expect(await revisionOf(eng, "alpha")).toBe(alphaBefore);
    const list = await ok(eng, "awr_search", { project: "alpha", text: "receipts" });
    expect(JSON.stringify(list)).not.toContain("iso-1");
  });

  it("refuses a read-only client's write and a path as project through the real ledger", async () => {
    const rev = await client(TOKENS.rev);
    const write = await fails(rev, "awr_event_append", {
      project: "alpha",
      event_type: "note",
      summary: "read-only",
      expected_revision: 1,
      request_id: "ro-1",
    });
    expect(write.code).toBe("RuleViolation");
    const path = await fails(rev, "awr_project_status", { project: `${set.dir}/alpha` });
    expect(path).toEqual({ code: "RuleViolation", message: "project access denied" });
  });
});

describe("awr-mcp over stdio", () => {
  it("runs an agent's whole day through the official SDK client", async () => {
    const gamma = await makeProject(set.dir, "gamma");
    const c = await set.stdio(gamma.root);
    const { tools } = await c.listTools();
    expect(tools).toHaveLength(8); // the domain tools (grouped discovery)
    await runAgentDay(sdkCaller(c), { prefix: "stdio-day" });
  });
});

describe("stopping awr-mcp", () => {
  it("exits 0 on SIGTERM while an idle client holds a keep-alive connection", async () => {
    const own = await startHttpService(shared.registry.file, shared.registry.env);
    const url = new URL(own.url);
    const socket = tcpConnect(Number(url.port), url.hostname);
    await new Promise<void>((resolve) => socket.once("connect", () => resolve()));
    socket.write(
      `GET /mcp HTTP/1.1\r\nHost: 127.0.0.1\r\nAuthorization: Bearer ${TOKENS.eng}\r\nConnection: keep-alive\r\n\r\n`,
    );
    await new Promise<void>((resolve) => socket.once("data", () => resolve()));
    expect(await own.stop("SIGTERM")).toBe(0);
    expect(own.stderr()).toMatch(/SIGTERM: finishing in-flight calls/);
    socket.destroy();
  });
});
