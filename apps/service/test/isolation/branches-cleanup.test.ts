import { describe, expect } from "vitest";
import { BACKENDS } from "./support/backends.js";
import { condition } from "./support/condition.js";
import { withCase } from "./support/isolation-case.js";
import { rows } from "./support/snapshot.js";
import { createBranch, startSession } from "./support/steps.js";

/** Condition 18: ending and interrupting sessions (19 is in branches-closed.test.ts). */

describe.each(BACKENDS)("%s", (backend) => {
  condition("branch_cleanup_scope", () =>
    withCase(backend, async (c) => {
      // Contenders start beside the set-up; they answer once it is done.
      const starting = c.contenders("agent");
      await createBranch(c, "a");
      await createBranch(c, "b");
      const [p] = await starting;
      const on: Record<string, Awaited<ReturnType<typeof startSession>>> = {};
      for (const branch of ["main", "a", "b"]) {
        on[branch] = await startSession(c, p!, {
          conversation: `conv-${branch}`,
          branch,
          claim: true,
        });
      }
      const claimOf = async (branch: string) =>
        rows(await c.snapshot(), "claims").find((k) => k["id"] === on[branch]?.claim?.id);
      const bClaim = await claimOf("b");

      await c.awrOk("session", "end", on["a"]?.session.id as string);
      expect(await claimOf("a")).toMatchObject({ status: "released" });
      expect(await claimOf("main")).toMatchObject({ status: "active" });

      const interrupted = await c.awrOk<{ receipt: { event: { id: string } } }>(
        "doctor",
        "repair",
        "interrupt-session",
        on["main"]?.session.id as string,
        "--expected-revision",
        String(await c.revision()),
        "--reason",
        "its process is gone",
      );
      const snap = await c.snapshot();
      expect(rows(snap, "sessions").find((s) => s["id"] === on["main"]?.session.id)).toMatchObject({
        status: "interrupted",
      });
      expect(await claimOf("main")).toMatchObject({ status: "released" });
      expect(
        rows(snap, "events").find((e) => e["id"] === interrupted.receipt.event.id),
      ).toMatchObject({
        type: "session.interrupted",
        branch: null,
      });
      expect(rows(snap, "sessions").find((s) => s["id"] === on["b"]?.session.id)).toMatchObject({
        status: "active",
      });
      expect(await claimOf("b")).toEqual(bClaim);
    }),
  );
});
