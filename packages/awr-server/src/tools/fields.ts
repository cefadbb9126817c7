import {
  EVIDENCE_LEVELS as LEDGER_EVIDENCE_LEVELS,
  SESSION_END_STATUSES,
  SESSION_STATUSES,
  WORK_ACTIONS,
} from "@awr/awr-ledger";
import { z } from "zod";

/**
 * Bounded building blocks for the tool input schemas. Every string, list and number is bounded
 * so that a schema alone refuses oversized or nonsensical input before the ledger sees it.
 */

/** Identifiers: work keys, session ids, conversation strings, wait and checkpoint ids. */
export const id = (what: string) => z.string().min(1).max(256).describe(what);

/** Short labels: agent, provider, model, event type, evidence keys. */
export const label = (what: string) => z.string().min(1).max(256).describe(what);

/** Free text written by an agent: summaries, next actions, questions, answers. */
export const text = (what: string) => z.string().max(65_536).describe(what);

export const list = (what: string, item: z.ZodType = z.string().min(1).max(1024)) =>
  z.array(item).max(256).describe(what);

export const revision = (what: string) =>
  z.number().int().min(0).max(Number.MAX_SAFE_INTEGER).describe(what);

export const limit = () =>
  z.number().int().min(1).max(100).describe("How many items to return, 1..100 (default 20).");

export const ttlMs = () =>
  z
    .number()
    .int()
    .min(1000)
    .max(30 * 24 * 3600 * 1000)
    .describe("Claim lifetime in milliseconds (1 second .. 30 days); omit for no expiry.");

/** A request id is bounded in UTF-8 bytes, as the journal stores it. */
export const requestId = () =>
  z
    .string()
    .min(1)
    .max(256)
    .refine((value) => Buffer.byteLength(value, "utf8") <= 256, {
      message: "request_id must be 1..256 bytes of UTF-8",
    })
    .describe(
      "Your stable id for this write (1..256 bytes). Reusing it with the same arguments replays the recorded result instead of acting twice; changed arguments need a new id.",
    );

export const expectedRevision = () =>
  revision(
    "The project_revision you last saw. The write is refused with RevisionConflict {expected, actual} if the project moved on; read again and reconsider.",
  );

/** Session addressing shared by every tool that acts on a session (TOOLS.md). */
export const sessionAddress = {
  session: id("Session id. Give this or `conversation`, not two that disagree.").optional(),
  conversation: id(
    "Your host's stable conversation id; names this client's session bound to it.",
  ).optional(),
};

/** The ledger's levels plus `unknown`, which a caller may record but which satisfies nothing. */
export const EVIDENCE_LEVELS = [...LEDGER_EVIDENCE_LEVELS, "unknown"] as const;

// The ledger's own code tables, so the schemas can never drift from what it accepts.
export { SESSION_END_STATUSES, SESSION_STATUSES, WORK_ACTIONS };
