import { describe, expect } from "vitest";
import { BACKENDS } from "./support/backends.js";
import { condition } from "./support/condition.js";
import type { Contender } from "./support/contender.js";
import type { IsolationCase } from "./support/isolation-case.js";
import { withCase } from "./support/isolation-case.js";
import { createBranch, startSession, switchBranch } from "./support/steps.js";

/**
 * Condition 4: exact-branch and session histories page without gaps or repeats, each event keeps
 * the branch it was written on, and changing the selection relabels nothing.
 */

interface Brief {
  id: string;
  session_id: string | null;
  branch_id: string | null;
  type: string;
}

/** Appends `n` events for `session`, retrying a RevisionConflict with the fresh revision. */
async function appendRacing(
  c: IsolationCase,
  p: Contender,
  session: string,
  n: number,
): Promise<void> {
  for (let i = 0; i < n; i++) {
    for (;;) {
      const answer = await p.call("awr_event_append", {
        event_type: "report.observed",
        summary: `count ${i} of ${session}`,
        session,
        expected_revision: await c.revision(),
      });
      if (!answer.isError) break;
      expect(answer.body.code).toBe("RevisionConflict");
    }
  }
}

/** Walks `awr event history ... --limit 1` page by page with --cursor; returns every event. */
async function walk(c: IsolationCase, filters: string[]): Promise<Brief[]> {
  const events: Brief[] = [];
  let cursor: unknown = null;
  for (let page = 0; page < 50; page++) {
    const args = [
      "event",
      "history",
      ...filters,
      "--event-type",
      "report.observed",
      "--limit",
      "1",
    ];
    if (cursor !== null) args.push("--cursor", JSON.stringify(cursor));
    const result = await c.awrOk<{ events: Brief[]; next_cursor: unknown }>(...args);
    expect(result.events.length).toBeLessThanOrEqual(1);
    events.push(...result.events);
    if (result.next_cursor === null || result.events.length === 0) return events;
    cursor = result.next_cursor;
  }
  throw new Error("event history did not end within 50 pages");
}

describe.each(BACKENDS)("%s", (backend) => {
  condition("event_branch_query_isolation", () =>
    withCase(backend, async (c) => {
      // Contenders start beside the set-up; they answer once it is done.
      const starting = c.contenders("main", "a", "b");
      const ids: Record<string, string | null> = { main: null };
      ids["a"] = await createBranch(c, "a");
      ids["b"] = await createBranch(c, "b");
      const contenders = await starting;
      const branches = ["main", "a", "b"] as const;
      const sessions: Record<string, string> = {};
      for (const [i, branch] of branches.entries()) {
        sessions[branch] = (
          await startSession(c, contenders[i]!, { conversation: `conv-${branch}`, branch })
        ).session.id;
      }
      await Promise.all(
        branches.map((branch, i) => appendRacing(c, contenders[i]!, sessions[branch] as string, 3)),
      );

      const walks = async () => {
        const out: Record<string, Brief[]> = {};
        for (const branch of branches) {
          const selector = branch === "main" ? ["--main"] : ["--branch", ids[branch] as string];
          const events = await walk(c, ["--session", sessions[branch] as string, ...selector]);
          expect(new Set(events.map((e) => e.id)).size).toBe(3);
          for (const event of events) {
            expect(event).toMatchObject({ session_id: sessions[branch], branch_id: ids[branch] });
          }
          out[branch] = events;
        }
        // The whole history in one page: the prefix check needs no paging (each page is a process).
        const all = await c.awrOk<{ events: Brief[] }>(
          "event",
          "history",
          "--event-type",
          "report.observed",
          "--limit",
          "100",
        );
        out["all"] = all.events;
        return out;
      };
      const before = await walks();
      expect(before["all"]).toHaveLength(9);
      await switchBranch(c, "b");
      const after = await walks();
      for (const branch of branches) expect(after[branch]).toEqual(before[branch]);
      expect(after["all"]?.slice(0, before["all"]?.length)).toEqual(before["all"]);
    }),
  );
});
