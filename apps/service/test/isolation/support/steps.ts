import { expect } from "vitest";
import type { Contender } from "./contender.js";
import { AGENT, type IsolationCase } from "./isolation-case.js";

/**
 * The set-up steps the conditions share, each one call at the project's current revision. They
 * set the stage; the condition under test is always asserted in the test itself.
 */

export interface StartedSession {
  session: { id: string; branch_id?: string | null; work: string };
  claim: { id: string; expires_at: number | null; branch_id?: string | null } | null;
  project_revision: number;
}

export interface SessionOptions {
  work?: string;
  conversation: string;
  branch?: string | null;
  claim?: boolean;
  ttlMs?: number;
}

export function sessionStartArgs(o: SessionOptions, revision: number): Record<string, unknown> {
  return {
    work: o.work ?? "W",
    conversation: o.conversation,
    ...AGENT,
    expected_revision: revision,
    ...(o.claim ? { claim: true } : {}),
    ...(o.ttlMs === undefined ? {} : { ttl_ms: o.ttlMs }),
    ...(o.branch === undefined ? {} : { branch: o.branch }),
  };
}

export async function startSession(
  c: IsolationCase,
  p: Contender,
  o: SessionOptions,
): Promise<StartedSession> {
  const body = await p.ok("awr_session_start", sessionStartArgs(o, await c.revision()));
  return body as unknown as StartedSession;
}

/** Who the branch commands record as acting (`--actor` is required, as in the original). */
const WHO = ["--actor", "isolation-suite"];

/** `awr branch create NAME` as its own process; returns the new branch's id. */
export async function createBranch(c: IsolationCase, name: string): Promise<string> {
  const created = await c.awrOk<{ branch: { id: string; name: string } }>(
    "branch",
    "create",
    name,
    ...WHO,
    "--reason",
    `the isolation suite needs branch ${name}`,
  );
  expect(created.branch.name).toBe(name);
  return created.branch.id;
}

/** `awr branch switch REF` as its own process. */
export function switchBranch(c: IsolationCase, ref: string): Promise<Record<string, unknown>> {
  return c.awrOk("branch", "switch", ref, ...WHO, "--reason", `the isolation suite selects ${ref}`);
}

export async function saveCheckpoint(
  c: IsolationCase,
  p: Contender,
  session: string,
  nextAction: string,
): Promise<{ id: string }> {
  const body = await p.ok("awr_session_checkpoint", {
    session,
    context_hash: `hash-${session}`,
    digest: `digest of ${session}`,
    next_action: nextAction,
    expected_revision: await c.revision(),
  });
  return body["checkpoint"] as { id: string };
}

export async function endSession(c: IsolationCase, p: Contender, session: string): Promise<void> {
  await p.ok("awr_session_end", {
    session,
    outcome: "ended",
    expected_revision: await c.revision(),
  });
}
