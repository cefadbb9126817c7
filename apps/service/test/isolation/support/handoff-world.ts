import { expect } from "vitest";
import type { Contender } from "./contender.js";
import type { IsolationCase } from "./isolation-case.js";
import { rows, type Snapshot } from "./snapshot.js";
import { createBranch, type StartedSession, saveCheckpoint, startSession } from "./steps.js";

/**
 * The world of conditions 16 and 17, and the handoff they share: branches a and b, a sender and
 * a receiver on a, a claim on b; the handoff refuses the session on b and succeeds to the receiver.
 */

export interface HandoffWorld {
  a: string;
  sender: StartedSession;
  receiver: StartedSession;
  onB: StartedSession;
  checkpoint: string;
  p: Contender;
}

/** Branches a and b; on a a sender with a 60 s claim and a checkpoint, and a receiver; on b a claim. */
export async function handoffWorld(c: IsolationCase): Promise<HandoffWorld> {
  const starting = c.contenders("agent");
  const a = await createBranch(c, "a");
  await createBranch(c, "b");
  const [p] = await starting;
  const sender = await startSession(c, p!, {
    conversation: "conv-sender",
    branch: "a",
    claim: true,
    ttlMs: 60_000,
  });
  const receiver = await startSession(c, p!, { conversation: "conv-receiver", branch: "a" });
  const onB = await startSession(c, p!, { conversation: "conv-b", branch: "b", claim: true });
  const checkpoint = (await saveCheckpoint(c, p!, sender.session.id, "Hand the recount over")).id;
  return { a, sender, receiver, onB, checkpoint, p: p! };
}

export const claimRow = (snap: Snapshot, id: string) =>
  rows(snap, "claims").find((k) => k["id"] === id);

export interface Handoff {
  handoff: {
    checkpoint: { id: string; session: string };
    transferred_claim: {
      id: string;
      branch_id: string;
      session_id: string;
      expires_at: number;
    } | null;
  };
}

/** Runs the handoff of condition 16, checking it as it goes; returns the transferred claim. */
export async function handOver(c: IsolationCase, w: HandoffWorld): Promise<Handoff["handoff"]> {
  const before = await c.snapshot();
  const wrong = await c.awr(
    "work",
    "handoff",
    "W",
    "--session",
    w.sender.session.id,
    "--to-session",
    w.onB.session.id,
  );
  expect({ exit: wrong.code, code: wrong.error().code }).toEqual({ exit: 1, code: "InvalidInput" });
  expect(await c.snapshot()).toEqual(before);
  const done = await c.awrOk<Handoff>(
    "work",
    "handoff",
    "W",
    "--session",
    w.sender.session.id,
    "--to-session",
    w.receiver.session.id,
  );
  expect(done.handoff.transferred_claim).toMatchObject({
    branch_id: w.a,
    session_id: w.receiver.session.id,
    expires_at: w.sender.claim?.expires_at,
  });
  expect(done.handoff.checkpoint).toMatchObject({
    id: w.checkpoint,
    session: w.sender.session.id,
  });
  return done.handoff;
}
