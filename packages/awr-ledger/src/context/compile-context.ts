import type { Kysely } from "kysely";
import { LIMITS } from "../core/limits.js";
import { LedgerError } from "../errors.js";
import { tableExists } from "../read/entity-view.js";
import { ownCheckpoint } from "../runtime/conversation-privacy.js";
import type { LedgerSchema } from "../storage/schema.js";
import {
  branchContextFacts,
  branchContextText,
  checkOrdinaryBaseline,
  contextBranch,
  forkBaseline,
} from "./branch-baseline.js";
import {
  assessCompleteness,
  type CompletenessBase,
  missingWorkCompleteness,
} from "./completeness.js";
import { DEFAULT_CONTEXT_BUDGET } from "./context-defaults.js";
import { chunk, headerText } from "./context-records.js";
import { selectContext } from "./context-selection.js";
import type { ContextCompileResult, ContextIdentity, SourceVersion } from "./context-types.js";
import { continuityOf, predecessorChain } from "./continuity.js";
import {
  type ContextProfile,
  gatherFacts,
  latestWorkCheckpoint,
  loadCheckpoint,
  loadSources,
  sourceVersion,
} from "./gather-records.js";
import { budgetChunks } from "./packing/budget-chunks.js";
import { required } from "./packing/chunk-text.js";
import { packetChunks } from "./packing/packet-chunks.js";
import { withoutSecretChunks } from "./secret-guard.js";
import { countTokens } from "./tokens.js";
import { workContext } from "./work-context.js";

export interface ContextCompileInput {
  work?: string | undefined;
  session?: string | undefined;
  conversation?: string | undefined;
  /** Compile for explicit work without a session (no session or conversation may be given). */
  detached?: boolean | undefined;
  /** The agent whose `agent`-scoped rules apply (default: the session's agent). */
  agent?: string | undefined;
  budget?: number | undefined;
  intent?: string | undefined;
  /** Concrete paths the work touches (default: the item's declared paths). */
  paths?: string[] | undefined;
  /** Tags in play besides the item's own. */
  tags?: string[] | undefined;
  goals?: string[] | undefined;
  checkpoint?: string | undefined;
  after_revision?: number | undefined;
  /**
   * Omitted or null: the selected default, with the ordinary baseline; a name, an id or "main":
   * that branch's delta since its fork (docs/design/work-branches.md R8).
   */
  branch?: string | null | undefined;
  /**
   * The CLI's `context compile --branch ID`: compile on that branch (an id, or "main") in place
   * of the selected default, with the ordinary baseline. Not a tool argument.
   */
  ordinaryBranch?: string | undefined;
}

/** What the ledger knows about the project and the call. */
export interface CompileContextScope {
  client: string;
  revision: number;
  projectId: string;
  projectKey: string;
  projectName: string;
  /** Only these entities may appear (a workstream reader's scope); default: all. */
  visible?: ((kind: string, key: string) => boolean) | undefined;
  /** The manifest's `[project] context_profile` (minimalContext); default `standard`. */
  contextProfile?: ContextProfile | undefined;
}

export function checkBudget(budget: number | undefined, fallback: number): number {
  const value = budget ?? fallback;
  if (!Number.isInteger(value) || value < LIMITS.budget.min || value > LIMITS.budget.max) {
    throw new LedgerError(
      "InvalidInput",
      `budget must be an integer from ${LIMITS.budget.min} to ${LIMITS.budget.max} tokens; got ${String(budget)}.`,
      { field: "budget" },
    );
  }
  return value;
}

function validate(input: ContextCompileInput): number {
  const budget = checkBudget(input.budget, DEFAULT_CONTEXT_BUDGET);
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
  if (input.intent !== undefined && input.intent.trim() === "") {
    throw new LedgerError(
      "InvalidInput",
      "intent must not be blank (omit it for the default, work).",
    );
  }
  for (const field of ["paths", "tags", "goals"] as const) {
    if (input[field]?.some((v) => typeof v !== "string" || v.trim() === "")) {
      throw new LedgerError("InvalidInput", `${field} entries must be non-blank strings.`, {
        field,
      });
    }
  }
  return budget;
}

function sourceLine(sources: readonly SourceVersion[]): string {
  return `Sources: ${sources.map((s) => `${s.locator} r${s.revision} ${s.freshness}`).join("; ")}`;
}

/**
 * L1: a bounded, deterministic packet of the facts an agent needs to execute one work item
 * (docs/design/context-compiler.md). Every required fact is in the packet or the call fails
 * with BudgetExceeded {required, budget}; `completeness` says what is missing or unknown.
 */
export async function compileContext(
  db: Kysely<LedgerSchema>,
  input: ContextCompileInput,
  scope: CompileContextScope,
): Promise<ContextCompileResult> {
  const budget = validate(input);
  const branch = await contextBranch(db, input, scope.revision);
  const intent = input.intent?.trim() ?? "work";
  const selection = await selectContext(db, scope.revision, input, scope.client, {
    branch: branch.id,
  });
  // A session runs on the branch it started on; compiling it on another is refused
  // (docs/design/work-branches.md R8).
  if (selection.session !== null && selection.session.branch !== branch.id) {
    throw new LedgerError(
      "InvalidInput",
      `context session does not match the selected work, agent or branch: session ${selection.session.id} runs on branch ${selection.session.branch ?? "main"}, the packet would be compiled on ${branch.row?.name ?? "main"}; select its branch (awr branch switch, or pass branch) or give another session.`,
      {
        session: selection.session.id,
        session_branch_id: selection.session.branch,
        branch_id: branch.id,
      },
    );
  }
  const continuity = await continuityOf(db, selection.session);
  const goalBasis =
    (input.goals ?? []).length > 0 ? "explicit_goal_keys" : "project_primary_goal_sources";
  const sourceRows = await loadSources(db);
  const sources = sourceRows.map(sourceVersion);
  const base: CompletenessBase = {
    project_id: scope.projectId,
    project_revision: scope.revision,
    work_item_key: selection.work_key,
    sources,
    branch_id: branch.id,
  };
  const report = {
    project_revision: scope.revision,
    level: "L1" as const,
    selection_basis: selection.basis,
    goal_selection_basis: goalBasis,
    session_id: selection.session?.id ?? null,
  } as const;

  if (selection.work === null) {
    const reason =
      selection.basis === "explicit_work_missing"
        ? `No work item "${selection.work_key}" is in the ledger.`
        : selection.basis === "session_work_retired"
          ? `The session's work item ${selection.work_key} is no longer in the sources.`
          : "No work was given, the call has no session, and no item is current (claimed or in progress).";
    const text =
      `CONTEXT INCOMPLETE\nProject: ${scope.projectName} [${scope.projectKey}] ${scope.projectId} r${scope.revision}\n` +
      `Requested work: ${selection.work_key}\n${reason} Give an existing work key (awr status, awr ready) and compile again.\n`;
    const required = countTokens(text);
    if (required > budget) {
      throw new LedgerError(
        "BudgetExceeded",
        `The diagnostic needs ${required} tokens but the budget is ${budget}; raise budget to at least ${required}.`,
        { required, budget },
      );
    }
    return {
      ...report,
      checkpoint_id: null,
      delta_after_revision: null,
      work_context: null,
      completeness: missingWorkCompleteness(base, reason),
      omitted_refs: [],
      diagnostic_text: text,
      continuity,
    };
  }

  const sessions =
    selection.session === null
      ? []
      : [selection.session.id, ...(await predecessorChain(db, selection.session)).map((s) => s.id)];
  // An explicit baseline must be one of the caller's own checkpoints (RuleViolation otherwise).
  if (input.checkpoint !== undefined && (await tableExists(db, "checkpoints"))) {
    await ownCheckpoint(db, { client: scope.client }, input.checkpoint);
  }
  // Without a session (detached, or no active session matched) or an explicit checkpoint, the
  // packet names the caller's latest checkpoint of the work on the packet's branch left by a
  // session that is no longer active (R7), and the delta starts there
  // ("previous_closed_session").
  const checkpoint =
    selection.session === null && input.checkpoint === undefined
      ? await latestWorkCheckpoint(db, {
          work: selection.work_key,
          client: scope.client,
          branch: branch.id,
        })
      : await loadCheckpoint(db, input.checkpoint, sessions);
  if (input.checkpoint !== undefined && checkpoint === null) {
    throw new LedgerError(
      "NotFound",
      `Checkpoint ${input.checkpoint} not found; list checkpoints with awr session show.`,
      {
        checkpoint: input.checkpoint,
      },
    );
  }
  const [afterRevision, origin] = branch.fork
    ? forkBaseline(branch)
    : input.checkpoint !== undefined
      ? [checkpoint?.revision ?? 0, "checkpoint"]
      : input.after_revision !== undefined
        ? [input.after_revision, "after_revision"]
        : checkpoint !== null
          ? [
              checkpoint.revision,
              selection.session !== null ? "session_checkpoint" : "previous_closed_session",
            ]
          : [0, "project_start"];
  const explicitBaseline = input.checkpoint !== undefined || input.after_revision !== undefined;
  if (!branch.fork) {
    checkOrdinaryBaseline(
      branch,
      checkpoint,
      input.checkpoint !== undefined,
      afterRevision,
      explicitBaseline,
    );
  }

  const facts = await gatherFacts(db, scope.revision, {
    work: selection.work,
    project_key: scope.projectKey,
    agent: input.agent ?? selection.session?.agent ?? null,
    paths: input.paths,
    tags: input.tags,
    goals: input.goals ?? [],
    checkpoint,
    after_revision: afterRevision,
    branch: branch.id,
    sources: sourceRows,
    context_profile: scope.contextProfile ?? "standard",
    client: scope.client,
    visible: scope.visible,
  });
  const assessed = assessCompleteness(base, facts);
  const branchFacts = branch.fork ? await branchContextFacts(db, branch) : undefined;
  const completeness =
    branchFacts === undefined ? assessed : { ...assessed, branch_context: branchFacts };
  const packet = packetChunks(facts, completeness, {
    intent,
    selection_basis: selection.basis,
    session_id: selection.session?.id ?? null,
    after_revision: afterRevision,
    baseline_origin: origin,
    project_revision: scope.revision,
  });
  if (branchFacts !== undefined) {
    packet.push(chunk("branch-context", "metadata", branchContextText(branchFacts), [], required));
  }
  const chunks = withoutSecretChunks(packet);
  const { work } = facts;
  const identity: ContextIdentity = {
    project_id: scope.projectId,
    project_key: scope.projectKey,
    project_revision: scope.revision,
    work_item_id: work.id,
    work_item_key: work.external_key,
    work_item_revision: work.revision,
    branch_id: branch.id,
    source_versions: sources,
  };
  const header = headerText([
    "AWR L1 context",
    `Project: ${scope.projectName} [${scope.projectKey}] ${scope.projectId} r${scope.revision}`,
    `Work: ${work.external_key} [${work.id}] r${work.revision} — ${work.title}`,
    sourceLine(sources),
  ]);
  const budgeted = budgetChunks(header, chunks, budget, explicitBaseline ? afterRevision : null);
  const request = {
    work: work.external_key,
    session: selection.session?.id ?? null,
    detached: input.detached === true,
    agent: input.agent ?? null,
    goals: [...new Set(input.goals ?? [])].sort(),
    paths: input.paths === undefined ? null : [...new Set(input.paths)].sort(),
    tags: input.tags === undefined ? null : [...new Set(input.tags)].sort(),
    intent,
    budget,
    delta_after_revision: afterRevision,
  };
  return {
    ...report,
    checkpoint_id: checkpoint?.id ?? null,
    delta_after_revision: afterRevision,
    work_context: workContext(identity, budgeted, budget, {
      request,
      completeness,
      selection: selection.basis,
    }),
    completeness,
    omitted_refs: [...facts.rules.unknown]
      .filter((m) => m.rule.severity === "soft" || m.rule.severity === "info")
      .map((m) => ({
        kind: "rule",
        reference: m.rule.external_key,
        count: 1,
        reason: `optional rule applicability is unresolved: ${m.reasons.join("; ")}`,
      })),
    diagnostic_text: null,
    continuity,
  };
}
