import { describe, expect } from "vitest";
import { BACKENDS } from "./support/backends.js";
import { condition } from "./support/condition.js";
import { AGENT, withCase } from "./support/isolation-case.js";
import { sessionStartArgs, startSession } from "./support/steps.js";

/** Condition 11: refused TTLs leave nothing behind (12 is in claims-rollback.unmet.test.ts). */

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
});
