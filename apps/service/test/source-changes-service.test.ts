import { readFile } from "node:fs/promises";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { useClientSet } from "./support/client-set.js";
import { makeProject, WORK_LEDGER } from "./support/projects.js";
import { ok, refused } from "./support/service-process.js";
import {
  ALICE_BOB_READER,
  alphaWithTwoWritersAndReader,
  useSharedService,
} from "./support/shared-service.js";

/**
 * Reviewed source changes over a real MCP server: stdio (one local client) and the shared HTTP
 * service (the change belongs to the authenticated client; a read-only client cannot apply).
 */

const TOKENS = ALICE_BOB_READER;
const REASON = "The form is written; record the next step";
const AFTER = WORK_LEDGER.replace(
  "next_action: Write the payment form",
  "next_action: Test the payment form",
);
const CHANGE = { kind: "work_edit", work: "W-1", fields: { next_action: "Test the payment form" } };

const set = useClientSet("awr-service-changes-");

describe("reviewed source changes over stdio", () => {
  it("previews without writing, applies the review at the same revision, replays it", async () => {
    const { root } = await makeProject(set.dir, "local");
    const file = join(root, "work-ledger.yaml");
    const client = await set.stdio(root);
    const status = await ok(client, "awr_project_status", {});
    const revision = status["project_revision"] as number;
    const preview = await ok(client, "awr_change_preview", {
      request_id: "stdio-1",
      reason: REASON,
      change: CHANGE,
    });
    expect(preview).toMatchObject({
      status: "preview",
      project_revision: revision,
      read_only: true,
      journal: "source_change",
      change_kind: "work_edit",
    });
    expect(await readFile(file, "utf8")).toBe(WORK_LEDGER);
    const input = {
      request_id: "stdio-1",
      reason: REASON,
      change: preview["change"],
      expected_revision: revision,
      expected_preview: preview["preview_fingerprint"],
    };
    // No lifecycle bookkeeping between preview and apply: the preview's revision still applies.
    const applied = await ok(client, "awr_change_apply", input);
    expect(applied).toMatchObject({
      status: "completed",
      source_write_performed: true,
      project_revision: revision + 1,
    });
    expect(await readFile(file, "utf8")).toBe(AFTER);
    const again = await ok(client, "awr_change_apply", input);
    expect(again).toMatchObject({ status: "completed", historical_outcome: true });
    expect(
      await ok(client, "awr_change_status", { request_id: "stdio-1", kind: "work_edit" }),
    ).toMatchObject({ found: true, status: "completed", current_source: "after" });
    expect((await ok(client, "awr_project_status", {}))["project_revision"]).toBe(revision + 1);
  }, 60_000);
});

describe("reviewed source changes over the shared service", () => {
  let root = "";
  const shared = useSharedService(set, (dir) =>
    alphaWithTwoWritersAndReader(dir, (alpha) => {
      root = alpha;
    }),
  );

  it("keeps a change to its client: another cannot apply or read it, a reader cannot apply", async () => {
    const [alice, bob, reader] = await Promise.all([
      shared.connect(TOKENS.alice),
      shared.connect(TOKENS.bob),
      shared.connect(TOKENS.reader),
    ]);
    const file = join(root, "work-ledger.yaml");
    const revision = (await ok(alice, "awr_project_status", { project: "alpha" }))[
      "project_revision"
    ] as number;
    const preview = await ok(alice, "awr_change_preview", {
      project: "alpha",
      request_id: "shared-1",
      reason: REASON,
      change: CHANGE,
    });
    const input = {
      project: "alpha",
      request_id: "shared-1",
      reason: REASON,
      change: preview["change"],
      expected_revision: revision,
      expected_preview: preview["preview_fingerprint"],
    };
    expect((await refused(bob, "awr_change_apply", input)).code).toBe("SourceConflict");
    expect((await refused(reader, "awr_change_apply", input)).code).toBe("RuleViolation");
    expect(await readFile(file, "utf8")).toBe(WORK_LEDGER);

    expect(await ok(alice, "awr_change_apply", input)).toMatchObject({ status: "completed" });
    expect(await readFile(file, "utf8")).toBe(AFTER);
    const statusArgs = { project: "alpha", request_id: "shared-1", kind: "work_edit" };
    expect(await ok(alice, "awr_change_status", statusArgs)).toMatchObject({
      found: true,
      status: "completed",
    });
    expect(await ok(bob, "awr_change_status", statusArgs)).toMatchObject({ found: false });
    expect(await ok(reader, "awr_change_status", statusArgs)).toMatchObject({ found: false });
    expect(
      (
        await refused(bob, "awr_change_recover", {
          ...statusArgs,
          expected_revision: revision + 1,
        })
      ).code,
    ).toBe("NotFound");
    // Bob's own change under the same request_id is his own identity, with its own review.
    const his = await ok(bob, "awr_change_preview", {
      project: "alpha",
      request_id: "shared-1",
      reason: REASON,
      change: { ...CHANGE, fields: { next_action: "Ship it" } },
    });
    expect(his["preview_fingerprint"]).not.toBe(preview["preview_fingerprint"]);
  }, 60_000);
});
