import { describe, expect } from "vitest";
import { BACKENDS } from "./support/backends.js";
import { condition } from "./support/condition.js";
import { AGENT, withCase } from "./support/isolation-case.js";
import { rows } from "./support/snapshot.js";
import { createBranch, sessionStartArgs, startSession } from "./support/steps.js";
import { waitPast } from "./support/wait-until.js";

/** Conditions 8 and 9: `awr doctor repair expire-claim` and what it may touch. */

const AGENT_FLAGS = ["--agent", AGENT.agent, "--provider", AGENT.provider, "--model", AGENT.model];

interface Finding {
  code: string;
  object_kind: string;
  object_id: string;
  repair: { kind: string; claim_id?: string } | null;
}

describe.each(BACKENDS)("%s", (backend) => {
  condition("claim_protect_unexpired_and_indefinite", () =>
    withCase(backend, async (c) => {
      const [p] = await c.contenders("contender");
      // W's claim has no deadline; X's deadline is a minute ahead.
      for (const [work, ttl] of [
        ["W", []],
        ["X", ["--ttl-ms", "60000"]],
      ] as const) {
        const held = await c.awrOk<{ claim: { id: string } }>(
          "session",
          "start",
          work,
          "--conversation",
          `conv-${work}`,
          ...AGENT_FLAGS,
          "--claim",
          ...ttl,
        );
        const before = await c.snapshot();
        const revision = await c.revision();
        const repair = await c.awr(
          "doctor",
          "repair",
          "expire-claim",
          held.claim.id,
          "--expected-revision",
          String(revision),
          "--reason",
          "the holder looks gone",
        );
        expect({ work, exit: repair.code, code: repair.error().code }).toEqual({
          work,
          exit: 1,
          code: "InvalidTransition",
        });
        const taken = await p!.call(
          "awr_session_start",
          sessionStartArgs({ work, conversation: `conv-${work}-rival`, claim: true }, revision),
        );
        expect({ work, code: taken.body.code }).toEqual({ work, code: "ClaimConflict" });
        expect(await c.snapshot()).toEqual(before);
      }
    }),
  );

  condition("claim_expiry_scope", () =>
    withCase(backend, async (c) => {
      // Contenders start beside the set-up; they answer once it is done.
      const starting = c.contenders("agent");
      const a = await createBranch(c, "a");
      const b = await createBranch(c, "b");
      const [p] = await starting;
      const onMain = await startSession(c, p!, {
        conversation: "conv-main",
        branch: "main",
        claim: true,
      });
      const onA = await startSession(c, p!, {
        conversation: "conv-a",
        branch: "a",
        claim: true,
        ttlMs: 5,
      });
      const onB = await startSession(c, p!, {
        conversation: "conv-b",
        branch: "b",
        claim: true,
        ttlMs: 60_000,
      });
      await waitPast(onA.claim?.expires_at as number);
      const claimRow = (snap: Awaited<ReturnType<typeof c.snapshot>>, id: string) =>
        rows<{ id: string }>(snap, "claims").find((k) => k.id === id);
      const before = await c.snapshot();

      const doctor = await c.awr("doctor");
      const report = JSON.parse(doctor.stdout) as { findings: Finding[] };
      const expired = report.findings.filter((f) => f.code === "expired_claim");
      expect(expired).toEqual([
        expect.objectContaining({
          object_id: onA.claim?.id,
          repair: expect.objectContaining({ kind: "expire_claim", claim_id: onA.claim?.id }),
        }),
      ]);

      const repaired = await c.awrOk<{ receipt: { event: { id: string } } }>(
        "doctor",
        "repair",
        "expire-claim",
        onA.claim?.id as string,
        "--expected-revision",
        String(await c.revision()),
        "--reason",
        "its holder stopped",
      );
      const after = await c.snapshot();
      const receipt = rows<{ id: string; type: string; branch: string | null; session: string }>(
        after,
        "events",
      ).find((e) => e.id === repaired.receipt.event.id);
      expect(receipt).toMatchObject({ type: "claim.expired", branch: a, session: onA.session.id });
      expect(claimRow(after, onA.claim?.id as string)).toMatchObject({ status: "expired" });
      for (const other of [onMain, onB]) {
        expect(claimRow(after, other.claim?.id as string)).toEqual(
          claimRow(before, other.claim?.id as string),
        );
      }
      expect(claimRow(after, onB.claim?.id as string)).toMatchObject({
        status: "active",
        branch: b,
      });
    }),
  );
});
