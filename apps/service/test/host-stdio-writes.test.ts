import { createHash } from "node:crypto";
import { existsSync } from "node:fs";
import { writeFile } from "node:fs/promises";
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
  readText,
  reindex,
  revisionOf,
  SHA,
  WORK,
} from "./support/host-fixture.js";
import { tempDir } from "./support/projects.js";
import { killAll, stdioClient } from "./support/service-process.js";

/**
 * A host's writes over stdio, with the official SDK client as the host (the scenarios the
 * original AWR's stdio tests check, with its argument names): work actions under claims and
 * revisions, completion against bound evidence, free-form events and evidence, and writes after
 * a human edited a source.
 */

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
const action = (root: string, session: string, name: string, extra = {}) => ({
  work: "W",
  session,
  action: name,
  expected_revision: revisionOf(root),
  reason: "Apply the reviewed change",
  ...extra,
});

beforeAll(async () => {
  ({ dir, cleanup } = await tempDir("awr-host-stdio-writes-"));
});
afterEach(async () => {
  await Promise.allSettled(clients.splice(0).map((c) => c.close()));
});
afterAll(async () => {
  killAll();
  await cleanup?.();
});

describe.each(CALL_PATHS)("a host writing over stdio, calling by %s", (path) => {
  it("moves work only with its own claim at the current revision, keeping the rest of the item", async () => {
    const root = await project();
    const client = await host(root, path);
    const { session } = await claimWork(client, root, "W", "actions");
    const before = logicalState(root);
    const stale = { ...action(root, session, "progress"), expected_revision: revisionOf(root) - 1 };
    await failure(client, "awr_work_transition", stale, "RevisionConflict");
    const stranger = action(root, "01J0000000000000000000000A", "progress");
    await failure(client, "awr_work_transition", stranger, "NotFound");
    expect(logicalState(root)).toEqual(before);
    for (const [name, field, value, status] of [
      ["progress", "next_action", "Draft the tables", "in_progress"],
      ["block", "blocker", "Waiting for the auditor", "blocked"],
      ["unblock", "next_action", "Resume the tables", "in_progress"],
      ["cancel", "next_action", "Note why it stopped", "cancelled"],
      ["reopen", "next_action", "Plan the report again", "planned"],
    ] as const) {
      const done = await call(
        client,
        "awr_work_transition",
        action(root, session, name, { [field]: value }),
      );
      expect(done["proposal"]).toMatchObject({ status: "applied" });
      expect(done).toMatchObject({ write_outcome: "committed", source_write_performed: true });
      const work = await call(client, "awr_work_get", { work: "W" });
      expect(work["work"]).toMatchObject({ status, owner: "report-lead" });
    }
  });

  it("completes only against evidence bound to the report bytes, releasing only its own claim", async () => {
    const root = await project();
    const client = await host(root, path);
    const mine = await claimWork(client, root, "W", "complete");
    const theirs = await claimWork(client, root, "NEXT", "follow-up");
    await call(
      client,
      "awr_work_transition",
      action(root, mine.session, "progress", { next_action: "Review the report" }),
    );
    const before = logicalState(root);
    await failure(
      client,
      "awr_work_transition",
      action(root, mine.session, "complete"),
      "EvidenceMissing",
    );
    const completion = {
      version: 1,
      source_sha: SHA,
      acceptance: [{ criterion: CRITERION, evidence: ["E"] }],
    };
    const complete = () => action(root, mine.session, "complete", { completion });
    await failure(client, "awr_work_transition", complete(), "NotFound");
    expect(logicalState(root)).toEqual(before);
    const report = JSON.stringify({
      version: 1,
      work_item: "W",
      source_sha: SHA,
      command: "review the quarterly report",
      scope: ["W"],
      verified_at: Date.now(),
      checks: [{ name: "review", passed: true, details: "Reviewed", criteria: [CRITERION] }],
    });
    await writeFile(join(root, "report.json"), report);
    const recorded = await call(client, "awr_evidence_record", {
      expected_revision: revisionOf(root),
      external_key: "E",
      work: "W",
      evidence_type: "completion_report",
      level: "locally_verified",
      summary: "The report was reviewed",
      locator: "report.json",
      sha256: createHash("sha256").update(report).digest("hex"),
      source_sha: SHA,
      command: "review the quarterly report",
      scope: ["W"],
    });
    expect(recorded["validation_basis"]).toBe("caller_supplied_bindings");
    expect(typeof recorded["event_id"]).toBe("string");
    const recordedState = logicalState(root);
    await writeFile(join(root, "report.json"), "the report changed");
    await call(client, "awr_work_transition", complete(), true);
    expect(logicalState(root)).toEqual(recordedState);
    await writeFile(join(root, "report.json"), report);
    const done = await call(client, "awr_work_transition", complete());
    expect(done["event"]).toMatchObject({
      event_type: "work.completed",
      payload: { released_claim_ids: [mine.claim] },
    });
    const work = await call(client, "awr_work_get", { work: "W" });
    expect(work["work"]).toMatchObject({ status: "completed", active_claims: [] });
    const other = await call(client, "awr_session_get", { session: theirs.session });
    expect(other["session"]).toMatchObject({ status: "active" });
    const next = await call(client, "awr_work_get", { work: "NEXT" });
    const nextClaims = (next["work"] as { active_claims: { id: string }[] }).active_claims;
    expect(nextClaims.map((c) => c.id)).toEqual([theirs.claim]);
  });

  it("keeps events free-form but never lifecycle, evidence keys unique and commands unrun", async () => {
    const root = await project();
    const client = await host(root, path);
    const before = logicalState(root);
    const reserved = {
      expected_revision: revisionOf(root),
      event_type: "work.completed",
      summary: "Pretend it is done",
    };
    await failure(client, "awr_event_append", reserved, "InvalidInput");
    const onBranch = { ...reserved, event_type: "work.observed", branch: "review" };
    const branch = await failure(client, "awr_event_append", onBranch, "NotFound");
    expect(JSON.stringify(branch)).toContain("work branch review");
    // The branch is resolved under the write lock, which leaves its released lease row behind:
    // lock bookkeeping, not ledger state.
    const { project_locks: _lease, ...after } = logicalState(root);
    const { project_locks: _none, ...unchanged } = before;
    expect(after).toEqual(unchanged);
    const sentinel = "PAYLOAD_ONLY_SENTINEL";
    const observed = await call(client, "awr_event_append", {
      expected_revision: revisionOf(root),
      work: "W",
      branch: "main",
      event_type: "work.observed",
      importance: "critical",
      summary: "The auditor asked for the raw figures",
      payload: { body: sentinel },
    });
    expect(observed["event"]).toMatchObject({
      event_type: "work.observed",
      importance: "critical",
      branch_id: null,
      payload: { body: sentinel },
    });
    const found = await call(client, "awr_search", { text: sentinel });
    expect(found["hits"]).toEqual([]);
    const marker = join(root, "must-not-exist");
    const evidence = {
      external_key: "observation",
      work: "W",
      evidence_type: "note",
      level: "implemented",
      summary: "An observation",
      locator: "unread.json",
      scope: ["W"],
    };
    await call(client, "awr_evidence_record", {
      ...evidence,
      expected_revision: revisionOf(root),
      command: `touch ${marker}`,
    });
    expect(existsSync(marker)).toBe(false);
    const recorded = logicalState(root);
    const again = { ...evidence, summary: "Twice", expected_revision: revisionOf(root) };
    await failure(client, "awr_evidence_record", again, "SourceConflict");
    expect(logicalState(root)).toEqual(recorded);
  });

  for (const tool of ["awr_event_append", "awr_evidence_record", "awr_work_transition"]) {
    it(`${tool} after a human edit refreshes first, keeps the edit and refuses the old revision`, async () => {
      const root = await project();
      const client = await host(root, path);
      const { session } = await claimWork(client, root, "W", "edited");
      const revision = revisionOf(root);
      const human = WORK.replace("Outline the report", "Keep this human edit");
      await writeFile(join(root, "work.yaml"), human);
      const args: Record<string, Record<string, unknown>> = {
        awr_event_append: {
          expected_revision: revision,
          event_type: "work.observed",
          summary: "A candidate observation",
        },
        awr_evidence_record: {
          expected_revision: revision,
          external_key: "candidate",
          work: "W",
          evidence_type: "note",
          level: "implemented",
          summary: "A candidate note",
          locator: "report.json",
          scope: ["W"],
        },
        awr_work_transition: { ...action(root, session, "progress"), expected_revision: revision },
      };
      if (tool === "awr_work_transition") {
        await failure(client, tool, args[tool] as Record<string, unknown>, "SourceConflict");
        expect(revisionOf(root)).toBe(revision);
        await failure(client, "awr_project_status", { view: "full" }, "SourceStale");
        await reindex(client, root);
      } else {
        await failure(client, tool, args[tool] as Record<string, unknown>, "RevisionConflict");
      }
      expect(await readText(root, "work.yaml")).toBe(human);
      expect(revisionOf(root)).toBeGreaterThan(revision);
      const work = await call(client, "awr_work_get", { work: "W" });
      expect(work["work"]).toMatchObject({ status: "ready", next_action: "Keep this human edit" });
      await failure(client, "awr_evidence_record", { external_key: "x" }, "InvalidInput");
      await call(client, "awr_project_status", { view: "full" });
    });
  }
});
