import { createHash } from "node:crypto";
import type { Kysely } from "kysely";
import { LedgerError } from "../errors.js";
import { sql } from "../internal/kysely.js";
import { type EntityView, requireWork, tableExists } from "../read/entity-view.js";
import type { LedgerSchema } from "../storage/schema.js";
import { CONTEXT_SECTIONS, type ContextRecord, renderContext } from "./context-records.js";
import { gatherRecords } from "./gather-records.js";
import { countTokens } from "./tokens.js";

export interface ContextCompileInput {
  work?: string | undefined;
  session?: string | undefined;
  conversation?: string | undefined;
  detached?: boolean | undefined;
  budget?: number | undefined;
  intent?: string | undefined;
  paths?: string[] | undefined;
  tags?: string[] | undefined;
  goals?: string[] | undefined;
  checkpoint?: string | undefined;
  after_revision?: number | undefined;
}

export interface CompletenessEntry {
  section: string;
  ref: string;
  tokens: number;
}

export interface ContextCompileResult {
  project_revision: number;
  work: string | null;
  session: string | null;
  rendered_context: string;
  /** sha256 of rendered_context: identical inputs and ledger state give the same hash. */
  context_hash: string;
  /** o200k_base tokens of rendered_context; never above budget. */
  token_estimate: number;
  budget: number;
  /** The delta baseline (checkpoint revision or after_revision), or null for a full packet. */
  since_revision: number | null;
  completeness: {
    /** True when no record was left out for lack of budget. */
    complete: boolean;
    required: CompletenessEntry[];
    included: CompletenessEntry[];
    omitted: (CompletenessEntry & { reason: "budget" | "unchanged" })[];
  };
}

export const DEFAULT_CONTEXT_BUDGET = 5000;

interface SessionRow {
  id: string;
  work: string | null;
}

async function resolveSession(
  db: Kysely<LedgerSchema>,
  input: ContextCompileInput,
  client: string,
): Promise<SessionRow | null> {
  if (input.session === undefined && input.conversation === undefined) return null;
  if (!(await tableExists(db, "sessions"))) {
    throw new LedgerError(
      "NotFound",
      "No sessions exist in this ledger yet; start one with awr_session_start.",
    );
  }
  const { rows } =
    input.session !== undefined
      ? await sql<
          SessionRow & { conversation: string; client: string }
        >`SELECT id, work, conversation, client FROM sessions WHERE id = ${input.session}`.execute(
          db,
        )
      : await sql<SessionRow & { conversation: string; client: string }>`
          SELECT id, work, conversation, client FROM sessions WHERE client = ${client} AND conversation = ${input.conversation}
          ORDER BY start_revision DESC LIMIT 1`.execute(db);
  const row = rows[0];
  if (row === undefined) {
    throw new LedgerError(
      "NotFound",
      `Session ${input.session ?? `for conversation "${input.conversation}"`} not found; start one with awr_session_start.`,
      {
        session: input.session ?? null,
        conversation: input.conversation ?? null,
      },
    );
  }
  if (
    input.session !== undefined &&
    input.conversation !== undefined &&
    row.conversation !== input.conversation
  ) {
    throw new LedgerError(
      "InvalidInput",
      "session and conversation name different sessions; pass only one of them.",
    );
  }
  return { id: row.id, work: row.work };
}

async function loadCheckpoint(
  db: Kysely<LedgerSchema>,
  id: string | undefined,
  session: string | null,
) {
  if (!(await tableExists(db, "checkpoints"))) {
    if (id !== undefined)
      throw new LedgerError("NotFound", `Checkpoint ${id} not found.`, { checkpoint: id });
    return null;
  }
  const { rows } =
    id !== undefined
      ? await sql<{
          id: string;
          revision: number;
          digest: string;
          next_action: string | null;
          open_loops: string;
        }>`
          SELECT id, revision, digest, next_action, open_loops FROM checkpoints WHERE id = ${id}`.execute(
          db,
        )
      : session === null
        ? { rows: [] }
        : await sql<{
            id: string;
            revision: number;
            digest: string;
            next_action: string | null;
            open_loops: string;
          }>`
          SELECT id, revision, digest, next_action, open_loops FROM checkpoints WHERE session = ${session}
          ORDER BY revision DESC LIMIT 1`.execute(db);
  const row = rows[0];
  if (row === undefined) {
    if (id !== undefined)
      throw new LedgerError(
        "NotFound",
        `Checkpoint ${id} not found; list checkpoints with awr session show.`,
        { checkpoint: id },
      );
    return null;
  }
  return {
    id: row.id,
    revision: Number(row.revision),
    digest: row.digest,
    next_action: row.next_action,
    open_loops: JSON.parse(row.open_loops) as string[],
  };
}

function validate(input: ContextCompileInput): number {
  const budget = input.budget ?? DEFAULT_CONTEXT_BUDGET;
  if (!Number.isInteger(budget) || budget < 1 || budget > 100_000) {
    throw new LedgerError(
      "InvalidInput",
      `budget must be an integer from 1 to 100000 tokens; got ${String(input.budget)}.`,
    );
  }
  if (input.checkpoint !== undefined && input.after_revision !== undefined) {
    throw new LedgerError(
      "InvalidInput",
      "Pass checkpoint or after_revision, not both: each names the baseline of a delta.",
    );
  }
  if (
    input.after_revision !== undefined &&
    (!Number.isInteger(input.after_revision) || input.after_revision < 0)
  ) {
    throw new LedgerError(
      "InvalidInput",
      "after_revision must be a non-negative integer revision.",
    );
  }
  if (
    input.detached === true &&
    (input.session !== undefined || input.conversation !== undefined)
  ) {
    throw new LedgerError(
      "InvalidInput",
      "detached compiles without a session: drop session/conversation or detached.",
    );
  }
  return budget;
}

/**
 * Compiles a bounded, deterministic context packet. Required facts (the item, its acceptance,
 * hard rules in scope, unmet required dependencies, the session's pending waits) are never
 * dropped: if they alone exceed the budget the call fails with BudgetExceeded {required, budget}.
 * Everything else is added whole, by section priority, while it fits.
 */
export async function compileContext(
  db: Kysely<LedgerSchema>,
  input: ContextCompileInput,
  context: {
    client: string;
    revision: number;
    projectName: string;
    /** Only these entities may appear (a workstream reader's scope); default: all. */
    visible?: ((kind: string, key: string) => boolean) | undefined;
  },
): Promise<ContextCompileResult> {
  const budget = validate(input);
  const session = input.detached === true ? null : await resolveSession(db, input, context.client);
  const workKey = input.work ?? session?.work ?? null;
  if (workKey === null && input.detached !== true) {
    throw new LedgerError(
      "ContextIncomplete",
      "No work item to compile context for: pass work, a session bound to work, or detached: true for a project overview.",
    );
  }
  const work: EntityView | null = workKey === null ? null : await requireWork(db, workKey);
  const checkpoint = await loadCheckpoint(db, input.checkpoint, session?.id ?? null);
  const since =
    input.checkpoint !== undefined
      ? (checkpoint?.revision ?? null)
      : (input.after_revision ?? null);
  const records = await gatherRecords(db, context.revision, {
    work,
    session: session?.id ?? null,
    checkpoint: input.checkpoint !== undefined ? null : checkpoint,
    paths: input.paths ?? [],
    tags: input.tags ?? [],
    goals: input.goals ?? [],
    intent: input.intent ?? null,
    visible: context.visible,
  });
  const header = [
    `# AWR context: ${work === null ? `project ${context.projectName}` : `${work.key} — ${work.title}`}`,
    `project revision ${context.revision}${since === null ? "" : `; changes since revision ${since}`}`,
    input.intent === undefined ? null : `intent: ${input.intent.replace(/\s+/g, " ").trim()}`,
  ]
    .filter((l) => l !== null)
    .join("\n");

  const entry = (r: ContextRecord) => ({
    section: r.section,
    ref: r.ref,
    tokens: countTokens(r.text),
  });
  const required = records.filter((r) => r.required);
  const omitted: ContextCompileResult["completeness"]["omitted"] = [];
  const optional = records
    .filter((r) => !r.required)
    .filter((r) => {
      if (since === null || r.changed_revision > since) return true;
      omitted.push({ ...entry(r), reason: "unchanged" });
      return false;
    })
    .sort((a, b) => CONTEXT_SECTIONS.indexOf(a.section) - CONTEXT_SECTIONS.indexOf(b.section));

  const requiredTokens = countTokens(renderContext(header, required));
  if (requiredTokens > budget) {
    throw new LedgerError(
      "BudgetExceeded",
      `The required facts need ${requiredTokens} tokens but the budget is ${budget}; raise budget to at least ${requiredTokens}.`,
      { required: requiredTokens, budget },
    );
  }
  // Greedy by priority with an estimate, then verify on the real rendered text and drop the
  // lowest-priority record until it fits (token counts of concatenations are not exactly additive).
  const included: ContextRecord[] = [...required];
  let estimate = requiredTokens;
  const sectionsUsed = new Set(required.map((r) => r.section));
  for (const r of optional) {
    const cost = countTokens(r.text) + 1 + (sectionsUsed.has(r.section) ? 0 : 8);
    if (estimate + cost <= budget) {
      included.push(r);
      sectionsUsed.add(r.section);
      estimate += cost;
    } else omitted.push({ ...entry(r), reason: "budget" });
  }
  let rendered = renderContext(header, included);
  let tokens = countTokens(rendered);
  while (tokens > budget) {
    const dropped = included.pop() as ContextRecord;
    omitted.push({ ...entry(dropped), reason: "budget" });
    rendered = renderContext(header, included);
    tokens = countTokens(rendered);
  }
  return {
    project_revision: context.revision,
    work: work?.key ?? null,
    session: session?.id ?? null,
    rendered_context: rendered,
    context_hash: `sha256:${createHash("sha256").update(rendered).digest("hex")}`,
    token_estimate: tokens,
    budget,
    since_revision: since,
    completeness: {
      complete: !omitted.some((o) => o.reason === "budget"),
      required: required.map(entry),
      included: included.filter((r) => !r.required).map(entry),
      omitted,
    },
  };
}
