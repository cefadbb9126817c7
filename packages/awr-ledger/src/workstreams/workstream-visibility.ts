import type { Kysely } from "kysely";
import type { Workstream } from "../projection/workstream-catalog.js";
import { type EntityView, entitiesOfKind, stringOf, stringsOf } from "../read/entity-view.js";
import type { LedgerSchema } from "../storage/schema.js";

/**
 * What one workstream's readers may see, derived once per call before any filter, count or
 * limit (docs/compatibility/workstreams.md):
 * - work items it owns;
 * - goals its definition names (goal_keys);
 * - milestones and decisions a visible work item references (a decision also by naming the
 *   item); plan entries and anything else of unknown scope are withheld;
 * - every rule: rules are the project's shared policy;
 * - sessions of visible work, their checkpoints, and evidence and events of visible work or
 *   sessions (unattributed project events are withheld);
 * - and within that, the per-client privacy rule (docs/design/conversation-privacy.md): only the
 *   reading client's own sessions and checkpoints are readable, and another client's
 *   conversation text in events is replaced.
 */
export interface Visibility {
  readonly stream: Workstream;
  /** The reading client. */
  readonly client: string;
  readonly work: ReadonlySet<string>;
  /** Visible work items in source order. */
  readonly workItems: readonly EntityView[];
  entity(kind: string, key: string): boolean;
  /** Visible sessions (their ids), loaded on first use. */
  sessions(): Promise<ReadonlySet<string>>;
}

export async function workstreamVisibility(
  db: Kysely<LedgerSchema>,
  revision: number,
  stream: Workstream,
  client: string,
): Promise<Visibility> {
  const owned = await db
    .selectFrom("workstream_ownership")
    .select("work")
    .where("workstream_id", "=", stream.id)
    .execute();
  const work = new Set(owned.map((o) => o.work));
  const workItems = (await entitiesOfKind(db, revision, "work")).filter((w) => work.has(w.key));
  const milestones = new Set(
    workItems.map((w) => stringOf(w, "milestone")).filter((m): m is string => m !== null),
  );
  const namedDecisions = new Set(workItems.flatMap((w) => stringsOf(w, "decisions")));
  const decisions = new Set(
    (await entitiesOfKind(db, revision, "decision"))
      .filter(
        (d) =>
          namedDecisions.has(d.key) ||
          ((d.attributes["work"] as string[] | undefined) ?? []).some((key) => work.has(key)),
      )
      .map((d) => d.key),
  );
  const goals = new Set(stream.goal_keys);
  let sessions: Promise<ReadonlySet<string>> | undefined;
  return {
    stream,
    client,
    work,
    workItems,
    entity(kind, key) {
      switch (kind) {
        case "work":
          return work.has(key);
        case "goal":
          return goals.has(key);
        case "milestone":
          return milestones.has(key);
        case "decision":
          return decisions.has(key);
        case "rule":
          return true;
        default:
          return false;
      }
    },
    sessions() {
      sessions ??= db
        .selectFrom("sessions as s")
        .innerJoin("workstream_ownership as o", "o.work", "s.work")
        .select("s.id")
        .where("o.workstream_id", "=", stream.id)
        .execute()
        .then((rows) => new Set(rows.map((r) => r.id)));
      return sessions;
    },
  };
}
