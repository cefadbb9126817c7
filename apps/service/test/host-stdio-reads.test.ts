import { mkdir, readdir, writeFile } from "node:fs/promises";
import { join } from "node:path";
import type { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { CALL_PATHS, type CallPath, callingBy } from "./support/call-path.js";
import {
  CRITERION,
  call,
  claimWork,
  failure,
  hostProject,
  logicalState,
  MANIFEST,
  RULE_TEXT,
  readText,
  reindex,
  revisionOf,
  SHA,
  WORK,
} from "./support/host-fixture.js";
import { tempDir } from "./support/projects.js";
import { killAll, stdioClient } from "./support/service-process.js";

/**
 * A host's reads over stdio, with the official SDK client as the host (the scenarios the
 * original AWR's stdio tests check, with its argument names): discovery, the five reads leaving
 * every table and source untouched, stale sources, incomplete context, an uninitialised project.
 */

const WRITES = new Set([
  "awr_work_transition",
  "awr_event_append",
  "awr_evidence_record",
  "awr_session_start",
  "awr_session_checkpoint",
  "awr_session_end",
  "awr_session_resume",
  "awr_session_claim",
  "awr_session_wait",
  "awr_session_reply",
  "awr_operation_recover",
  "awr_source_reindex",
  "awr_work_manage",
  "awr_change_apply",
  "awr_change_recover",
  "awr_compaction_observe",
  "awr_compaction_defer",
]);

let dir: string;
let cleanup: () => Promise<void>;
let count = 0;
const clients: Client[] = [];

async function host(root: string, path: CallPath): Promise<Client> {
  const { client } = await stdioClient(root);
  clients.push(client);
  return callingBy(client, path);
}
const project = () => hostProject(dir, `p${++count}`);

beforeAll(async () => {
  ({ dir, cleanup } = await tempDir("awr-host-stdio-reads-"));
});
afterEach(async () => {
  await Promise.allSettled(clients.splice(0).map((c) => c.close()));
});
afterAll(async () => {
  killAll();
  await cleanup?.();
});

describe.each(CALL_PATHS)("a host reading over stdio, calling by %s", (path) => {
  it("discovers the 32 flat tools (AWR_MCP_TOOL_EXPOSURE_MODE=flat) and survives protocol and argument errors", async () => {
    const root = await project();
    const before = logicalState(root);
    const { client } = await stdioClient(root, { AWR_MCP_TOOL_EXPOSURE_MODE: "flat" });
    clients.push(callingBy(client, path));
    const { tools } = await client.listTools();
    expect(tools).toHaveLength(32);
    expect(Buffer.byteLength(JSON.stringify(tools))).toBeLessThanOrEqual(48 * 1024);
    for (const tool of tools) {
      expect({ tool: tool.name, readOnly: tool.annotations?.readOnlyHint }).toEqual({
        tool: tool.name,
        readOnly: !WRITES.has(tool.name),
      });
      expect(tool.inputSchema["additionalProperties"]).toBe(false);
    }
    await expect(client.callTool({ name: "awr_unlisted", arguments: {} })).rejects.toThrow();
    await failure(client, "awr_work_ready", { limit: 0 }, "InvalidInput");
    await failure(
      client,
      "awr_project_status",
      { project: "elsewhere", view: "full" },
      "InvalidInput",
    );
    await failure(client, "awr_work_get", { work: "MISSING" }, "NotFound");
    await call(client, "awr_project_status", { view: "full" });
    expect(logicalState(root)).toEqual(before);
  });

  it("reads with all five tools without changing a table or a source", async () => {
    const root = await project();
    const client = await host(root, path);
    const { session } = await claimWork(client, root, "W", "reads");
    const before = logicalState(root);
    const file = await readText(root, "work.yaml");
    const status = await call(client, "awr_project_status", { view: "full" });
    expect(status["total"]).toBe(3);
    const ready = await call(client, "awr_work_ready", {});
    expect(ready["ready_total"]).toBe(1);
    const work = await call(client, "awr_work_get", { work: "W", source_sha: SHA });
    expect(JSON.stringify(work["acceptance"])).toContain(CRITERION);
    const claims = (work["work"] as { active_claims: { session_id: string }[] }).active_claims;
    expect(claims[0]?.session_id).toBe(session);
    const args = { work: "W", session, source_sha: SHA, budget: 5000 };
    const context = await call(client, "awr_context_compile", args);
    const packet = context["work_context"] as Record<string, unknown>;
    expect(context["completeness"]).toMatchObject({ complete: true });
    expect(packet["rendered_context"]).toContain(RULE_TEXT);
    expect(packet["token_estimate"] as number).toBeLessThanOrEqual(5000);
    const again = await call(client, "awr_context_compile", args);
    expect((again["work_context"] as Record<string, unknown>)["context_hash"]).toBe(
      packet["context_hash"],
    );
    const found = await call(client, "awr_search", { text: "quarterly", kind: "work" });
    expect((found["hits"] as { external_key: string }[])[0]?.external_key).toBe("W");
    for (const value of [status, ready, work, context, found]) {
      expect(value).toMatchObject({
        project_revision: revisionOf(root),
        read_only: true,
        source_refresh_performed: false,
        freshness_basis: "source_verified_readonly",
      });
    }
    expect(await readText(root, "work.yaml")).toBe(file);
    expect(logicalState(root)).toEqual(before);
  });

  it("answers SourceStale after a source or manifest edit, naming the reindex that fixes it", async () => {
    const root = await project();
    const client = await host(root, path);
    const before = logicalState(root);
    await writeFile(
      join(root, "work.yaml"),
      WORK.replace("Outline the report", "Check the totals"),
    );
    for (const [name, args] of [
      ["awr_project_status", { view: "full" }],
      ["awr_work_ready", {}],
      ["awr_work_get", { work: "W" }],
      ["awr_context_compile", { work: "W" }],
      ["awr_search", { text: "report" }],
    ] as const) {
      const stale = await failure(client, name, args, "SourceStale");
      expect(stale.details).toMatchObject({
        project_revision: revisionOf(root),
        next: { tool: "awr_source_reindex", arguments: { expected_revision: revisionOf(root) } },
      });
      expect(logicalState(root)).toEqual(before);
    }
    await reindex(client, root);
    const work = await call(client, "awr_work_get", { work: "W" });
    expect((work["work"] as { next_action: string }).next_action).toBe("Check the totals");
    const indexed = logicalState(root);
    await writeFile(
      join(root, ".awr", "project.toml"),
      MANIFEST.replace('status = "active"', 'status = "planned"'),
    );
    await failure(client, "awr_context_compile", { work: "W" }, "SourceStale");
    expect(logicalState(root)).toEqual(indexed);
  });

  it("keeps an incomplete context's diagnostics; budget and baseline errors are tool errors", async () => {
    const root = await project();
    const client = await host(root, path);
    const before = logicalState(root);
    const missing = await failure(
      client,
      "awr_context_compile",
      { work: "MISSING" },
      "ContextIncomplete",
    );
    expect(missing["completeness"]).toMatchObject({ complete: false });
    expect(missing["work_context"]).toBeNull();
    expect(missing["diagnostic_text"]).toContain("CONTEXT INCOMPLETE");
    await failure(client, "awr_context_compile", { work: "W", budget: 1 }, "BudgetExceeded");
    await failure(
      client,
      "awr_context_compile",
      { work: "W", checkpoint: "01J0000000000000000000000A", after_revision: 0 },
      "InvalidInput",
    );
    expect(logicalState(root)).toEqual(before);
  });

  it("answers NotFound for an uninitialised project and creates nothing there", async () => {
    const root = join(dir, `empty-${path}`);
    await mkdir(root);
    const client = await host(root, path);
    await failure(client, "awr_project_status", { view: "full" }, "NotFound");
    const transition = {
      action: "progress",
      work: "W",
      session: "01J0000000000000000000000A",
      expected_revision: 0,
      reason: "Record progress",
    };
    await failure(client, "awr_work_transition", transition, "NotFound");
    await expect(readText(root, ".awr/project.toml")).rejects.toThrow();
  });

  it("answers a fresh clone (the manifest without its ledger) the same way, creating nothing", async () => {
    const root = join(dir, `clone-${path}`);
    await mkdir(join(root, ".awr"), { recursive: true });
    await writeFile(join(root, ".awr", "project.toml"), MANIFEST);
    const client = await host(root, path);
    const body = await failure(client, "awr_project_status", { view: "full" }, "NotFound");
    expect(body["message"]).toContain("awr init --accept");
    expect(body["message"]).toContain("Nothing was created.");
    expect(await readdir(join(root, ".awr"))).toEqual(["project.toml"]);
  });
});
