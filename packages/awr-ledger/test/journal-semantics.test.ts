import { LedgerError } from "@awr/awr-ledger";
import { describe, expect, it } from "vitest";
import { operationList } from "../src/journal/operation-get.js";
import { runJournaledWrite } from "../src/journal/run-write.js";
import { CALLER, harnessPerCase, ONE_READY, openHarness } from "./fixtures/runtime/harness.js";
import { BACKENDS } from "./helpers/backends.js";
import { ledgerFailure } from "./helpers/failures.js";
import { replayOf, replayOfRecovered } from "./helpers/replay.js";

const failure = (promise: Promise<unknown>) => ledgerFailure(promise, "expected the call to fail");

describe.each(BACKENDS)("the request journal on %s", (backend) => {
  const h = harnessPerCase(backend, ONE_READY);

  const note = (expected: number, extra: { request_id?: string; summary?: string } = {}) => ({
    event_type: "note.added",
    summary: "hello",
    expected_revision: expected,
    ...extra,
  });

  it("spends a revision for started, for the domain commit and for finished, and returns the last", async () => {
    const result = await h.runtime.call("awr_event_append", note(0, { request_id: "r-1" }), CALLER);
    expect(result.project_revision).toBe(3);
    expect(await h.revision()).toBe(3);
    const types = await h.database.db
      .selectFrom("events")
      .select(["type", "revision", "operation_id"])
      .orderBy("seq")
      .execute();
    expect(types.map((e) => [e.type, Number(e.revision)])).toEqual([
      ["mcp.operation_started", 1],
      ["note.added", 2],
      ["mcp.operation_finished", 3],
    ]);
    expect(new Set(types.map((e) => e.operation_id)).size).toBe(1);
    expect(result.terminal_event?.type).toBe("note.added");
  });

  it("replays a finished request with replayed: true, spending no revision and running nothing", async () => {
    const first = await h.runtime.call("awr_event_append", note(0, { request_id: "r-1" }), CALLER);
    const again = await h.runtime.call("awr_event_append", note(0, { request_id: "r-1" }), CALLER);
    expect(again).toEqual(replayOf(first));
    expect(first.replayed).toBeUndefined();
    expect(first.operation).toEqual({
      id: expect.any(String),
      request_id: "r-1",
      status: "finished",
      replayed: false,
    });
    // The domain commit was revision 2, the final receipt 3.
    expect(first).toMatchObject({ receipt_project_revision: 2, project_revision: 3 });
    expect(await h.revision()).toBe(3);
    const notes = await h.database.db
      .selectFrom("events")
      .select("id")
      .where("type", "=", "note.added")
      .execute();
    expect(notes).toHaveLength(1);
  });

  it("answers a replay with the project's revision now, the recorded one as receipt_project_revision", async () => {
    const first = await h.runtime.call("awr_event_append", note(0, { request_id: "r-1" }), CALLER);
    await h.runtime.call("awr_event_append", note(3, { request_id: "r-2" }), CALLER);
    const again = await h.runtime.call("awr_event_append", note(0, { request_id: "r-1" }), CALLER);
    expect(await h.revision()).toBe(6);
    expect(again).toEqual({
      ...replayOf(first),
      receipt_project_revision: 2,
      project_revision: 6,
    });
  });

  it("refuses the same request_id with other arguments as SourceConflict and changes nothing", async () => {
    await h.runtime.call("awr_event_append", note(0, { request_id: "r-1" }), CALLER);
    const error = await failure(
      h.runtime.call(
        "awr_event_append",
        note(3, { request_id: "r-1", summary: "changed" }),
        CALLER,
      ),
    );
    expect(error.code).toBe("SourceConflict");
    expect(error.message).toContain("request_id already used with different arguments");
    expect(await h.revision()).toBe(3);
  });

  it("scopes request ids by client: another client's same id is a different request", async () => {
    await h.runtime.call("awr_event_append", note(0, { request_id: "r-1" }), CALLER);
    const other = await h.runtime.call("awr_event_append", note(3, { request_id: "r-1" }), {
      client: "reviewer",
    });
    expect(other.replayed).toBeUndefined();
    expect(other.project_revision).toBe(6);
  });

  it("answers a stale expected_revision with RevisionConflict {expected, actual} and journals nothing", async () => {
    await h.runtime.call("awr_event_append", note(0, { request_id: "first" }), CALLER);
    const error = await failure(
      h.runtime.call("awr_event_append", note(1, { request_id: "late" }), CALLER),
    );
    expect(error.code).toBe("RevisionConflict");
    expect(error.details).toEqual({ expected: 1, actual: 3 });
    expect(await h.revision()).toBe(3);
    expect(
      (await failure(h.runtime.call("awr_operation_get", { request_id: "late" }, CALLER))).code,
    ).toBe("NotFound");
  });

  it("applies a write without request_id directly: one revision, nothing journaled, nothing to replay", async () => {
    const result = await h.runtime.call("awr_event_append", note(0), CALLER);
    expect(result.project_revision).toBe(1);
    expect(result.request_id).toBeUndefined();
    expect(result.terminal_event).toBeUndefined();
    const types = await h.database.db
      .selectFrom("events")
      .select(["type", "operation_id"])
      .execute();
    expect(types).toEqual([{ type: "note.added", operation_id: null }]);
    expect(await h.database.db.selectFrom("operations").selectAll().execute()).toEqual([]);
    // The same call again is a new write, refused because the project moved on.
    expect((await failure(h.runtime.call("awr_event_append", note(0), CALLER))).code).toBe(
      "RevisionConflict",
    );
  });

  it("records a domain error as not committed and replays the same error", async () => {
    const failing = await openHarness(backend, {
      failWriteBack: () => new LedgerError("SourceConflict", "work-ledger.yaml changed underneath"),
    });
    try {
      await failing.seed([{ key: "W-1", status: "ready" }]);
      const start = await failing.runtime.call(
        "awr_session_start",
        {
          work: "W-1",
          conversation: "c",
          agent: "a",
          provider: "p",
          model: "m",
          claim: true,
          expected_revision: 0,
        },
        CALLER,
      );
      const input = {
        work: "W-1",
        action: "progress" as const,
        session: start.session.id,
        reason: "start",
        expected_revision: start.project_revision,
        request_id: "t-1",
      };
      const error = await failure(failing.runtime.call("awr_work_transition", input, CALLER));
      expect(error.code).toBe("SourceConflict");
      const op = await failing.runtime.call("awr_operation_get", { request_id: "t-1" }, CALLER);
      expect(op).toMatchObject({
        outcome: "recorded",
        write_outcome: "not_committed",
        error: { code: "SourceConflict" },
      });
      expect(op.domain_receipts).toEqual([]);
      const replay = await failure(failing.runtime.call("awr_work_transition", input, CALLER));
      expect(replay.code).toBe("SourceConflict");
      expect(replay.details).toMatchObject({ replayed: true, request_id: "t-1" });
      const row = await failing.database.db
        .selectFrom("entities")
        .select("status")
        .where("key", "=", "W-1")
        .executeTakeFirstOrThrow();
      expect(row.status).toBe("ready");
    } finally {
      await failing.close();
    }
  });

  it("shows the domain receipts of a request and hides it from other clients", async () => {
    const result = await h.runtime.call("awr_event_append", note(0, { request_id: "r-1" }), CALLER);
    const op = await h.runtime.call("awr_operation_get", { request_id: "r-1" }, CALLER);
    expect(op.domain_receipts.map((e) => e.event_type)).toEqual(["note.added"]);
    expect(op.domain_receipts[0]?.terminal).toBe(true);
    expect(op.next_action).toContain("recorded");
    expect(op.project_revision).toBe(result.project_revision);
    const error = await failure(
      h.runtime.call("awr_operation_get", { request_id: "r-1" }, { client: "someone-else" }),
    );
    expect(error.code).toBe("NotFound");
  });

  describe("with a request interrupted after it began", () => {
    // A non-LedgerError escaping the domain step leaves the request begun but unfinished,
    // exactly as a crash between the commits would; the process tests do it with SIGKILL.
    const cut = {
      event_type: "note.added",
      summary: "cut",
      expected_revision: 0,
      request_id: "cut",
    };
    const interrupted = (terminals: number) =>
      runJournaledWrite(
        h.ctx,
        {
          input: cut,
          caller: CALLER,
          domain: async (op) => {
            for (let i = 0; i < terminals; i++) {
              await op.commit((unit) =>
                unit.terminal({ type: "note.added", summary: `t${i}` }, { event: { n: i } }),
              );
            }
            throw new Error("the process died here");
          },
        },
        { tool: "awr_event_append" },
      ).catch((error: Error) => error);

    it("reports write_outcome unknown to the same request and to operation get, telling not to replay", async () => {
      await interrupted(1);
      const error = await failure(h.runtime.call("awr_event_append", cut, CALLER));
      expect(error.code).toBe("MutationConflict");
      expect(error.details).toMatchObject({ write_outcome: "unknown", request_id: "cut" });
      expect(error.message).toContain("Do not replay");
      const op = await h.runtime.call("awr_operation_get", { request_id: "cut" }, CALLER);
      expect(op).toMatchObject({ outcome: "unknown", write_outcome: "unknown", status: "started" });
      expect(op.next_action).toContain("awr_operation_recover");
      const unknown = await operationList(h.ctx, { outcome: "unknown" }, CALLER);
      expect(unknown.operations.map((o) => o.request_id)).toEqual(["cut"]);
    });

    it("recovers a request with exactly one terminal event as committed, rebuilt from that event", async () => {
      await interrupted(1);
      const before = await h.revision();
      const recovered = await h.runtime.call(
        "awr_operation_recover",
        { request_id: "cut", expected_revision: before },
        CALLER,
      );
      expect(recovered).toMatchObject({
        write_outcome: "committed",
        recovered: true,
        project_revision: before + 1,
      });
      expect(recovered.result).toMatchObject({
        event: { n: 0 },
        recovered: true,
        request_id: "cut",
      });
      const replay = await h.runtime.call("awr_event_append", cut, CALLER);
      expect(replay).toEqual(replayOfRecovered(recovered.result, "cut"));
      const again = await h.runtime.call(
        "awr_operation_recover",
        { request_id: "cut", expected_revision: 0 },
        CALLER,
      );
      expect(again).toMatchObject({ replayed: true, write_outcome: "committed", recovered: true });
      expect(await h.revision()).toBe(before + 1);
      expect((await operationList(h.ctx, { outcome: "recorded" }, CALLER)).operations).toHaveLength(
        1,
      );
    });

    it("recovers a request without a terminal event as not committed, and replays that outcome", async () => {
      await interrupted(0);
      const recovered = await h.runtime.call(
        "awr_operation_recover",
        { request_id: "cut", expected_revision: await h.revision() },
        CALLER,
      );
      expect(recovered).toMatchObject({ write_outcome: "not_committed", recovered: true });
      const replay = await failure(h.runtime.call("awr_event_append", cut, CALLER));
      expect(replay.code).toBe("MutationConflict");
      expect(replay.details).toMatchObject({ write_outcome: "not_committed", replayed: true });
    });

    it("refuses to recover a request with several terminal events as ambiguous", async () => {
      await interrupted(2);
      const before = await h.revision();
      const error = await failure(
        h.runtime.call(
          "awr_operation_recover",
          { request_id: "cut", expected_revision: before },
          CALLER,
        ),
      );
      expect(error.code).toBe("MutationConflict");
      expect(error.details?.["terminal_events"]).toHaveLength(2);
      expect(await h.revision()).toBe(before);
    });

    it("checks expected_revision before recording a recovery", async () => {
      await interrupted(1);
      const error = await failure(
        h.runtime.call(
          "awr_operation_recover",
          { request_id: "cut", expected_revision: 0 },
          CALLER,
        ),
      );
      expect(error.code).toBe("RevisionConflict");
      expect(
        (await h.runtime.call("awr_operation_get", { request_id: "cut" }, CALLER)).outcome,
      ).toBe("unknown");
    });
  });

  it("keeps events immutable: the database refuses UPDATE and DELETE", async () => {
    await h.runtime.call("awr_event_append", note(0), CALLER);
    await expect(
      h.database.db.updateTable("events").set({ summary: "forged" }).execute(),
    ).rejects.toThrow(/append-only/);
    await expect(h.database.db.deleteFrom("events").execute()).rejects.toThrow(/append-only/);
  });

  it("rejects with the signal's reason unchanged and journals nothing when cancelled", async () => {
    const controller = new AbortController();
    const reason = new Error("caller went away");
    controller.abort(reason);
    await expect(
      h.runtime.call("awr_event_append", note(0, { request_id: "gone" }), CALLER, {
        signal: controller.signal,
      }),
    ).rejects.toBe(reason);
    await expect(
      h.runtime.call("awr_operation_get", { request_id: "gone" }, CALLER, {
        signal: controller.signal,
      }),
    ).rejects.toBe(reason);
    expect(await h.revision()).toBe(0);
  });

  const base = { event_type: "note.added", summary: "s" };
  it.each([
    [base, "expected_revision"],
    [{ ...base, expected_revision: -1 }, "expected_revision"],
    [{ ...base, expected_revision: 0, request_id: "x".repeat(257) }, "request_id"],
    [{ ...base, expected_revision: 0, request_id: "" }, "request_id"],
    // An unknown argument is counted, never named: its name could carry a secret.
    [{ ...base, expected_revision: 0, surprise: true }, "1 unknown argument"],
    [{ ...base, event_type: "Not A Type", expected_revision: 0 }, "event_type"],
    [{ event_type: "note.added", expected_revision: 0 }, "summary"],
    [{ ...base, summary: "x".repeat(8193), expected_revision: 0 }, "summary"],
  ])("refuses bad input %j as InvalidInput saying %s", async (input, field) => {
    const error = await failure(h.runtime.call("awr_event_append", input as never, CALLER));
    expect(error.code).toBe("InvalidInput");
    expect(error.message).toContain(field);
    expect(error.message).not.toContain("surprise");
    expect(await h.revision()).toBe(0);
  });
});
