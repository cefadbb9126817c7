import { isLedgerError } from "@awr/awr-ledger";
import { describe, expect, it } from "vitest";
import { runJournaledWrite } from "../src/journal/run-write.js";
import { CALLER, harnessPerCase, openHarness } from "./fixtures/runtime/harness.js";
import { BACKENDS } from "./helpers/backends.js";
import { replayOf } from "./helpers/replay.js";

function deferred(): { promise: Promise<void>; resolve(): void } {
  let resolve = () => {};
  const promise = new Promise<void>((r) => {
    resolve = r;
  });
  return { promise, resolve };
}

describe.each(BACKENDS)("concurrent writes on %s", (backend) => {
  const h = harnessPerCase(backend, []);

  it("lets exactly one of 64 writes at the same expected_revision win; the rest get RevisionConflict", async () => {
    const outcomes = await Promise.allSettled(
      Array.from({ length: 64 }, (_, i) =>
        h.runtime.call(
          "awr_event_append",
          {
            event_type: "note.race",
            summary: `w${i}`,
            expected_revision: 0,
            request_id: `race-${i}`,
          },
          CALLER,
        ),
      ),
    );
    const won = outcomes.filter((o) => o.status === "fulfilled");
    const lost = outcomes.flatMap((o) => (o.status === "rejected" ? [o.reason] : []));
    expect(won).toHaveLength(1);
    expect(lost).toHaveLength(63);
    for (const error of lost) {
      expect(isLedgerError(error, "RevisionConflict")).toBe(true);
      expect(error.details).toEqual({ expected: 0, actual: 3 });
    }
    const notes = await h.database.db
      .selectFrom("events")
      .select("id")
      .where("type", "=", "note.race")
      .execute();
    expect(notes).toHaveLength(1);
    expect(await h.revision()).toBe(3);
    const revisions = (await h.database.db.selectFrom("events").select("revision").execute()).map(
      (e) => Number(e.revision),
    );
    expect(new Set(revisions).size).toBe(revisions.length);
  });

  it("gives a storm of one request_id exactly one effect", async () => {
    const input = {
      event_type: "note.storm",
      summary: "once",
      expected_revision: 0,
      request_id: "storm",
    };
    const outcomes = await Promise.allSettled(
      Array.from({ length: 32 }, () => h.runtime.call("awr_event_append", { ...input }, CALLER)),
    );
    const results = outcomes.flatMap((o) => (o.status === "fulfilled" ? [o.value] : []));
    const original = results.find((r) => r.replayed === undefined);
    expect(original).toBeDefined();
    expect(results.filter((r) => r.replayed === undefined)).toHaveLength(1);
    const first = original as NonNullable<typeof original>;
    for (const r of results) expect(r).toEqual(r === first ? first : replayOf(first));
    // A call that looked while the first was between its commits is told the outcome is unknown.
    for (const o of outcomes) {
      if (o.status === "rejected") {
        expect(isLedgerError(o.reason, "MutationConflict")).toBe(true);
        expect(o.reason.details).toMatchObject({ write_outcome: "unknown" });
      }
    }
    const notes = await h.database.db
      .selectFrom("events")
      .select("id")
      .where("type", "=", "note.storm")
      .execute();
    expect(notes).toHaveLength(1);
    expect(await h.revision()).toBe(3);
    expect(await h.runtime.call("awr_event_append", { ...input }, CALLER)).toEqual(replayOf(first));
  });

  it("serves reads while a write holds the lock, and keeps other projects' writes independent", async () => {
    const other = await openHarness(backend);
    try {
      const gate = deferred();
      const entered = deferred();
      const slow = runJournaledWrite(
        h.ctx,
        {
          input: { expected_revision: 0, request_id: "slow" },
          caller: CALLER,
          // The project lock is held from before (a) to after (c); the domain waits inside it.
          domain: async (op) => {
            entered.resolve();
            await gate.promise;
            return op.commit(async (unit) => {
              const result = { event: { event_type: "note.slow" } };
              await unit.terminal({ type: "note.slow" }, result);
              return result;
            });
          },
        },
        { tool: "awr_event_append" },
      );
      await entered.promise;
      // A read of the busy project and a write to another project both finish meanwhile.
      expect((await h.runtime.call("awr_session_list", {}, CALLER)).sessions).toEqual([]);
      const elsewhere = await other.runtime.call(
        "awr_event_append",
        { event_type: "note.elsewhere", summary: "s", expected_revision: 0, request_id: "x" },
        CALLER,
      );
      expect(elsewhere.project_revision).toBe(3);
      gate.resolve();
      expect((await slow).project_revision).toBe(3);
    } finally {
      await other.close();
    }
  });
});
