import type { Kysely } from "kysely";
import { claimStatusAt } from "../claims/claim-in-force.js";
import { LedgerError } from "../errors.js";
import { entitiesOfKind, entityRevisions } from "../read/entity-view.js";
import { selectedBranchId } from "../runtime/branch-select.js";
import { sessionView, type WaitView } from "../runtime/runtime-views.js";
import { MISSING_FINGERPRINT } from "../sources/fingerprint.js";
import type { LedgerSchema } from "../storage/schema.js";
import { type CompileContextScope, checkBudget } from "./compile-context.js";
import { DEFAULT_BOOTSTRAP_BUDGET } from "./context-defaults.js";
import { contextHash } from "./context-hash.js";
import { selectContext } from "./context-selection.js";
import {
  type BootstrapContext,
  type BootstrapGap,
  type ContextBootstrapResult,
  TOKENIZER,
} from "./context-types.js";
import { continuityOf, predecessorChain } from "./continuity.js";
import {
  isRuleSource,
  latestWorkCheckpoint,
  loadCheckpoint,
  loadSources,
  minimalContext,
  ruleContext,
  sourceVersion,
} from "./gather-records.js";
import { assertNoSecretFact } from "./secret-guard.js";
import { possiblyHard, ruleFact, selectRules } from "./select-rules.js";
import { countTokens } from "./tokens.js";
import { type WorkFact, workFact } from "./work-facts.js";

export interface ContextBootstrapInput {
  work?: string | undefined;
  session?: string | undefined;
  conversation?: string | undefined;
  agent?: string | undefined;
  /** Token budget of rendered_context (default 1000). */
  budget?: number | undefined;
}

export const BOOTSTRAP_TOKEN_SCOPE =
  "rendered_context only; the JSON envelope and the surrounding conversation are not counted";

/**
 * L0 (`awr context bootstrap`): a small orientation packet: which work, its state and next
 * action, the session and its checkpoint, and every hard rule that applies, verbatim. It never
 * certifies execution (compile L1 first). Gaps make it incomplete; more than the budget is
 * BudgetExceeded {required, budget}: L0 states nothing optional, so there is nothing to leave out.
 */
export async function bootstrapContext(
  db: Kysely<LedgerSchema>,
  input: ContextBootstrapInput,
  scope: CompileContextScope,
): Promise<ContextBootstrapResult> {
  const budget = checkBudget(input.budget, DEFAULT_BOOTSTRAP_BUDGET);
  const selection = await selectContext(db, scope.revision, input, scope.client);
  const gaps: BootstrapGap[] = [];
  const gap = (code: string, reference: string, reason: string) =>
    gaps.push({ code, reference, reason });
  const revisions = await entityRevisions(db, scope.revision);
  const revisionOf = (key: string) => revisions.get(key) ?? 0;
  const work: WorkFact | null =
    selection.work === null ? null : workFact(selection.work, revisionOf(selection.work.key));
  const sources = await loadSources(db);
  // A minimal context needs neither a declared phase nor a rules source
  // (docs/compatibility/context.md).
  const minimal = minimalContext(sources, scope.contextProfile ?? "standard");

  if (work === null) {
    gap(
      "work_selection_required",
      selection.work_key,
      `no work item is selected (${selection.basis}); give an existing work key`,
    );
  } else {
    if (work.status === "unknown") gap("unknown_work_status", work.id, work.raw_status);
    if (work.next_action === "") gap("missing_next_action", work.id, "next action is not declared");
    if (work.milestone === null && !minimal)
      gap("missing_phase", work.id, "current phase (milestone) is not declared");
    if (work.status === "blocked" && work.blocker === null)
      gap("missing_blocker", work.id, "work is blocked without a declared reason");
  }
  if (!sources.some(isRuleSource) && !minimal)
    gap("rules_source_missing", "rules", "no rules source is configured");
  // A configured source whose file is gone was indexed as empty: what it held (hard rules, work)
  // is unknown, not absent, so L0 says so instead of stating "none apply".
  for (const source of sources) {
    if (source.fingerprint === MISSING_FINGERPRINT) {
      gap("source_missing", source.path, "the source file is missing; restore it and read again");
    }
  }

  const rules = selectRules(
    (await entitiesOfKind(db, scope.revision, "rule")).map((r) => ruleFact(r, revisionOf)),
    work === null
      ? {
          project_key: scope.projectKey,
          work_item_key: null,
          agent_id: null,
          paths: null,
          tags: null,
        }
      : ruleContext(work, {
          project_key: scope.projectKey,
          agent: input.agent ?? selection.session?.agent ?? null,
        }).context,
  );
  for (const match of rules.unknown) {
    gap(
      "rule_applicability_unknown",
      `${match.rule.external_key}@r${match.rule.revision}`,
      match.reasons.join("; "),
    );
  }
  const critical_rules = [...rules.hard, ...rules.unknown.filter(possiblyHard).map((m) => m.rule)];

  const chain = selection.session === null ? [] : await predecessorChain(db, selection.session);
  let checkpoint = await loadCheckpoint(
    db,
    undefined,
    selection.session === null ? [] : [selection.session.id],
  );
  let checkpoint_origin: BootstrapContext["checkpoint_origin"] =
    checkpoint === null ? "none" : "session";
  if (checkpoint === null && chain.length > 0) {
    checkpoint = await loadCheckpoint(
      db,
      undefined,
      chain.map((s) => s.id),
    );
    if (checkpoint !== null) checkpoint_origin = "handoff";
  }
  if (checkpoint === null && work !== null) {
    const branch =
      selection.session !== null ? selection.session.branch : await selectedBranchId(db);
    checkpoint = await latestWorkCheckpoint(db, {
      work: work.external_key,
      client: scope.client,
      branch,
    });
    if (checkpoint !== null) checkpoint_origin = "previous_closed_session";
  }

  const context: BootstrapContext = {
    project_id: scope.projectId,
    project_key: scope.projectKey,
    project_name: scope.projectName,
    project_revision: scope.revision,
    branch_id: null,
    work:
      work === null
        ? null
        : {
            id: work.id,
            external_key: work.external_key,
            title: work.title,
            phase: work.milestone,
            status: work.status,
            raw_status: work.raw_status,
            next_action: work.next_action,
            blocker: work.blocker,
            revision: work.revision,
            source_ref: work.source_ref,
          },
    selection_basis: selection.basis,
    session: selection.session === null ? null : sessionView(selection.session, scope.projectId),
    checkpoint,
    checkpoint_origin,
    executions: [],
    critical_rules,
    source_revisions: sources.map(sourceVersion),
    gaps,
    complete: gaps.length === 0,
    execution_context_complete: false,
  };
  // What a successor must not lose beside the checkpoint: the session's claims and the questions
  // still open to the user (its own and its predecessors'), stated in the rendered packet.
  const continuity = await continuityOf(db, selection.session);
  const claims =
    selection.session === null
      ? []
      : (
          await db
            .selectFrom("claims")
            .selectAll()
            .where("session", "=", selection.session.id)
            .where("status", "=", "active")
            .orderBy("acquired_revision")
            .execute()
        ).map((claim) => ({
          id: claim.id,
          work: claim.work,
          status: claimStatusAt(claim, Date.now()),
          expires_at: claim.expires_at === null ? null : Number(claim.expires_at),
        }));
  const pendingWaits = continuity.waits.filter((w) => w.status === "waiting_user");
  const rendered_context = render(context, { claims, waits: pendingWaits });
  const token_estimate = countTokens(rendered_context);
  if (token_estimate > budget) {
    throw new LedgerError(
      "BudgetExceeded",
      `The L0 facts need ${token_estimate} tokens but the budget is ${budget}; raise budget to at least ${token_estimate}.`,
      { required: token_estimate, budget },
    );
  }
  const request = {
    work: input.work ?? null,
    session: selection.session?.id ?? null,
    agent: input.agent ?? null,
    budget,
  };
  return assertNoSecretFact(
    {
      project_revision: scope.revision,
      level: "L0",
      context,
      rendered_context,
      context_hash: contextHash({
        policy: "awr.bootstrap.v1",
        tokenizer: TOKENIZER,
        request,
        context,
        rendered_context,
      }),
      token_estimate,
      token_budget: budget,
      tokenizer: TOKENIZER,
      token_scope: BOOTSTRAP_TOKEN_SCOPE,
      continuity,
    },
    "L0",
  );
}

/** The session's claims and pending waits, as the rendered packet states them. */
interface HeldState {
  claims: { id: string; work: string; status: string; expires_at: number | null }[];
  waits: WaitView[];
}

function render(c: BootstrapContext, held: HeldState): string {
  const lines = [
    "AWR L0 bootstrap",
    `Project: ${c.project_name} [${c.project_key}] ${c.project_id}`,
    `Revision: ${c.project_revision}`,
  ];
  const w = c.work;
  if (w === null) lines.push("Work: none selected");
  else {
    lines.push(
      `Work: ${w.external_key} [${w.id}] r${w.revision} — ${w.title}`,
      `Phase: ${w.phase ?? "unspecified"} | Status: ${w.raw_status} (${w.status})`,
      `Next: ${w.next_action === "" ? "(none declared)" : w.next_action}`,
      `Blocker: ${w.blocker ?? "none"}`,
      `Work source: ${w.source_ref.locator}:${w.source_ref.start_line}-${w.source_ref.end_line}@r${w.source_ref.source_revision}`,
    );
  }
  const s = c.session;
  lines.push(
    s === null
      ? "Session: none"
      : `Session: ${s.id} ${s.status} agent=${s.agent_id} provider=${s.provider} model=${s.model}`,
  );
  if (s !== null) {
    if (held.claims.length === 0) lines.push("Claims: none held");
    for (const claim of held.claims) {
      const until =
        claim.expires_at === null ? "no expiry" : new Date(claim.expires_at).toISOString();
      lines.push(`Claim: ${claim.id} ${claim.status} on ${claim.work} until ${until}`);
    }
    if (held.waits.length === 0) lines.push("Waits: none pending");
    for (const wait of held.waits) {
      lines.push(`Waiting on the user (wait ${wait.id}): ${wait.question}`);
    }
  }
  lines.push(c.critical_rules.length === 0 ? "Hard rules: none apply" : "Hard rules:");
  for (const rule of c.critical_rules) lines.push(`[${rule.external_key}]`, rule.text);
  const cp = c.checkpoint;
  if (cp === null) lines.push("Checkpoint: none for this work");
  else {
    lines.push(
      `Checkpoint: ${cp.id} (${c.checkpoint_origin}) session=${cp.session} r${cp.revision}`,
      `Digest: ${cp.digest}`,
      `Checkpoint next: ${cp.next_action ?? "(none)"}`,
      ...cp.open_loops.map((loop) => `Open loop: ${loop}`),
      ...(cp.changed_entities.length === 0 ? [] : [`Changed: ${cp.changed_entities.join(", ")}`]),
    );
  }
  lines.push(c.complete ? "Bootstrap: complete" : "CONTEXT INCOMPLETE");
  for (const g of c.gaps) lines.push(`Gap ${g.code} [${g.reference}]: ${g.reason}`);
  lines.push("Compile L1 (awr context compile) before execution.");
  return `${lines.join("\n")}\n`;
}
