import { storageDialect } from "@awr/awr-ledger/testing";
import { sql } from "kysely";
import { describe, expect, it } from "vitest";
import {
  CALLER,
  harnessPerCase,
  ledgerFailure,
  ONE_READY,
  startSession,
} from "./fixtures/runtime/harness.js";
import { BACKENDS } from "./helpers/backends.js";

type Repair = Record<string, unknown> & {
  receipt: {
    action: Record<string, string>;
    event: Record<string, unknown>;
    project_revision: number;
  };
};

describe.each(BACKENDS)("awr doctor repair on %s", (backend) => {
  const h = harnessPerCase(backend);

  const repair = async (action: string, id: string, extra: Record<string, unknown> = {}) =>
    (await h.runtime.execute(
      "awr_doctor_repair",
      { action, id, reason: "the host is gone", expected_revision: await h.revision(), ...extra },
      CALLER,
    )) as Repair;

  /** Everything a refused repair must leave as it was. */
  const snapshot = async () => ({
    revision: await h.revision(),
    claims: await h.database.db.selectFrom("claims").selectAll().orderBy("id").execute(),
    sessions: await h.database.db.selectFrom("sessions").selectAll().orderBy("id").execute(),
    events: (await h.database.db.selectFrom("events").select("id").execute()).length,
  });

  const claimOf = async (options: { work: string; ttl_ms?: number }) => {
    const started = await startSession(h, {
      work: options.work,
      conversation: `c-${options.work}`,
      claim: true,
      ...(options.ttl_ms === undefined ? {} : { ttl_ms: options.ttl_ms }),
    });
    return { session: started.session.id, claim: (started.claim as { id: string }).id };
  };

  it("expires a claim whose deadline has passed, with the original's receipt", async () => {
    const { session, claim } = await claimOf({ work: "W-1", ttl_ms: 60_000 });
    h.clock.now += 120_000;
    const before = await h.revision();
    const result = await repair("expire_claim", claim);
    expect(result).toMatchObject({
      ok: true,
      repair_applied: true,
      read_only: false,
      source_refresh_performed: false,
      project_id: h.projectId,
      project_revision: before + 1,
      remaining_problems_evaluated: false,
      next_action: "Run doctor to inspect remaining findings.",
      receipt: {
        action: { kind: "expire_claim", claim_id: claim },
        project_revision: before + 1,
        event: {
          event_type: "claim.expired",
          session_id: session,
          work: "W-1",
          payload: {
            claim_id: claim,
            session_id: session,
            expired_at: Date.parse("2030-01-01T00:00:00Z") + 60_000,
            reconciled_at: h.clock.now,
            reason: "the host is gone",
          },
        },
      },
    });
    const row = await h.database.db
      .selectFrom("claims")
      .selectAll()
      .where("id", "=", claim)
      .executeTakeFirstOrThrow();
    expect(row.status).toBe("expired");
    const stored = await h.database.db
      .selectFrom("events")
      .selectAll()
      .where("id", "=", result.receipt.event["id"] as string)
      .executeTakeFirstOrThrow();
    expect(stored.type).toBe("claim.expired");
    // The session is left as it was: the repair touches exactly the named claim.
    const owner = await h.database.db
      .selectFrom("sessions")
      .select("status")
      .where("id", "=", session)
      .executeTakeFirstOrThrow();
    expect(owner.status).toBe("active");
    const report = (await h.runtime.execute("awr_doctor", {}, CALLER)) as {
      findings: { code: string }[];
    };
    expect(report.findings.map((f) => f.code)).toEqual(["active_session"]);
  });

  it("refuses an unexpired, an indefinite, a released and an unknown claim, changing nothing", async () => {
    const lasting = await claimOf({ work: "W-1", ttl_ms: 600_000 });
    const forever = await claimOf({ work: "W-2" });
    const refusals: [string, string][] = [
      [lasting.claim, "InvalidTransition"],
      [forever.claim, "InvalidTransition"],
      ["C-UNKNOWN", "NotFound"],
    ];
    for (const [claim, code] of refusals) {
      const before = await snapshot();
      const error = await ledgerFailure(repair("expire_claim", claim));
      expect({ claim, code: error.code }).toEqual({ claim, code });
      if (code === "InvalidTransition") {
        expect(error.message).toBe(`claim ${claim} is not an expired active claim`);
      }
      expect(await snapshot()).toEqual(before);
    }
    await h.runtime.call(
      "awr_session_end",
      { session: lasting.session, outcome: "ended", expected_revision: await h.revision() },
      CALLER,
    );
    h.clock.now += 1_200_000;
    const before = await snapshot();
    const released = await ledgerFailure(repair("expire_claim", lasting.claim));
    expect(released.code).toBe("InvalidTransition");
    expect(await snapshot()).toEqual(before);
  });

  it("decides expiry with the commit's clock: a claim that lapses before the write is expired", async () => {
    const { claim } = await claimOf({ work: "W-1", ttl_ms: 1_000 });
    const early = await ledgerFailure(repair("expire_claim", claim));
    expect(early.code).toBe("InvalidTransition");
    h.clock.now += 1_000;
    expect((await repair("expire_claim", claim)).repair_applied).toBe(true);
  });

  it("interrupts an active session: lapsed claims expire, claims in force are released", async () => {
    const lapsed = await claimOf({ work: "W-1", ttl_ms: 1_000 });
    const held = await claimOf({ work: "W-2" });
    h.clock.now += 5_000;
    const first = await repair("interrupt_session", lapsed.session);
    expect(first.receipt).toMatchObject({
      action: { kind: "interrupt_session", session_id: lapsed.session },
      event: {
        event_type: "session.interrupted",
        session_id: lapsed.session,
        payload: {
          session_id: lapsed.session,
          status: "interrupted",
          expired_claim_ids: [lapsed.claim],
          released_claim_ids: [],
          last_checkpoint_id: null,
          reason: "the host is gone",
        },
      },
    });
    const second = await repair("interrupt_session", held.session);
    expect(second.receipt.event["payload"]).toMatchObject({
      expired_claim_ids: [],
      released_claim_ids: [held.claim],
    });
    const sessions = await h.database.db
      .selectFrom("sessions")
      .select(["id", "status"])
      .orderBy("id")
      .execute();
    expect(sessions.every((s) => s.status === "interrupted")).toBe(true);
    const claims = await h.database.db.selectFrom("claims").select(["id", "status"]).execute();
    expect(Object.fromEntries(claims.map((c) => [c.id, c.status]))).toEqual({
      [lapsed.claim]: "expired",
      [held.claim]: "released",
    });
    const before = await snapshot();
    const again = await ledgerFailure(repair("interrupt_session", held.session));
    expect(again.code).toBe("InvalidTransition");
    expect(again.message).toBe(`session ${held.session} is interrupted`);
    expect((await ledgerFailure(repair("interrupt_session", "S-UNKNOWN"))).code).toBe("NotFound");
    expect(await snapshot()).toEqual(before);
  });

  it("is journaled under a request id: a retry replays, other arguments are refused", async () => {
    const { claim } = await claimOf({ work: "W-1", ttl_ms: 1_000 });
    h.clock.now += 5_000;
    const expected = await h.revision();
    const args = {
      action: "expire_claim",
      id: claim,
      reason: "gone",
      expected_revision: expected,
      request_id: "rep-1",
    };
    const first = (await h.runtime.execute("awr_doctor_repair", args, CALLER)) as Repair;
    expect(first.project_revision).toBe(expected + 3);
    const again = (await h.runtime.execute("awr_doctor_repair", args, CALLER)) as Repair;
    expect(again).toMatchObject({ replayed: true, receipt: first.receipt });
    expect(await h.revision()).toBe(expected + 3);
    const other = await ledgerFailure(
      h.runtime.execute("awr_doctor_repair", { ...args, reason: "another reason" }, CALLER),
    );
    expect(other.code).toBe("SourceConflict");
    const op = await h.runtime.execute("awr_operation_get", { request_id: "rep-1" }, CALLER);
    expect(op).toMatchObject({ status: "finished", tool: "awr_doctor_repair" });
  });

  it("checks the revision, refuses a blank reason, and names what the other repairs lack", async () => {
    const { claim } = await claimOf({ work: "W-1", ttl_ms: 1_000 });
    h.clock.now += 5_000;
    const stale = await ledgerFailure(repair("expire_claim", claim, { expected_revision: 0 }));
    expect(stale.code).toBe("RevisionConflict");
    const blank = await ledgerFailure(repair("expire_claim", claim, { reason: "   " }));
    expect(blank).toMatchObject({
      code: "InvalidInput",
      message: "reconciliation reason must not be empty",
    });
    const attempt = await ledgerFailure(repair("abandon_checkpoint", "A-1"));
    expect(attempt).toMatchObject({
      code: "NotFound",
      message:
        "no unfinished checkpoint save attempt A-1: checkpoints are saved in one transaction here",
    });
  });

  it("clears an invalid selected branch only, selecting main again", async () => {
    await h.database.db
      .insertInto("branches")
      .values({
        id: "B-1",
        name: "spike",
        parent_branch_id: null,
        git_ref: null,
        fork_revision: 0,
        status: "active",
        revision: 1,
        created_revision: 0,
        created_at: new Date(h.clock.now).toISOString(),
        closed_revision: null,
        closed_at: null,
      })
      .execute();
    const selected = () =>
      h.database.db
        .selectFrom("project_state")
        .select("current_branch_id")
        .executeTakeFirstOrThrow();
    const notCurrent = await ledgerFailure(repair("clear_invalid_branch", "B-1"));
    expect(notCurrent).toMatchObject({
      code: "InvalidTransition",
      message: "branch B-1 is not the project's current branch",
    });
    await h.database.db.updateTable("project_state").set({ current_branch_id: "B-1" }).execute();
    const before = await snapshot();
    const valid = await ledgerFailure(repair("clear_invalid_branch", "B-1"));
    expect(valid).toMatchObject({
      code: "InvalidTransition",
      message: "current branch B-1 is still valid",
    });
    expect(await snapshot()).toEqual(before);
    await h.database.db.updateTable("branches").set({ status: "abandoned" }).execute();
    const cleared = await repair("clear_invalid_branch", "B-1");
    expect(cleared.receipt).toMatchObject({
      action: { kind: "clear_invalid_branch", branch_id: "B-1" },
      event: {
        event_type: "branch.current_cleared",
        payload: { branch_id: "B-1", current_branch_id: null, reason: "the host is gone" },
      },
    });
    expect((await selected()).current_branch_id).toBeNull();
  });

  it("refuses every repair while the database is not intact", async () => {
    const { claim } = await claimOf({ work: "W-1", ttl_ms: 1_000 });
    h.clock.now += 5_000;
    await sql`DROP INDEX claims_session`.execute(h.database.db);
    const before = await snapshot();
    const error = await ledgerFailure(repair("expire_claim", claim));
    expect(error).toMatchObject({
      code: "Storage",
      message: "repair requires an intact current database; no migration was attempted",
    });
    expect(await snapshot()).toEqual(before);
  });
});

describe.each(BACKENDS)("a database failure inside a direct write on %s", (backend) => {
  const h = harnessPerCase(backend, ONE_READY);

  it("is Storage, after the transaction rolled back", async () => {
    const refuse = storageDialect(backend).choose({
      sqlite: [
        `CREATE TRIGGER refuse_events BEFORE INSERT ON events
               BEGIN SELECT RAISE(ABORT, 'receipts refused'); END`,
      ],
      postgres: [
        `CREATE FUNCTION refuse_events() RETURNS trigger LANGUAGE plpgsql AS $$
               BEGIN RAISE EXCEPTION 'receipts refused'; END $$`,
        `CREATE TRIGGER refuse_events BEFORE INSERT ON events
               FOR EACH ROW EXECUTE FUNCTION refuse_events()`,
      ],
    });
    for (const statement of refuse) await sql.raw(statement).execute(h.database.db);
    const before = await h.revision();
    const error = await ledgerFailure(startSession(h, { work: "W-1", conversation: "c-1" }));
    expect(error.code).toBe("Storage");
    expect(error.message).toContain("receipts refused");
    expect(error.message).toContain("the write was rolled back");
    expect(await h.revision()).toBe(before);
    expect(await h.database.db.selectFrom("sessions").selectAll().execute()).toEqual([]);
  });
});
