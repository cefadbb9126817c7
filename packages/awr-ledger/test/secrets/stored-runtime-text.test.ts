import { SYNTHETIC_VALUE } from "@awr/ledger-fixtures";
import { beforeEach, describe, expect, it } from "vitest";
import {
  CALLER,
  checkpoint,
  harnessPerCase,
  openWait,
  reply,
  startSession,
} from "../fixtures/runtime/harness.js";
import { BACKENDS } from "../helpers/backends.js";

/**
 * The secret policy on runtime text returned as stored (session get, list and resume, operation
 * get), both backends. Writes refuse credentials, so values planted straight into the tables
 * stand for text stored before the policy: each string holding one is shown as `[redacted]`,
 * and every other field is returned unchanged.
 */

const PLANTED = `password: ${SYNTHETIC_VALUE}`;

describe.each(BACKENDS)("secret policy on stored runtime text, %s", (backend) => {
  const h = harnessPerCase(backend);
  let session: string;
  beforeEach(async () => {
    session = (await startSession(h, { work: "W-1", conversation: "conv-1" })).session.id;
    const wait = await openWait(h, session, { question: "which port?", digest: "asked" });
    await reply(h, wait.wait.id, "8080");
    await checkpoint(h, session, "clean digest");
    const db = h.database.db;
    await db
      .updateTable("checkpoints")
      .set({ digest: `Deployed with ${PLANTED}`, open_loops: JSON.stringify(["ok", PLANTED]) })
      .where("session", "=", session)
      .execute();
    await db.updateTable("waits").set({ question: PLANTED, answer: PLANTED }).execute();
    await db.updateTable("sessions").set({ summary: PLANTED }).where("id", "=", session).execute();
  });

  it("shows each stored string holding a credential as [redacted] in session get and list", async () => {
    const got = await h.runtime.call("awr_session_get", { session }, CALLER);
    expect(got.session.summary).toBe("[redacted]");
    expect(got.checkpoint).toMatchObject({
      digest: "[redacted]",
      next_action: "carry on",
      open_loops: ["ok", "[redacted]"],
    });
    expect(got.waits.map((w) => [w.question, w.reply])).toContainEqual([
      "[redacted]",
      "[redacted]",
    ]);
    const listed = await h.runtime.call("awr_session_list", {}, CALLER);
    expect(listed.sessions.find((s) => s.id === session)?.summary).toBe("[redacted]");
    expect(listed.sessions.find((s) => s.id === session)?.conversation).toBe("conv-1");
    expect(JSON.stringify([got, listed])).not.toContain(SYNTHETIC_VALUE);
  });

  it("neither returns nor records the predecessor's stored credential on resume", async () => {
    const resumed = await h.runtime.call(
      "awr_session_resume",
      {
        session,
        conversation: "conv-2",
        agent: "agent-a",
        provider: "prov",
        model: "model-1",
        request_id: "resume-1",
        expected_revision: await h.revision(),
      },
      CALLER,
    );
    expect(resumed.predecessor.summary).toBe("[redacted]");
    const recorded = await h.runtime.call("awr_operation_get", { request_id: "resume-1" }, CALLER);
    expect(recorded.result).toMatchObject({ predecessor: { summary: "[redacted]" } });
    const rows = await h.database.db.selectFrom("operations").select("result").execute();
    expect(JSON.stringify([resumed, recorded, rows])).not.toContain(SYNTHETIC_VALUE);
  });

  it("redacts a recorded result that holds a credential in operation get", async () => {
    await h.runtime.call(
      "awr_event_append",
      {
        event_type: "note",
        summary: "clean",
        request_id: "note-1",
        expected_revision: await h.revision(),
      },
      CALLER,
    );
    await h.database.db
      .updateTable("operations")
      .set({ result: JSON.stringify({ project_revision: 1, echoed: PLANTED }) })
      .where("request_id", "=", "note-1")
      .execute();
    const recorded = await h.runtime.call("awr_operation_get", { request_id: "note-1" }, CALLER);
    expect(recorded.result).toEqual({ project_revision: 1, echoed: "[redacted]" });
    expect(recorded.request_id).toBe("note-1");
  });
});
