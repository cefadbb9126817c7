import { describe, expect } from "vitest";
import { BACKENDS } from "./support/backends.js";
import { condition } from "./support/condition.js";
import { withCase } from "./support/isolation-case.js";
import { rows, type Snapshot } from "./support/snapshot.js";
import {
  createBranch,
  type StartedSession,
  saveCheckpoint,
  sessionStartArgs,
  startSession,
  switchBranch,
} from "./support/steps.js";

/** Conditions 13 and 14: claims per branch, and a switch of the selection that moves nothing. */

/** awr_work_get's source facts of an item: everything but the runtime's claims. */
function sourceFacts(body: Record<string, unknown>): unknown {
  const {
    active_claims: _a,
    expired_claims: _e,
    ...work
  } = body["work"] as Record<string, unknown>;
  return { work, source_evidence: (body["evidence"] as { source: unknown }).source };
}

const RUNTIME_TABLES = ["sessions", "claims", "checkpoints", "events"] as const;

describe.each(BACKENDS)("%s", (backend) => {
  condition("branch_parallel_sessions_claims", () =>
    withCase(backend, async (c) => {
      // Contenders start beside the set-up; they answer once it is done.
      const starting = c.contenders("on-a", "on-b");
      const ids = { a: await createBranch(c, "a"), b: await createBranch(c, "b") };
      const contenders = await starting;
      const facts = sourceFacts(await contenders[0]!.ok("awr_work_get", { work: "W" }));
      const before = await c.revision();
      const branches = ["a", "b"] as const;
      const args = (i: number, revision: number) =>
        sessionStartArgs(
          { conversation: `conv-${branches[i]}`, branch: branches[i], claim: true },
          revision,
        );
      const answers = await Promise.all(
        contenders.map((p, i) => p.call("awr_session_start", args(i, before))),
      );
      const loserIndex = answers.findIndex((a) => a.isError);
      expect(answers.filter((a) => a.isError)).toHaveLength(1);
      expect(answers[loserIndex]?.body.code).toBe("RevisionConflict");
      answers[loserIndex] = await contenders[loserIndex]!.call(
        "awr_session_start",
        args(loserIndex, before + 1),
      );
      expect(await c.revision()).toBe(before + 2);
      const snap = await c.snapshot();
      for (const [i, answer] of answers.entries()) {
        const branch = ids[branches[i]!];
        expect(answer.isError, JSON.stringify(answer.body)).toBe(false);
        const session = answer.body["session"] as { id: string; branch_id: string };
        const claim = answer.body["claim"] as { id: string; branch_id: string };
        expect({ session: session.branch_id, claim: claim.branch_id }).toEqual({
          session: branch,
          claim: branch,
        });
        expect(rows(snap, "claims").find((k) => k["id"] === claim.id)).toMatchObject({
          status: "active",
          branch,
        });
        expect(
          rows(snap, "events").filter(
            (e) => e["type"] === "session.started" && e["session"] === session.id,
          ),
        ).toEqual([expect.objectContaining({ branch })]);
      }
      expect(sourceFacts(await contenders[0]!.ok("awr_work_get", { work: "W" }))).toEqual(facts);
      const ready = await c.awrOk<{ ready: Brief[]; blocked_sample: Brief[] }>(
        "ready",
        "--branch",
        "a",
      );
      const onA = answers[branches.indexOf("a")]?.body["claim"] as { id: string };
      const w = [...ready.ready, ...ready.blocked_sample].find((item) => item.external_key === "W");
      expect(w?.active_claims.map((k) => k.id)).toEqual([onA.id]);
    }),
  );

  condition("branch_switch_retains_ownership", () =>
    withCase(backend, async (c) => {
      // Contenders start beside the set-up; they answer once it is done.
      const starting = c.contenders("agent");
      const b = await createBranch(c, "b");
      await createBranch(c, "a");
      const [p] = await starting;
      const sessions: StartedSession[] = [];
      for (const branch of ["main", "a", "b"]) {
        sessions.push(
          await startSession(c, p!, { conversation: `conv-${branch}`, branch, claim: true }),
        );
      }
      const onA = sessions[1]!.session.id;
      await saveCheckpoint(c, p!, onA, "Recount aisle three");
      for (const summary of ["aisle one counted", "aisle two counted"]) {
        await p!.ok("awr_event_append", {
          event_type: "report.observed",
          summary,
          session: onA,
          expected_revision: await c.revision(),
        });
      }
      const shown = async () =>
        Promise.all(
          sessions.map(async (s) => (await c.awrOk("session", "show", s.session.id))["session"]),
        );
      const shownBefore = await shown();
      const before = await c.snapshot();
      const switched = await switchBranch(c, "b");
      expect(switched["selection"]).toEqual({
        previous_branch_id: null,
        current_branch_id: b,
        retained_active_sessions: 1,
        retained_active_claims: 1,
      });
      const after = await c.snapshot();
      const switchedEvents = rows(after, "events").filter(
        (e) => !before.tables["events"]?.includes(JSON.stringify(e)),
      );
      expect(switchedEvents.map((e) => e["type"])).toEqual(["branch.switched"]);
      for (const table of RUNTIME_TABLES) {
        const kept = table === "events" ? withoutNew(after, before, table) : after.tables[table];
        expect({ table, rows: kept }).toEqual({ table, rows: before.tables[table] });
      }
      const state = (snap: Snapshot) => rows(snap, "project_state")[0] ?? {};
      const { current_branch_id: was, revision: _r1, ...restBefore } = state(before);
      const { current_branch_id: now, revision: _r2, ...restAfter } = state(after);
      expect({ was, now, rest: restAfter }).toEqual({ was: null, now: b, rest: restBefore });
      expect(await shown()).toEqual(shownBefore);
    }),
  );
});

interface Brief {
  external_key: string;
  active_claims: { id: string }[];
}

/** The rows of `table` in `after` that `before` had too (the new ones dropped). */
function withoutNew(after: Snapshot, before: Snapshot, table: string): string[] {
  const had = new Set(before.tables[table]);
  return (after.tables[table] ?? []).filter((row) => had.has(row));
}
