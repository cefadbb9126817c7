import { describe, expect } from "vitest";
import { BACKENDS } from "./support/backends.js";
import { condition } from "./support/condition.js";
import { withCase } from "./support/isolation-case.js";
import { createBranch, endSession, saveCheckpoint, startSession } from "./support/steps.js";

/**
 * Condition 20: each branch continues from its own checkpoint; evidence recorded on every branch
 * is visible from each, current only on its own, historical elsewhere; source facts are shared.
 */
const SHA = "c".repeat(40);

interface Recorded {
  external_key: string;
  currency: string;
  reasons?: string[];
}

describe.each(BACKENDS)("%s", (backend) => {
  condition("branch_checkpoint_and_evidence_scoping", () =>
    withCase(backend, async (c) => {
      // Contenders start beside the set-up; they answer once it is done.
      const starting = c.contenders("agent");
      await createBranch(c, "a");
      await createBranch(c, "b");
      const [p] = await starting;
      const checkpoints: Record<string, string> = {};
      for (const branch of ["main", "a", "b"]) {
        const started = await startSession(c, p!, { conversation: `conv-${branch}`, branch });
        checkpoints[branch] = (
          await saveCheckpoint(c, p!, started.session.id, `Continue on ${branch}`)
        ).id;
        await endSession(c, p!, started.session.id);
        await p!.ok("awr_evidence_record", {
          external_key: `count-${branch}`,
          work: "W",
          evidence_type: "test",
          level: "locally_verified",
          summary: `the counts agree on ${branch}`,
          locator: `reports/${branch}.txt`,
          scope: ["The counts agree"],
          source_sha: SHA,
          branch,
          expected_revision: await c.revision(),
        });
      }
      const facts: unknown[] = [];
      for (const branch of ["main", "a", "b"]) {
        const context = await c.awrOk<{ checkpoint_id: string | null }>(
          "branch",
          "context",
          branch,
          "--work",
          "W",
        );
        expect({ branch, checkpoint: context.checkpoint_id }).toEqual({
          branch,
          checkpoint: checkpoints[branch],
        });
        const got = await p!.ok("awr_work_get", { work: "W", branch, source_sha: SHA });
        const recorded = (got["evidence"] as { recorded: Recorded[] }).recorded;
        const byKey = Object.fromEntries(recorded.map((r) => [r.external_key, r]));
        expect(Object.keys(byKey).sort()).toEqual(["count-a", "count-b", "count-main"]);
        for (const other of ["main", "a", "b"]) {
          const record = byKey[`count-${other}`] as Recorded;
          if (other === branch) {
            expect({ branch, other, currency: record.currency }).toEqual({
              branch,
              other,
              currency: "current",
            });
          } else {
            expect({ branch, other, currency: record.currency, reasons: record.reasons }).toEqual({
              branch,
              other,
              currency: "historical",
              reasons: expect.arrayContaining(["evidence belongs to a different branch"]),
            });
          }
        }
        const {
          active_claims: _a,
          expired_claims: _e,
          ...work
        } = got["work"] as Record<string, unknown>;
        facts.push({ work, source: (got["evidence"] as { source: unknown }).source });
      }
      expect(facts[1]).toEqual(facts[0]);
      expect(facts[2]).toEqual(facts[0]);
    }),
  );
});
