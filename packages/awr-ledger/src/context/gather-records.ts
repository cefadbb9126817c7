import type { ExpressionBuilder, Kysely } from "kysely";
import { LIMITS } from "../core/limits.js";
import { type EntityView, tableExists } from "../read/entity-view.js";
import { projectionAt } from "../read/projection-cache.js";
import { eventSeenBy } from "../runtime/conversation-privacy.js";
import { type CheckpointView, checkpointView } from "../runtime/runtime-views.js";
import { withoutOtherClientsSessions } from "../runtime/session-id-privacy.js";
import type { EventTable, EvidenceTable, LedgerSchema, SourceTable } from "../storage/schema.js";
import type { SourceVersion } from "./context-types.js";
import { type DependencyClosure, dependencyClosure } from "./dependency-closure.js";
import { type MilestoneNeighbours, milestoneNeighbours } from "./milestone-neighbours.js";
import { concretePaths, type RuleContext } from "./rule-scope.js";
import { type RuleFact, type RuleSelection, ruleFact, selectRules } from "./select-rules.js";
import { type WorkFact, workFact } from "./work-facts.js";

/** Goal statuses that end a goal: such goals are not selected without an explicit key. */
const TERMINAL_GOALS = ["completed", "done", "cancelled", "canceled", "archived", "retired"];

export interface GatherInput {
  work: EntityView;
  project_key: string;
  agent: string | null;
  /** The caller's paths and tags; undefined when not given (the work's own are used). */
  paths: string[] | undefined;
  tags: string[] | undefined;
  goals: string[];
  checkpoint: CheckpointView | null;
  /** Events after this revision are the recent delta. */
  after_revision: number;
  /** The branch compiled (null = main): its events and evidence only, never a parent's. */
  branch: string | null;
  sources: readonly SourceTable[];
  /**
   * The manifest's `[project] context_profile`. A packet is compiled from fresh sources only, so
   * it is the profile they were indexed under.
   */
  context_profile: ContextProfile;
  /** The caller: another client's conversation text in events is replaced (conversation-privacy). */
  client: string;
  /**
   * Which entities the reader may see (a workstream reader sees its own scope only); facts
   * about any other entity are left out. Undefined: everything.
   */
  visible?: ((kind: string, key: string) => boolean) | undefined;
}

/** Everything a packet states or weighs, read at one project revision. */
export interface ContextFacts {
  work: WorkFact;
  closure: DependencyClosure;
  rule_context: RuleContext;
  /** Where the paths in the rule context came from. */
  paths_origin: "caller" | "work_source" | "unknown_broad_scope" | "none";
  rules: RuleSelection;
  rule_sources: number;
  /**
   * The sources were indexed under `context_profile = "minimal"` (minimalContext): no rules
   * source is required, and the packet states the profile.
   */
  minimal_context: boolean;
  goals: EntityView[];
  /** The body text of each selected goal (goalBody), by key. */
  goal_bodies: ReadonlyMap<string, string>;
  requested_goals: string[];
  milestone: EntityView | null;
  plans: EntityView[];
  decisions: EntityView[];
  evidence: EvidenceTable[];
  source_evidence: unknown[];
  work_events: EventTable[];
  project_events: EventTable[];
  dependents: WorkFact[];
  /**
   * A few active items of the same milestone that the packet names nowhere else, those toward
   * the same goal first (milestone-neighbours.ts).
   */
  siblings: WorkFact[];
  /** Completed items of the same milestone: what this phase has already delivered. */
  milestone_done: MilestoneNeighbours["done"];
  checkpoint: CheckpointView | null;
  sources: SourceVersion[];
  revision_of: (key: string) => number;
}

const EVENT_LIMIT = LIMITS.contextEvents;

export async function gatherFacts(
  db: Kysely<LedgerSchema>,
  revision: number,
  input: GatherInput,
): Promise<ContextFacts> {
  // Every fact about entities comes from one projection (read/projection-cache.ts), which
  // survives writes that do not change it: a packet after an event costs no entity query.
  const projection = await projectionAt(db, revision);
  const revisionOf = (key: string) => projection.revisions.get(key) ?? 0;
  const work = workFact(input.work, revisionOf(input.work.key));
  const { sources } = input;
  const closure = dependencyClosure(projection, work.external_key, revisionOf);
  const ruleEntities = projection.ofKind("rule");
  const goals = projection.ofKind("goal");
  const milestones = projection.ofKind("milestone");
  const plans = projection.ofKind("plan");
  const decisions = projection.ofKind("decision");

  const { context, origin } = ruleContext(work, input);
  const rules = selectRules(
    ruleEntities.map((r): RuleFact => ruleFact(r, revisionOf)),
    context,
  );
  // Goals come from the primary sources of the goal domain and of the ledger domain (a YAML
  // ledger's `goals:`); supporting sources are never read for them.
  const primaryGoalSources = new Set(
    sources.filter((s) => isGoalSource(s) && s.role === "primary").map((s) => s.path),
  );
  const ledgerSources = new Set(sources.filter(isLedgerSource).map((s) => s.path));
  const requested = [...new Set(input.goals)].sort();
  const selectedGoals =
    requested.length > 0
      ? goals.filter((g) => requested.includes(g.key))
      : goals.filter(
          (g) =>
            primaryGoalSources.has(g.source.path) &&
            !TERMINAL_GOALS.includes(g.status.toLowerCase()),
        );
  const related = (entity: EntityView) => mentions(entity, work);

  const { branch } = input;
  const onBranch = (eb: ExpressionBuilder<LedgerSchema, "events" | "evidence">) =>
    branch === null ? eb("branch", "is", null) : eb("branch", "=", branch);
  const [evidence, workEvents, projectEvents] = await Promise.all([
    db
      .selectFrom("evidence")
      .selectAll()
      .where("work", "=", work.external_key)
      .where(onBranch)
      .orderBy("revision", "desc")
      .execute(),
    db
      .selectFrom("events")
      .selectAll()
      .where("work", "=", work.external_key)
      .where("revision", ">", input.after_revision)
      .where(onBranch)
      .orderBy("seq", "desc")
      .limit(EVENT_LIMIT)
      .execute(),
    db
      .selectFrom("events")
      .selectAll()
      .where("work", "is", null)
      .where("revision", ">", input.after_revision)
      .where(onBranch)
      .orderBy("seq", "desc")
      .limit(EVENT_LIMIT)
      .execute(),
  ]);
  const visible = input.visible ?? (() => true);
  const seen = (kind: string) => (entity: { key: string }) => visible(kind, entity.key);
  const seenWork = (fact: WorkFact) => visible("work", fact.external_key);
  const dependents = (projection.dependents.get(work.external_key) ?? []).flatMap(
    ({ work: key }) => {
      const entity = projection.entity(key);
      return entity?.kind !== "work" || !visible("work", key)
        ? []
        : [workFact(entity, revisionOf(key))];
    },
  );
  const covered = new Set(
    [...dependents, ...closure.unresolved, ...closure.resolved, ...closure.optional].map(
      (w) => w.external_key,
    ),
  );
  const neighbours = milestoneNeighbours(
    projection,
    work,
    covered,
    input.visible === undefined ? undefined : (key) => visible("work", key),
    revisionOf,
  );
  return {
    work,
    closure: {
      ...closure,
      unresolved: closure.unresolved.filter(seenWork),
      resolved: closure.resolved.filter(seenWork),
      missing: closure.missing.filter((key) => visible("work", key)),
      optional: closure.optional.filter(seenWork),
    },
    rule_context: context,
    paths_origin: origin,
    rules,
    rule_sources: sources.filter(isRuleSource).length,
    minimal_context: minimalContext(sources, input.context_profile),
    goals: selectedGoals.filter(seen("goal")).sort((a, b) => (a.key < b.key ? -1 : 1)),
    goal_bodies: new Map(selectedGoals.map((g) => [g.key, goalBody(g, ledgerSources)])),
    requested_goals: requested,
    milestone:
      milestones.find((m) => m.key === work.milestone && visible("milestone", m.key)) ?? null,
    plans: plans.filter((p) => related(p) && visible("plan", p.key)),
    decisions: decisions.filter(
      (d) =>
        visible("decision", d.key) &&
        (work.decisions.includes(d.key) ||
          ((d.attributes["work"] as string[] | undefined) ?? []).includes(work.external_key)),
    ),
    evidence,
    source_evidence: (input.work.attributes["evidence"] as unknown[] | undefined) ?? [],
    // Another client's text and session ids are gone before the packet is rendered, so its
    // hash covers what the caller is shown.
    work_events: await withoutOtherClientsSessions(
      db,
      input.client,
      workEvents.map((e) => eventSeenBy(e, input.client)),
    ),
    project_events: await withoutOtherClientsSessions(
      db,
      input.client,
      projectEvents.map((e) => eventSeenBy(e, input.client)),
    ),
    dependents,
    siblings: neighbours.siblings,
    milestone_done: neighbours.done,
    checkpoint: input.checkpoint,
    sources: sources.map(sourceVersion),
    revision_of: revisionOf,
  };
}

/**
 * Whether a source holds rules: the earlier domain name (`rule`) or the manifest's (`rules`),
 * so the verdict does not change with the name a manifest uses.
 */
export const isRuleSource = (s: SourceTable) => s.domain === "rule" || s.domain === "rules";

/** Whether a source holds a project's work ledger (`work` is this ledger's earlier name). */
const isLedgerSource = (s: SourceTable) => s.domain === "ledger" || s.domain === "work";
/** Whether a source may hold goals: a goal source, or a work ledger (its `goals:`). */
const isGoalSource = (s: SourceTable) => s.domain === "goal" || isLedgerSource(s);

/**
 * A goal's body as a packet shows it (`goal-body:KEY`): a ledger goal's `summary` (its success
 * criteria are already in the required `goal:KEY` chunk), a goal section's body otherwise.
 */
function goalBody(goal: EntityView, ledgerSources: ReadonlySet<string>): string {
  return ledgerSources.has(goal.source.path) ? (goal.summary ?? "").trim() : goal.body.trim();
}

/** A manifest's `[project] context_profile`; `standard` when it names none. */
export type ContextProfile = "standard" | "minimal";

/**
 * A minimal context: there are sources, and they were indexed under
 * `context_profile = "minimal"` (one manifest indexes them all). Only then may the project go
 * without a rules source.
 */
export const minimalContext = (sources: readonly SourceTable[], profile: ContextProfile): boolean =>
  sources.length > 0 && profile === "minimal";

/** The project's sources in path order. */
export function loadSources(db: Kysely<LedgerSchema>): Promise<SourceTable[]> {
  return db.selectFrom("sources").selectAll().orderBy("path").execute();
}

/**
 * A source as results name it. Reads verify freshness first (SourceStale, or a reindex with
 * `refresh`), so every source a packet is compiled from is fresh.
 */
export function sourceVersion(row: SourceTable): SourceVersion {
  return {
    id: row.path,
    revision: Number(row.indexed_revision),
    fingerprint: row.fingerprint,
    freshness: "fresh",
    locator: row.path,
  };
}

/**
 * The rule context of a work item: its own key, the project key, the agent, its tags with the
 * caller's, and the concrete paths in play (the caller's if given, else the item's declared
 * paths). Unknown stays null, so scope matching can say "unknown" instead of guessing.
 */
export function ruleContext(
  work: WorkFact,
  input: {
    project_key: string;
    agent: string | null;
    paths?: string[] | undefined;
    tags?: string[] | undefined;
  },
): { context: RuleContext; origin: ContextFacts["paths_origin"] } {
  const declared = input.paths ?? (work.paths.length > 0 ? work.paths : undefined);
  const paths = declared === undefined ? null : concretePaths(declared);
  const origin =
    declared === undefined
      ? "none"
      : paths === null
        ? "unknown_broad_scope"
        : input.paths !== undefined
          ? "caller"
          : "work_source";
  const tags =
    work.tags.length > 0 || input.tags !== undefined
      ? [...new Set([...work.tags, ...(input.tags ?? [])])].sort()
      : null;
  return {
    context: {
      project_key: input.project_key,
      work_item_key: work.external_key,
      agent_id: input.agent,
      paths,
      tags,
    },
    origin,
  };
}

/** Whether a plan section bears on the work item: it names the item, its milestone or its goal. */
function mentions(entity: EntityView, work: WorkFact): boolean {
  const names = [work.external_key, work.milestone, work.goal].filter(
    (n): n is string => n !== null,
  );
  const attributes = Object.values(entity.attributes).flatMap((v) =>
    Array.isArray(v) ? v.map(String) : [String(v)],
  );
  return names.some(
    (n) =>
      attributes.includes(n) ||
      new RegExp(`(^|[^\\w#-])${escapeRegExp(n)}($|[^\\w-])`).test(entity.body),
  );
}

const escapeRegExp = (s: string) => s.replace(/[.*+?^${}()|[\]\\]/g, "\\$&");

/** A checkpoint by id, or the session's latest (its own, else the one it inherited on resume). */
export async function loadCheckpoint(
  db: Kysely<LedgerSchema>,
  id: string | undefined,
  sessions: readonly string[],
): Promise<CheckpointView | null> {
  if (!(await tableExists(db, "checkpoints"))) return null;
  if (id !== undefined) {
    const row = await db
      .selectFrom("checkpoints")
      .selectAll()
      .where("id", "=", id)
      .executeTakeFirst();
    return row === undefined ? null : checkpointView(row);
  }
  for (const session of sessions) {
    const row = await db
      .selectFrom("checkpoints")
      .selectAll()
      .where("session", "=", session)
      .orderBy("revision", "desc")
      .limit(1)
      .executeTakeFirst();
    if (row !== undefined) return checkpointView(row);
  }
  return null;
}

/**
 * The newest checkpoint of the caller's sessions on a work item within one branch (null = main)
 * whose session is no longer active: what a packet without a session starts from (an active
 * session's checkpoint belongs to that session's own packets). "The latest checkpoint of W on B"
 * never crosses branches (docs/design/work-branches.md R7), and another client's checkpoints are
 * its own (docs/design/conversation-privacy.md).
 */
export async function latestWorkCheckpoint(
  db: Kysely<LedgerSchema>,
  of: { work: string; client: string; branch: string | null },
): Promise<CheckpointView | null> {
  if (!(await tableExists(db, "checkpoints"))) return null;
  const row = await db
    .selectFrom("checkpoints as c")
    .innerJoin("sessions as s", "s.id", "c.session")
    .selectAll("c")
    .where("s.work", "=", of.work)
    .where("s.client", "=", of.client)
    .where("s.status", "!=", "active")
    .where("s.branch", of.branch === null ? "is" : "=", of.branch)
    .orderBy("c.revision", "desc")
    .orderBy("c.id", "desc")
    .limit(1)
    .executeTakeFirst();
  return row === undefined ? null : checkpointView(row);
}
