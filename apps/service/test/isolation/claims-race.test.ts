import { describe, expect } from "vitest";
import { BACKENDS } from "./support/backends.js";
import { condition } from "./support/condition.js";
import type { ToolAnswer } from "./support/contender.js";
import { AGENT, withCase } from "./support/isolation-case.js";
import { rows } from "./support/snapshot.js";
import { waitPast } from "./support/wait-until.js";

/** Conditions 5-7: live awr-mcp processes racing for one claim at one expected revision. */

const start = (conversation: string, revision: number, extra: Record<string, unknown> = {}) => ({
  work: "W",
  conversation,
  ...AGENT,
  claim: true,
  expected_revision: revision,
  ...extra,
});

/** Splits a race's two answers into the winner and the loser (either may win the lock). */
function winnerAndLoser(answers: ToolAnswer[]): {
  winner: ToolAnswer;
  loser: ToolAnswer;
  loserIndex: number;
} {
  const loserIndex = answers.findIndex((a) => a.isError);
  expect(answers.filter((a) => a.isError)).toHaveLength(1);
  return {
    winner: answers[1 - loserIndex] as ToolAnswer,
    loser: answers[loserIndex] as ToolAnswer,
    loserIndex,
  };
}

describe.each(BACKENDS)("%s", (backend) => {
  condition("claim_compare_revision_processes", () =>
    withCase(backend, async (c) => {
      const [a, b] = await c.contenders("a", "b");
      const before = await c.revision();
      const answers = await Promise.all([
        a!.call("awr_session_start", start("conv-a", before)),
        b!.call("awr_session_start", start("conv-b", before)),
      ]);
      const { winner, loser } = winnerAndLoser(answers);
      expect(winner.body["session"]).toMatchObject({ work: "W", status: "active" });
      expect(winner.body["claim"]).toMatchObject({ work: "W", status: "active" });
      expect(loser.body).toMatchObject({
        code: "RevisionConflict",
        details: { expected: before, actual: before + 1 },
      });
      expect(await c.revision()).toBe(before + 1);
      const after = await c.snapshot();
      expect(rows(after, "sessions")).toHaveLength(1);
      expect(rows(after, "claims")).toHaveLength(1);
    }),
  );

  condition("claim_single_owner_processes", () =>
    withCase(backend, async (c) => {
      const contenders = await c.contenders("a", "b");
      const before = await c.revision();
      const answers = await Promise.all(
        contenders.map((p, i) => p.call("awr_session_start", start(`conv-${i}`, before))),
      );
      const { winner, loserIndex } = winnerAndLoser(answers);
      const holder = winner.body["session"] as { id: string };
      const afterRace = await c.snapshot();
      // The live loser retries with the fresh revision: the claim is taken, and it names its holder.
      const retry = await contenders[loserIndex]!.call(
        "awr_session_start",
        start(`conv-${loserIndex}`, before + 1),
      );
      expect(retry.isError).toBe(true);
      expect(retry.body.code).toBe("ClaimConflict");
      expect(JSON.stringify(retry.body)).toContain(holder.id);
      expect(await c.snapshot()).toEqual(afterRace);
      expect(rows(afterRace, "sessions").map((s) => s["id"])).toEqual([holder.id]);
    }),
  );

  condition("claim_expired_race_processes", () =>
    withCase(backend, async (c) => {
      // Contenders start beside the set-up; they answer once it is done.
      const starting = c.contenders("a", "b");
      const lapsed = await c.awrOk<{ claim: { id: string; expires_at: number } }>(
        "session",
        "start",
        "W",
        "--conversation",
        "conv-old",
        "--agent",
        AGENT.agent,
        "--provider",
        AGENT.provider,
        "--model",
        AGENT.model,
        "--claim",
        "--ttl-ms",
        "5",
      );
      const contenders = await starting;
      await waitPast(lapsed.claim.expires_at);
      const before = await c.revision();
      const answers = await Promise.all(
        contenders.map((p, i) => p.call("awr_session_start", start(`conv-${i}`, before))),
      );
      const { winner, loser, loserIndex } = winnerAndLoser(answers);
      expect(loser.body.code).toBe("RevisionConflict");
      const won = winner.body["claim"] as { id: string };
      const snap = await c.snapshot();
      const claims = rows<{ id: string; status: string }>(snap, "claims");
      expect(claims.find((k) => k.id === lapsed.claim.id)?.status).toBe("expired");
      expect(claims.find((k) => k.id === won.id)?.status).toBe("active");
      const events = rows<{ type: string; revision: number; payload: string }>(snap, "events");
      const expired = events.filter(
        (e) => e.type === "claim.expired" && e.payload.includes(lapsed.claim.id),
      );
      expect(expired).toHaveLength(1);
      expect(Number(expired[0]!.revision)).toBe(before + 1);
      const claimed = events.find(
        (e) => e.type === "work.claimed" && Number(e.revision) === before + 1,
      );
      expect(claimed?.payload).toContain(won.id);
      expect(JSON.parse(claimed?.payload ?? "{}")).toMatchObject({
        expired_claim_ids: [lapsed.claim.id],
      });
      const retry = await contenders[loserIndex]!.call(
        "awr_session_start",
        start(`conv-${loserIndex}`, before + 1),
      );
      expect(retry.body.code).toBe("ClaimConflict");
      expect(rows(await c.snapshot(), "sessions")).toHaveLength(2);
    }),
  );
});
