import { writeFile } from "node:fs/promises";
import { join } from "node:path";
import { describe, expect } from "vitest";
import { BACKENDS } from "./support/backends.js";
import { condition } from "./support/condition.js";
import { withCase } from "./support/isolation-case.js";
import { createBranch, endSession, startSession } from "./support/steps.js";

/**
 * Condition 19: a closed branch refuses new sessions and observations (each NotFound, nothing
 * changes) and stays readable: its record, its work and its event history.
 */

describe.each(BACKENDS)("%s", (backend) => {
  condition("branch_closed_mutation_rejection", () =>
    withCase(backend, async (c) => {
      // Contenders start beside the set-up; they answer once it is done.
      const starting = c.contenders("agent");
      const a = await createBranch(c, "a");
      const [p] = await starting;
      const ended = await startSession(c, p!, { conversation: "conv-a", branch: "a" });
      await p!.ok("awr_event_append", {
        event_type: "report.observed",
        summary: "aisle one counted on a",
        session: ended.session.id,
        expected_revision: await c.revision(),
      });
      await endSession(c, p!, ended.session.id);
      await writeFile(
        join(c.root, "abandoned.json"),
        JSON.stringify({
          version: 1,
          outcome: "abandoned",
          summary: "the recount moved elsewhere",
          open_loops: [],
        }),
      );
      await c.awrOk(
        "branch",
        "close",
        "a",
        "--input",
        join(c.root, "abandoned.json"),
        "--actor",
        "isolation-suite",
        "--reason",
        "the recount moved elsewhere",
      );
      const historyBefore = await c.awrOk<{ events: unknown[] }>("event", "history", "--branch", a);
      const before = await c.snapshot();
      const revision = await c.revision();
      const refused = [
        await p!.call("awr_session_start", {
          work: "W",
          conversation: "conv-late",
          agent: "stock-agent",
          provider: "fixture",
          model: "none",
          branch: "a",
          expected_revision: revision,
        }),
        await p!.call("awr_event_append", {
          event_type: "report.observed",
          summary: "too late",
          branch: "a",
          expected_revision: revision,
        }),
        await p!.call("awr_evidence_record", {
          external_key: "late-count",
          work: "W",
          evidence_type: "test",
          level: "locally_verified",
          summary: "late",
          locator: "counts.txt",
          scope: ["The counts agree"],
          branch: "a",
          expected_revision: revision,
        }),
      ];
      expect(refused.map((r) => r.body.code)).toEqual(["NotFound", "NotFound", "NotFound"]);
      const claim = await c.awr("session", "claim", ended.session.id);
      expect(claim.code).not.toBe(0);
      expect(await c.snapshot()).toEqual(before);
      const shown = await c.awrOk<{ record: { closure: unknown } }>("branch", "show", "a");
      expect(shown.record.closure).not.toBeNull();
      await c.awrOk("work", "show", "W", "--branch", "a");
      expect(await c.awrOk("event", "history", "--branch", a)).toEqual(historyBefore);
      expect(historyBefore.events.length).toBeGreaterThan(0);
    }),
  );
});
