import { describe, expect } from "vitest";
import { BACKENDS } from "./support/backends.js";
import { condition } from "./support/condition.js";
import { openCase, withCase } from "./support/isolation-case.js";
import { createBranch, startSession } from "./support/steps.js";

/** Condition 10: only the holding session releases a claim. */

describe.each(BACKENDS)("%s", (backend) => {
  condition("claim_release_owner", () =>
    withCase(backend, async (c) => {
      // Contenders start beside the set-up; they answer once it is done.
      const starting = c.contenders("agent");
      await createBranch(c, "a");
      await createBranch(c, "b");
      const [p] = await starting;
      const onMain = await startSession(c, p!, { conversation: "conv-main", claim: true });
      const onA = await startSession(c, p!, { conversation: "conv-a", branch: "a", claim: true });
      const onB = await startSession(c, p!, { conversation: "conv-b", branch: "b", claim: true });
      // A session on main too, on other work: the same branch as the claim, not its holder.
      const sameBranch = await startSession(c, p!, { work: "X", conversation: "conv-x" });
      const before = await c.snapshot();
      const revision = await c.revision();
      for (const thief of [sameBranch, onB, onA]) {
        const answer = await p!.call("awr_session_claim", {
          action: "release",
          claim: onMain.claim?.id,
          session: thief.session.id,
          expected_revision: revision,
        });
        expect({ thief: thief.session.id, code: answer.body.code }).toEqual({
          thief: thief.session.id,
          code: "ClaimConflict",
        });
      }
      // Another project's process knows neither the session nor the claim.
      const other = await openCase(backend);
      try {
        const [q] = await other.contenders("other-project");
        const answer = await q!.call("awr_session_claim", {
          action: "release",
          claim: onMain.claim?.id,
          session: onMain.session.id,
          expected_revision: await other.revision(),
        });
        expect(answer.body.code).toBe("NotFound");
      } finally {
        await other.close();
      }
      expect(await c.snapshot()).toEqual(before);
    }),
  );
});
