import { readFile, writeFile } from "node:fs/promises";
import { join } from "node:path";
import type { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { describe, expect, it } from "vitest";
import { useClientSet } from "./support/client-set.js";
import { makeProject, writeRegistry } from "./support/projects.js";
import { fails, ok } from "./support/service-process.js";
import { useSharedService } from "./support/shared-service.js";

/**
 * A source edited on the server after the last index, as the shared service's clients meet it:
 * every read answers SourceStale, and what the answer says to do must work for the client that
 * gets it (a writer calls the hint as written; a read-only client learns who can reindex).
 */

const TOKENS = { writer: "w".repeat(48), reader: "r".repeat(48) };

const set = useClientSet("awr-service-stale-");
let root: string;
const shared = useSharedService(set, async (dir) => {
  const alpha = await makeProject(dir, "alpha");
  root = alpha.root;
  return writeRegistry(
    dir,
    [{ key: "alpha", ...alpha }],
    [
      { id: "writer", token: TOKENS.writer, write: ["alpha"] },
      { id: "reader", token: TOKENS.reader, read: ["alpha"] },
    ],
  );
});

const connect = (token: string): Promise<Client> => shared.connect(token);

/** Edits the ledger source on the server's disk, as a `git pull` there would. */
async function editSource(next: string): Promise<void> {
  const file = join(root, "work-ledger.yaml");
  const text = await readFile(file, "utf8");
  await writeFile(file, text.replace(/next_action: .*/, `next_action: ${next}`));
}

describe("SourceStale over the shared service", () => {
  it("gives a writer a reindex call that works exactly as written, with a fresh request_id each time", async () => {
    const writer = await connect(TOKENS.writer);
    const seen = new Set<string>();
    for (const next of ["Draw the charts", "Check the totals"]) {
      await editSource(next);
      const stale = await fails(writer, "awr_work_get", { project: "alpha", work: "W-1" });
      expect(stale.code).toBe("SourceStale");
      const hint = stale.details?.["next"] as { tool: string; arguments: Record<string, unknown> };
      expect(hint.tool).toBe("awr_source_reindex");
      expect(hint.arguments).toEqual({
        project: "alpha",
        expected_revision: stale.details?.["project_revision"],
        request_id: expect.any(String),
      });
      seen.add(hint.arguments["request_id"] as string);
      expect(stale.message).toContain(
        `project "alpha", expected_revision ${hint.arguments["expected_revision"]}, request_id "${hint.arguments["request_id"]}"`,
      );
      // The hint, called as written, is the fix.
      const reindexed = await ok(writer, hint.tool, hint.arguments);
      expect(reindexed["source_refresh_performed"]).toBe(true);
      const work = await ok(writer, "awr_work_get", { project: "alpha", work: "W-1" });
      expect((work["work"] as { next_action: string }).next_action).toBe(next);
    }
    expect(seen.size).toBe(2);
  });

  it("tells a read-only client who can reindex, and the operator's command, without a server path", async () => {
    const reader = await connect(TOKENS.reader);
    await editSource("Review the receipts");
    const stale = await fails(reader, "awr_project_status", { project: "alpha", view: "full" });
    expect(stale.code).toBe("SourceStale");
    const revision = stale.details?.["project_revision"] as number;
    expect(stale.message).toMatch(/read-only access and cannot reindex/);
    expect(stale.message).toMatch(/write access to project "alpha"/);
    expect(stale.message).toMatch(/operator/);
    expect(stale.details).toMatchObject({
      access: "read",
      reindex_by: ["write_client", "operator"],
      operator_cli: `awr source reindex --expected-revision ${revision}`,
      changed_paths: ["work-ledger.yaml"],
    });
    // No call it would be refused: the step is a sentence naming who can reindex.
    expect(typeof stale.details?.["next"]).toBe("string");
    expect(JSON.stringify(stale)).not.toContain(set.dir);
    const refused = await fails(reader, "awr_source_reindex", {
      project: "alpha",
      expected_revision: revision,
      request_id: "reader-reindex",
    });
    expect(refused.code).toBe("RuleViolation");

    // Once a writer reindexes, the reader reads again.
    const writer = await connect(TOKENS.writer);
    const hint = (await fails(writer, "awr_project_status", { project: "alpha", view: "full" }))
      .details?.["next"] as { tool: string; arguments: Record<string, unknown> };
    await ok(writer, hint.tool, hint.arguments);
    const work = await ok(reader, "awr_work_get", { project: "alpha", work: "W-1" });
    expect((work["work"] as { next_action: string }).next_action).toBe("Review the receipts");
  });
});
