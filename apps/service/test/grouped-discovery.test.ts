import { createHash } from "node:crypto";
import { writeFile } from "node:fs/promises";
import { join } from "node:path";
import type { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import {
  CRITERION,
  hostProject,
  logicalState,
  projectIdOf,
  revisionOf,
  SHA,
} from "./support/host-fixture.js";
import { tempDir, writeRegistry } from "./support/projects.js";
import {
  httpClient,
  killAll,
  type RunningService,
  startHttpService,
  stdioClient,
} from "./support/service-process.js";

/**
 * Grouped discovery as a host meets it, over the real awr-mcp: a domain tool runs its child with
 * the very answer the flat name gives (results, errors, replays), refuses a child of another
 * domain or an unknown one with the fix, keeps flat names callable, answers the not yet
 * implemented children with Unsupported and nothing written, and a whole day of work runs on
 * the domain tools alone.
 */

type Result = { content: { type: string; text: string }[]; isError?: boolean };

let dir: string;
let cleanup: () => Promise<void>;
let count = 0;
const clients: Client[] = [];

async function host(root: string): Promise<Client> {
  const { client } = await stdioClient(root);
  clients.push(client);
  return client;
}

/** A call through a domain tool. */
function through(client: Client, domain: string, child: string, args: Record<string, unknown>) {
  return client.callTool({
    name: domain,
    arguments: { child_tool: child, arguments: args },
  }) as Promise<Result>;
}

/** What a host sees of an answer: its text and whether it is an error. */
const seen = (result: Result) => ({ isError: result.isError, text: result.content[0]?.text });

async function body(result: Promise<Result>): Promise<Record<string, unknown>> {
  const answer = await result;
  const parsed = JSON.parse(answer.content[0]?.text ?? "{}") as Record<string, unknown>;
  if (answer.isError) throw new Error(`the call failed: ${answer.content[0]?.text}`);
  return parsed;
}

async function rpcError(call: Promise<unknown>): Promise<{ code?: number; message: string }> {
  return call.then(
    () => {
      throw new Error("the call unexpectedly succeeded");
    },
    (error: { code?: number; message: string }) => error,
  );
}

beforeAll(async () => {
  ({ dir, cleanup } = await tempDir("awr-grouped-discovery-"));
});
afterEach(async () => {
  await Promise.allSettled(clients.splice(0).map((c) => c.close()));
});
afterAll(async () => {
  killAll();
  await cleanup?.();
});

describe("grouped discovery over stdio", () => {
  it("runs a child exactly as its flat name: the same text for a read, an invalid call and a replayed write", async () => {
    const root = await hostProject(dir, `p${++count}`);
    const client = await host(root);
    const flat = (name: string, args: Record<string, unknown>) =>
      client.callTool({ name, arguments: args }) as Promise<Result>;
    expect(seen(await through(client, "awr_query", "awr_work_get", { work: "W" }))).toEqual(
      seen(await flat("awr_work_get", { work: "W" })),
    );
    const invalid = { work: 7, colour: "blue" };
    const refused = await through(client, "awr_query", "awr_work_get", invalid);
    expect(refused.isError).toBe(true);
    expect(seen(refused)).toEqual(seen(await flat("awr_work_get", invalid)));
    const event = {
      expected_revision: revisionOf(root),
      event_type: "work.observed",
      summary: "Noted a figure",
      request_id: "grouped-replay-1",
    };
    const first = await through(client, "awr_evidence", "awr_event_append", event);
    expect(first.isError).toBe(false);
    const after = logicalState(root);
    const replayedFlat = await flat("awr_event_append", event);
    const replayedGrouped = await through(client, "awr_evidence", "awr_event_append", event);
    expect(seen(replayedGrouped)).toEqual(seen(replayedFlat));
    expect(logicalState(root)).toEqual(after);
  });

  it("answers an empty call with the manifest, and refuses what is neither discovery nor a child call, naming the fix", async () => {
    const root = await hostProject(dir, `p${++count}`);
    const client = await host(root);
    const manifest = await body(client.callTool({ name: "awr_query", arguments: {} }) as never);
    expect(manifest).toMatchObject({
      mode: "manifest",
      domain: "awr_query",
      manifest_version: "1",
      child_total: 4,
    });
    const other = await rpcError(through(client, "awr_query", "awr_session_start", {}));
    expect(other.code).toBe(-32602);
    expect(other.message).toContain("awr_session");
    expect(other.message).toContain("AWR_MCP_TOOL_EXPOSURE_MODE=flat");
    const unknown = await rpcError(through(client, "awr_query", "awr_nothing", {}));
    expect(unknown.code).toBe(-32602);
    expect(unknown.message).toContain(
      "awr_project_status, awr_work_ready, awr_work_get, awr_search",
    );
    const half = await rpcError(
      client.callTool({ name: "awr_query", arguments: { child_tool: "awr_work_get" } }),
    );
    expect(half.code).toBe(-32602);
    expect(half.message).toContain("provide both child_tool and arguments");
    const stale = await rpcError(
      client.callTool({
        name: "awr_query",
        arguments: { child_tool: "awr_work_get", arguments: { work: "W" }, manifest_version: "0" },
      }),
    );
    expect(stale.message).toContain("call awr_query with no arguments");
    const stray = await rpcError(
      client.callTool({ name: "awr_query", arguments: { child_tool: "awr_work_get", work: "W" } }),
    );
    expect(stray.message).toContain("inside `arguments`");
    const named = await through(client, "awr_query", "awr_work_get", { work: "W" });
    const versioned = await client.callTool({
      name: "awr_query",
      arguments: { child_tool: "awr_work_get", arguments: { work: "W" }, manifest_version: "1" },
    });
    expect(seen(versioned as Result)).toEqual(seen(named));
  });

  it("keeps flat names callable in grouped mode, and answers the change children Unsupported and an unbound compaction NotFound, writing nothing", async () => {
    const root = await hostProject(dir, `p${++count}`);
    const client = await host(root);
    const listed = (await client.listTools()).tools.map((t) => t.name);
    expect(listed).not.toContain("awr_project_status");
    await body(client.callTool({ name: "awr_project_status", arguments: {} }) as never);
    const before = logicalState(root);
    const preview = await through(client, "awr_change", "awr_change_preview", {
      request_id: "c1",
      reason: "Change a ledger with its documents",
      // A related batch stays Unsupported in this version (create and ledger batches work).
      change: { kind: "batch", change: { kind: "related", changes: [] } },
    });
    const observe = await through(client, "awr_compaction", "awr_compaction_observe", {
      conversation: "host-1",
      expected_revision: revisionOf(root),
      observation: {
        compaction_id: "k1",
        sequence: 1,
        observed_at: 1,
        trigger: "automatic",
        model: "m",
        source: "host",
        measurement_scope: "unknown",
        measurement_basis: "unknown",
      },
    });
    // Compaction is implemented: an observation for a conversation bound to no session is
    // NotFound, and writes nothing either.
    expect(observe.isError).toBe(true);
    expect(JSON.parse(observe.content[0]?.text ?? "{}")).toMatchObject({ code: "NotFound" });
    for (const answer of [preview]) {
      expect(answer.isError).toBe(true);
      const error = JSON.parse(answer.content[0]?.text ?? "{}") as {
        code: string;
        message: string;
      };
      expect(error).toMatchObject({ code: "Unsupported" });
      expect(error.message).toContain("not implemented in this version");
    }
    expect(logicalState(root)).toEqual(before);
  });

  it("runs a day on the domain tools alone: status, prepare, session start with claim, context, checkpoint, evidence, complete", async () => {
    const root = await hostProject(dir, `p${++count}`);
    const client = await host(root);
    const status = await body(through(client, "awr_query", "awr_project_status", {}));
    expect(JSON.stringify(status)).toContain('"W"');
    await body(through(client, "awr_context", "awr_work_prepare", { work: "W" }));
    const started = await body(
      through(client, "awr_session", "awr_session_start", {
        work: "W",
        conversation: "grouped-day",
        agent: "report-writer",
        provider: "fixture",
        model: "none",
        claim: true,
        expected_revision: revisionOf(root),
      }),
    );
    const session = (started["session"] as { id: string }).id;
    expect(started["claim"]).toMatchObject({ work: "W" });
    const context = await body(
      through(client, "awr_context", "awr_context_compile", { conversation: "grouped-day" }),
    );
    const hash = (context["work_context"] as { context_hash: string }).context_hash;
    await body(
      through(client, "awr_session", "awr_session_checkpoint", {
        conversation: "grouped-day",
        expected_revision: revisionOf(root),
        context_hash: hash,
        digest: "Outlined the report",
        next_action: "Record the review",
      }),
    );
    await body(
      through(client, "awr_work", "awr_work_transition", {
        work: "W",
        session,
        action: "progress",
        expected_revision: revisionOf(root),
        reason: "Start on the outline",
        next_action: "Record the review",
      }),
    );
    const report = JSON.stringify({
      version: 1,
      work_item: "W",
      source_sha: SHA,
      command: "review the report",
      scope: ["W"],
      verified_at: Date.now(),
      checks: [{ name: "review", passed: true, details: "Reviewed", criteria: [CRITERION] }],
    });
    await writeFile(join(root, "report.json"), report);
    await body(
      through(client, "awr_evidence", "awr_evidence_record", {
        expected_revision: revisionOf(root),
        external_key: "E",
        work: "W",
        evidence_type: "completion_report",
        level: "locally_verified",
        summary: "The report was reviewed",
        locator: "report.json",
        sha256: createHash("sha256").update(report).digest("hex"),
        source_sha: SHA,
        command: "review the report",
        scope: ["W"],
      }),
    );
    const done = await body(
      through(client, "awr_work", "awr_work_transition", {
        work: "W",
        session,
        action: "complete",
        expected_revision: revisionOf(root),
        reason: "The reviewed report is in",
        completion: {
          version: 1,
          source_sha: SHA,
          acceptance: [{ criterion: CRITERION, evidence: ["E"] }],
        },
      }),
    );
    expect(done["event"]).toMatchObject({ event_type: "work.completed" });
    const work = await body(through(client, "awr_query", "awr_work_get", { work: "W" }));
    expect(work["work"]).toMatchObject({ status: "completed", active_claims: [] });
  });
});

describe("grouped discovery over shared HTTP", () => {
  let service: RunningService;
  const TOKEN = "g".repeat(48);
  const READER = "r".repeat(48);

  beforeAll(async () => {
    const mine = await hostProject(dir, "shared-mine");
    const theirs = await hostProject(dir, "shared-theirs");
    const registry = await writeRegistry(
      dir,
      [
        { key: "mine", root: mine, project_id: projectIdOf(mine) },
        { key: "theirs", root: theirs, project_id: projectIdOf(theirs) },
      ],
      [
        { id: "writer", token: TOKEN, write: ["mine"] },
        { id: "reader", token: READER, read: ["mine"] },
      ],
    );
    service = await startHttpService(registry.file, registry.env);
  });
  afterAll(async () => {
    await service?.stop();
  });

  it("gives a manifest only for a project the client may read, and runs a child with the domain's project", async () => {
    const writer = await httpClient(service.url, TOKEN);
    clients.push(writer);
    const manifest = await body(
      writer.callTool({ name: "awr_session", arguments: { project: "mine" } }) as never,
    );
    expect(manifest).toMatchObject({ domain: "awr_session", child_total: 7 });
    const denied = (await writer.callTool({
      name: "awr_session",
      arguments: { project: "theirs" },
    })) as Result;
    expect(denied.isError).toBe(true);
    expect(denied.content[0]?.text).toContain("denied");
    const status = await body(
      writer.callTool({
        name: "awr_query",
        arguments: { project: "mine", child_tool: "awr_work_get", arguments: { work: "W" } },
      }) as never,
    );
    expect(status["work"]).toMatchObject({ work: "W" });
  });

  it("refuses a read-only client's write through a domain exactly as by its flat name", async () => {
    const reader = await httpClient(service.url, READER);
    clients.push(reader);
    const args = {
      project: "mine",
      expected_revision: 0,
      event_type: "work.observed",
      summary: "x",
      request_id: "r1",
    };
    const flat = (await reader.callTool({ name: "awr_event_append", arguments: args })) as Result;
    const { project, ...rest } = args;
    const grouped = (await reader.callTool({
      name: "awr_evidence",
      arguments: { project, child_tool: "awr_event_append", arguments: rest },
    })) as Result;
    expect(flat.isError).toBe(true);
    expect(seen(grouped)).toEqual(seen(flat));
  });
});
