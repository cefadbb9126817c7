import { ledgerStore, storageDialect } from "@awr/awr-ledger/testing";
import { sql } from "kysely";
import { afterEach, describe, expect, it } from "vitest";
import { BACKENDS } from "./helpers/backends.js";
import { type OpenProject, openFixtureProject } from "./helpers/projects.js";

const caller = { client: "stdio" };

describe.each(BACKENDS)("reads memoised per project revision on %s", (backend) => {
  let p: OpenProject | undefined;
  afterEach(async () => {
    await p?.close();
    p = undefined;
  });

  it("answers repeated reads identically and sees a claim and a transition at once", async () => {
    p = await openFixtureProject("basic", backend);
    const ledger = p.ledger;
    const firstStatus = await ledger.call("awr_project_status", { view: "full" }, caller);
    const firstReady = await ledger.call("awr_work_ready", {}, caller);
    expect(await ledger.call("awr_project_status", { view: "full" }, caller)).toEqual(firstStatus);
    expect(await ledger.call("awr_work_ready", {}, caller)).toEqual(firstReady);
    expect(firstReady.ready.map((i) => i.external_key)).toContain("PAY-2");

    const start = await ledger.call(
      "awr_session_start",
      {
        work: "PAY-2",
        conversation: "scale",
        agent: "a",
        provider: "p",
        model: "m",
        claim: true,
        expected_revision: firstStatus.project_revision,
      },
      caller,
    );
    const session = start.session.id;
    const claimedReady = await ledger.call("awr_work_ready", {}, caller);
    expect(claimedReady.ready.map((i) => i.external_key)).not.toContain("PAY-2");
    const held = claimedReady.blocked_sample.find((b) => b.external_key === "PAY-2");
    expect(held?.active_claims.map((c) => c.session_id)).toEqual([session]);
    const claimedStatus = await ledger.call("awr_project_status", { view: "full" }, caller);
    expect(claimedStatus.current).toContainEqual(
      expect.objectContaining({ external_key: "PAY-2" }),
    );

    await ledger.call(
      "awr_work_transition",
      {
        work: "PAY-2",
        action: "progress",
        session,
        reason: "start",
        expected_revision: claimedStatus.project_revision,
      },
      caller,
    );
    const progressed = await ledger.call("awr_project_status", { view: "full" }, caller);
    expect(progressed.counts["in_progress"]).toBe((firstStatus.counts["in_progress"] ?? 0) + 1);
    expect(progressed.counts["ready"]).toBe((firstStatus.counts["ready"] ?? 0) - 1);
    expect((await ledger.call("awr_work_get", { work: "PAY-2" }, caller)).work.status).toBe(
      "in_progress",
    );
  });

  it("keeps a work item's recent events on the (work, seq) index", async () => {
    p = await openFixtureProject("basic", backend);
    const db = ledgerStore(p.ledger).db;
    // Each database answers "which index serves this" in its own terms.
    await storageDialect(backend).choose({
      sqlite: async () => {
        const { rows } = await sql<{ detail: string }>`
          EXPLAIN QUERY PLAN SELECT id FROM events WHERE work = ${"PAY-2"}
          ORDER BY seq DESC LIMIT 10`.execute(db);
        const plan = rows.map((r) => r.detail).join("\n");
        expect(plan).toContain("events_work_seq");
        expect(plan).not.toContain("TEMP B-TREE");
      },
      postgres: async () => {
        const { rows } = await sql<{ indexname: string }>`
          SELECT indexname FROM pg_indexes
          WHERE tablename = 'events' AND schemaname = current_schema()`.execute(db);
        const names = rows.map((r) => r.indexname);
        expect(names).toContain("events_work_seq");
        expect(names).not.toContain("events_work");
      },
    })();
  });
});
