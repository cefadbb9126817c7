import { describe, expect } from "vitest";
import { BACKENDS } from "./support/backends.js";
import { condition } from "./support/condition.js";
import type { Contender } from "./support/contender.js";
import { AGENT, type IsolationCase, openCase, withCase } from "./support/isolation-case.js";
import { createBranch, switchBranch } from "./support/steps.js";

/**
 * Condition 3 (with the original's CLI/MCP supplement): a free-form event cannot pose as a
 * receipt or claim a binding it lacks, through a live awr-mcp and through `awr event append`
 * processes alike; every refusal leaves rows and source bytes as they were.
 */

const AGENT_FLAGS = ["--agent", AGENT.agent, "--provider", AGENT.provider, "--model", AGENT.model];
const RESERVED = ["claim.expired", "work.completed", "session.resumed", "branch.closed"];

interface Append {
  type?: string;
  session?: string;
  branch?: string;
  work?: string;
}

/** One append through the contender (MCP) or an `awr event append` process; its code or event. */
async function append(
  c: IsolationCase,
  via: Contender | "cli",
  a: Append,
): Promise<{ code?: string; event?: { session_id: string | null; branch_id: string | null } }> {
  const type = a.type ?? "report.observed";
  const summary = `observed via ${via === "cli" ? "cli" : "mcp"}`;
  if (via === "cli") {
    const flags = [
      ...(a.session ? ["--session", a.session] : []),
      ...(a.branch ? ["--branch", a.branch] : []),
      ...(a.work ? ["--work", a.work] : []),
    ];
    const run = await c.awr("event", "append", "--type", type, "--summary", summary, ...flags);
    if (run.code !== 0) return { code: run.error().code };
    return { event: run.json<{ event: { session_id: string; branch_id: string | null } }>().event };
  }
  const answer = await via.call("awr_event_append", {
    event_type: type,
    summary,
    expected_revision: await c.revision(),
    ...(a.session ? { session: a.session } : {}),
    ...(a.branch ? { branch: a.branch } : {}),
    ...(a.work ? { work: a.work } : {}),
  });
  if (answer.isError) return { code: answer.body.code as string };
  return { event: answer.body["event"] as { session_id: string; branch_id: string | null } };
}

describe.each(BACKENDS)("%s", (backend) => {
  condition("event_reserved_and_bound_provenance", () =>
    withCase(backend, async (c) => {
      // Contenders start beside the set-up; they answer once it is done.
      const starting = c.contenders("agent");
      const ids: Record<string, string | null> = { main: null };
      ids["review-a"] = await createBranch(c, "review-a");
      ids["review-b"] = await createBranch(c, "review-b");
      // One session per branch, each started by `awr session start` with its branch selected.
      const sessions: Record<string, string> = {};
      for (const branch of ["main", "review-a", "review-b"]) {
        if (branch !== "main") await switchBranch(c, branch);
        const started = await c.awrOk<{ session: { id: string; branch_id: string | null } }>(
          "session",
          "start",
          "W",
          "--conversation",
          `conv-${branch}`,
          ...AGENT_FLAGS,
        );
        expect(started.session.branch_id).toBe(ids[branch]);
        sessions[branch] = started.session.id;
      }
      await switchBranch(c, "main");
      const [p] = await starting;
      const elsewhere = await openCase(backend);
      try {
        const foreign = await elsewhere.awrOk<{ session: { id: string } }>(
          "session",
          "start",
          "W",
          "--conversation",
          "conv-foreign",
          ...AGENT_FLAGS,
        );
        const refusals: [Append, string][] = [
          ...RESERVED.map((type): [Append, string] => [{ type }, "InvalidInput"]),
          [{ session: sessions["review-a"], branch: "main" }, "InvalidInput"],
          [{ session: sessions["review-a"], branch: "review-b" }, "InvalidInput"],
          [{ session: sessions["main"], branch: "review-a" }, "InvalidInput"],
          [{ session: sessions["review-a"], work: "X" }, "InvalidInput"],
          [{ session: foreign.session.id }, "NotFound"],
        ];
        for (const via of [p!, "cli"] as const) {
          for (const [args, code] of refusals) {
            const before = await c.snapshot();
            const answer = await append(c, via, args);
            expect({ via: via === "cli" ? "cli" : "mcp", args, code: answer.code }).toEqual({
              via: via === "cli" ? "cli" : "mcp",
              args,
              code,
            });
            expect(await c.snapshot()).toEqual(before);
          }
          for (const branch of ["main", "review-a", "review-b"]) {
            for (const named of [true, false]) {
              const answer = await append(c, via, {
                session: sessions[branch],
                ...(named ? { branch } : {}),
              });
              expect({ branch, named, event: answer.event }).toEqual({
                branch,
                named,
                event: expect.objectContaining({
                  session_id: sessions[branch],
                  branch_id: ids[branch],
                }),
              });
            }
          }
        }
      } finally {
        await elsewhere.close();
      }
    }),
  );
});
