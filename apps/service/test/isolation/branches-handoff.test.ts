import { describe, expect } from "vitest";
import { BACKENDS } from "./support/backends.js";
import { condition } from "./support/condition.js";
import type { Contender } from "./support/contender.js";
import { claimRow, handOver, handoffWorld } from "./support/handoff-world.js";
import { withCase } from "./support/isolation-case.js";
import { switchBranch } from "./support/steps.js";

/** Condition 17: resume on the session's own branch, after the handoff of condition 16. */

interface Resumed {
  session: { id: string; branch_id: string };
  claim: { branch_id: string; expires_at: number } | null;
}

describe.each(BACKENDS)("%s", (backend) => {
  condition("branch_resume_binding", () =>
    withCase(backend, async (c) => {
      // Contenders start beside the set-up; they answer once it is done.
      const starting = c.contenders("resume-1", "resume-2");
      const w = await handoffWorld(c);
      const transferred = await handOver(c, w);
      const bBefore = claimRow(await c.snapshot(), w.onB.claim?.id as string);
      const resume = async (p: Contender) =>
        p.call("awr_session_resume", {
          session: w.receiver.session.id,
          conversation: "conv-successor",
          agent: "stock-agent",
          provider: "fixture",
          model: "none",
          expected_revision: await c.revision(),
        });
      // Main is selected: the receiver's branch a is not.
      const before = await c.snapshot();
      expect((await resume(w.p)).body.code).toBe("InvalidInput");
      expect(await c.snapshot()).toEqual(before);
      await switchBranch(c, "a");
      const contenders = await starting;
      const revision = await c.revision();
      const args = {
        session: w.receiver.session.id,
        conversation: "conv-successor",
        agent: "stock-agent",
        provider: "fixture",
        model: "none",
        expected_revision: revision,
      };
      const answers = await Promise.all(contenders.map((p) => p.call("awr_session_resume", args)));
      const loserIndex = answers.findIndex((a) => a.isError);
      expect(answers.filter((a) => a.isError)).toHaveLength(1);
      expect(answers[loserIndex]?.body.code).toBe("RevisionConflict");
      const retry = await contenders[loserIndex]!.call("awr_session_resume", {
        ...args,
        conversation: "conv-successor-2",
        expected_revision: await c.revision(),
      });
      expect(retry.body.code).toBe("InvalidTransition");
      const won = (answers[1 - loserIndex]!.body as { resumed: Resumed }).resumed;
      expect(won.session.branch_id).toBe(w.a);
      expect(won.claim).toMatchObject({
        branch_id: w.a,
        expires_at: transferred.transferred_claim?.expires_at,
      });
      expect(claimRow(await c.snapshot(), w.onB.claim?.id as string)).toEqual(bBefore);
    }),
  );
});
