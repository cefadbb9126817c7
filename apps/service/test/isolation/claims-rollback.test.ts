import { describe, expect } from "vitest";
import { BACKENDS } from "./support/backends.js";
import { condition } from "./support/condition.js";
import { dropFault, installFault } from "./support/fault-trigger.js";
import { AGENT, withCase } from "./support/isolation-case.js";
import { rows } from "./support/snapshot.js";
import { sessionStartArgs, startSession } from "./support/steps.js";
import { waitPast } from "./support/wait-until.js";

/** Conditions 11 and 12: refused and failed claim writes leave nothing behind. */

const AGENT_FLAGS = ["--agent", AGENT.agent, "--provider", AGENT.provider, "--model", AGENT.model];

describe.each(BACKENDS)("%s", (backend) => {
  condition("claim_ttl_invalid_rolls_back", () =>
    withCase(backend, async (c) => {
      const [p] = await c.contenders("agent");
      // A session without a claim, for `awr session claim`.
      const open = await startSession(c, p!, { work: "X", conversation: "conv-x" });
      const before = await c.snapshot();
      const revision = await c.revision();
      for (const ttl of [0, Number.MAX_SAFE_INTEGER]) {
        const answer = await p!.call(
          "awr_session_start",
          sessionStartArgs({ conversation: `conv-ttl-${ttl}`, claim: true, ttlMs: ttl }, revision),
        );
        expect({ ttl, isError: answer.isError, code: answer.body.code }).toEqual({
          ttl,
          isError: true,
          code: "InvalidInput",
        });
      }
      const started = await c.awr(
        "session",
        "start",
        "W",
        "--conversation",
        "conv-cli",
        ...AGENT_FLAGS,
        "--claim",
        "--ttl-ms",
        "0",
      );
      const claimed = await c.awr("session", "claim", open.session.id, "--ttl-ms", "0");
      for (const run of [started, claimed]) {
        expect(run.code).not.toBe(0);
        expect(run.error().code).toBe("InvalidInput");
      }
      expect(await c.snapshot()).toEqual(before);
    }),
  );

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
