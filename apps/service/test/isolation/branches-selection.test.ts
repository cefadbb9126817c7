import { describe, expect } from "vitest";
import { BACKENDS } from "./support/backends.js";
import { condition } from "./support/condition.js";
import { withCase } from "./support/isolation-case.js";
import {
  createBranch,
  saveCheckpoint,
  sessionStartArgs,
  startSession,
  switchBranch,
} from "./support/steps.js";

/**
 * Condition 15: what the ledger picks unasked comes from the selected branch; what the caller
 * names is found on its own branch, and a filter disagreeing with it is refused. Our session
 * commands always name their session, so the original's ambiguity report for an implicit session
 * cannot arise; the implicit choices checked are the context's checkpoint and the binding reuse.
 */
describe.each(BACKENDS)("%s", (backend) => {
  condition("branch_session_selection", () =>
    withCase(backend, async (c) => {
      // Contenders start beside the set-up; they answer once it is done.
      const starting = c.contenders("agent");
      const ids: Record<string, string | null> = { main: null };
      ids["a"] = await createBranch(c, "a");
      ids["b"] = await createBranch(c, "b");
      const [p] = await starting;
      const sessions: Record<string, string> = {};
      const checkpoints: Record<string, string> = {};
      for (const branch of ["main", "a", "b"]) {
        const started = await startSession(c, p!, { conversation: `conv-${branch}`, branch });
        sessions[branch] = started.session.id;
        checkpoints[branch] = (
          await saveCheckpoint(c, p!, started.session.id, `Continue on ${branch}`)
        ).id;
      }
      await switchBranch(c, "b");

      const shown = await c.awrOk<{ session: { branch_id: string | null } }>(
        "session",
        "show",
        sessions["a"] as string,
      );
      expect(shown.session.branch_id).toBe(ids["a"]);

      const implicit = await c.awrOk<{ checkpoint_id: string | null }>(
        "context",
        "compile",
        "--work",
        "W",
      );
      expect(implicit.checkpoint_id).toBe(checkpoints["b"]);
      const named = await c.awrOk<{ checkpoint_id: string | null }>(
        "branch",
        "context",
        "a",
        "--work",
        "W",
      );
      expect(named.checkpoint_id).toBe(checkpoints["a"]);

      const disagreeing = await p!.call("awr_session_get", {
        session: sessions["a"],
        conversation: "conv-b",
      });
      expect(disagreeing.body.code).toBe("RuleViolation");

      const revision = await c.revision();
      const elsewhere = await p!.call(
        "awr_session_start",
        sessionStartArgs({ conversation: "conv-a", branch: "b" }, revision),
      );
      expect(elsewhere.body.code).toBe("SourceConflict");
      const reused = await p!.ok(
        "awr_session_start",
        sessionStartArgs({ conversation: "conv-a", branch: "a" }, revision),
      );
      expect(reused).toMatchObject({
        binding_reused: true,
        session: { id: sessions["a"], branch_id: ids["a"] },
      });
    }),
  );
});
