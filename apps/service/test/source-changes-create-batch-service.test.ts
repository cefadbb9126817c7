import { readFile } from "node:fs/promises";
import { join } from "node:path";
import type { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { describe, expect, it } from "vitest";
import { useClientSet } from "./support/client-set.js";
import { makeProject, WORK_LEDGER } from "./support/projects.js";
import { ok, refused } from "./support/service-process.js";

/**
 * Reviewed source changes of kinds create and batch over a real MCP server (stdio): the draft
 * and the batch write only their items' bytes, a refused batch changes neither the ledger nor
 * the project revision, and status answers from the change journal.
 */

const REASON = "Plan the receipts follow-up";

const set = useClientSet("awr-service-create-batch-");

async function revisionOf(client: Client): Promise<number> {
  return (await ok(client, "awr_project_status", {}))["project_revision"] as number;
}

async function apply(client: Client, id: string, change: Record<string, unknown>) {
  const revision = await revisionOf(client);
  const preview = await ok(client, "awr_change_preview", {
    request_id: id,
    reason: REASON,
    change,
  });
  expect(preview["source_write_performed"]).toBe(false);
  return await ok(client, "awr_change_apply", {
    request_id: id,
    reason: REASON,
    change,
    expected_revision: revision,
    expected_preview: (preview["preview"] as Record<string, unknown>)["fingerprint"],
  });
}

describe("create and batch source changes over stdio", () => {
  it("creates a draft, appending only its item, and answers its status", async () => {
    const { root } = await makeProject(set.dir, "create");
    const file = join(root, "work-ledger.yaml");
    const client = await set.stdio(root);
    const revision = await revisionOf(client);
    const created = await apply(client, "draft-1", {
      kind: "create",
      title: "Email the receipts",
      fields: { acceptance: ["A receipt arrives"], depends_on: ["W-2"] },
    });
    expect(created).toMatchObject({
      status: "completed",
      draft: true,
      completion_claimed: false,
      source_id: "work-ledger.yaml",
      project_revision: revision + 1,
    });
    const after = await readFile(file, "utf8");
    expect(after.startsWith(WORK_LEDGER)).toBe(true);
    expect(after).toContain(String(created["external_key"]));
    const status = await ok(client, "awr_change_status", { request_id: "draft-1", kind: "create" });
    expect(status).toMatchObject({ found: true, status: "completed", current_source: "after" });
  });

  it("refuses a batch making a cycle with nothing changed, then applies a valid one", async () => {
    const { root } = await makeProject(set.dir, "batch");
    const file = join(root, "work-ledger.yaml");
    const client = await set.stdio(root);
    const graph = await ok(client, "awr_work_graph", {});
    const fingerprint = (graph["sources"] as Record<string, string>)["work-ledger.yaml"];
    const batch = (operations: Record<string, unknown>[]) => ({
      kind: "batch",
      change: {
        kind: "ledger",
        source_id: "work-ledger.yaml",
        source_fingerprint: fingerprint,
        operations,
      },
    });
    const revision = await revisionOf(client);
    const cycle = await refused(client, "awr_change_preview", {
      request_id: "cycle",
      reason: REASON,
      change: batch([
        { operation: "fields", target: "W-1", fields: { depends_on: ["W-2"] } },
        { operation: "fields", target: "W-2", fields: { depends_on: ["W-1"] } },
      ]),
    });
    expect(cycle.code).toBe("RuleViolation");
    const related = await refused(client, "awr_change_preview", {
      request_id: "related",
      reason: REASON,
      change: { kind: "batch", change: { kind: "related", changes: [] } },
    });
    expect(related.code).toBe("Unsupported");
    expect(await readFile(file, "utf8")).toBe(WORK_LEDGER);
    expect(await revisionOf(client)).toBe(revision);

    const applied = await apply(
      client,
      "batch-1",
      batch([
        { operation: "fields", target: "W-2", fields: { depends_on: ["W-1"] } },
        { operation: "import", external_key: "W-3", title: "Refunds", duplicate: "fail" },
      ]),
    );
    expect(applied).toMatchObject({ status: "completed", file_total: 1, applied_files: [0] });
    const after = await readFile(file, "utf8");
    expect(after.startsWith(WORK_LEDGER.slice(0, WORK_LEDGER.indexOf("  - id: W-2")))).toBe(true);
    expect(after).toContain("W-3");
    expect(
      await ok(client, "awr_change_status", { request_id: "batch-1", kind: "batch" }),
    ).toMatchObject({ found: true, status: "completed" });
  });
});
