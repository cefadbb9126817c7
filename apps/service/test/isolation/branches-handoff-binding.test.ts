import { describe, expect } from "vitest";
import { BACKENDS } from "./support/backends.js";
import { condition } from "./support/condition.js";
import { claimRow, handOver, handoffWorld } from "./support/handoff-world.js";
import { withCase } from "./support/isolation-case.js";

/** Condition 16: handoff within one work item and branch (17, resume, is in branches-handoff.test.ts). */

describe.each(BACKENDS)("%s", (backend) => {
  condition("branch_handoff_binding", () =>
    withCase(backend, async (c) => {
      const w = await handoffWorld(c);
      const bBefore = claimRow(await c.snapshot(), w.onB.claim?.id as string);
      await handOver(c, w);
      const shown = await c.awrOk<Record<string, unknown>>(
        "session",
        "show",
        w.receiver.session.id,
      );
      expect(JSON.stringify(shown)).toContain(w.checkpoint);
      const after = await c.snapshot();
      expect(claimRow(after, w.onB.claim?.id as string)).toEqual(bBefore);
      expect(bBefore).toMatchObject({ status: "active" });
    }),
  );
});
