import { describe, expect } from "vitest";
import { BACKENDS } from "./support/backends.js";
import { condition } from "./support/condition.js";
import { dropFault, installFault } from "./support/fault-trigger.js";
import { AGENT, withCase } from "./support/isolation-case.js";
import { rows } from "./support/snapshot.js";
import { sessionStartArgs } from "./support/steps.js";
import { waitPast } from "./support/wait-until.js";

const AGENT_FLAGS = ["--agent", AGENT.agent, "--provider", AGENT.provider, "--model", AGENT.model];

/**
 * Condition 12, unmet on the merged code: a failed receipt insert inside a direct write must be
 * reported as `Storage` once the transaction has rolled back (docs/design/work-branches.md, "Error
 * codes"); the ledger answers MutationConflict. The rollback itself holds.
 */

describe.each(BACKENDS)("%s", (backend) => {
  condition("claim_event_failure_rollback", () =>
    withCase(backend, async (c) => {
      // Contenders start beside the set-up; they answer once it is done.
      const starting = c.contenders("agent");
      const lapsed = await c.awrOk<{ claim: { id: string; expires_at: number } }>(
        "session",
        "start",
        "W",
        "--conversation",
        "conv-old",
        ...AGENT_FLAGS,
        "--claim",
        "--ttl-ms",
        "5",
      );
      const [p] = await starting;
      await waitPast(lapsed.claim.expires_at);
      await installFault(c.location);
      const before = await c.snapshot();
      const args = sessionStartArgs({ conversation: "conv-new", claim: true }, await c.revision());
      const failed = await p!.call("awr_session_start", args);
      expect({ isError: failed.isError, code: failed.body.code }).toEqual({
        isError: true,
        code: "Storage",
      });
      expect(await c.snapshot()).toEqual(before);
      await dropFault(c.location);
      const retried = await p!.ok("awr_session_start", args);
      const won = retried["claim"] as { id: string };
      const claims = rows<{ id: string; status: string }>(await c.snapshot(), "claims");
      expect(claims.find((k) => k.id === lapsed.claim.id)?.status).toBe("expired");
      expect(claims.find((k) => k.id === won.id)?.status).toBe("active");
    }),
  );
});
