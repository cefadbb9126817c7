import type { Kysely } from "kysely";
import { sql } from "../internal/kysely.js";
import {
  acceptanceOf,
  dependenciesOf,
  type EntityView,
  entitiesOfKind,
  entityRevisions,
  stringOf,
  stringsOf,
  tableExists,
} from "../read/entity-view.js";
import type { LedgerSchema } from "../storage/schema.js";
import type { ContextRecord, ContextSection } from "./context-records.js";
import { scopeMatches } from "./rule-scope.js";

export interface GatherInput {
  work: EntityView | null;
  session: string | null;
  checkpoint: {
    id: string;
    revision: number;
    digest: string;
    next_action: string | null;
    open_loops: string[];
  } | null;
  paths: string[];
  tags: string[];
  goals: string[];
  intent: string | null;
  /**
   * Which entities the reader may see (a workstream reader sees its own scope only); records
   * about any other entity are left out. Undefined: everything.
   */
  visible?: ((kind: string, key: string) => boolean) | undefined;
}

const line = (s: string | null | undefined) => (s ?? "").replace(/\s+/g, " ").trim();

function record(
  section: ContextSection,
  ref: string,
  text: string,
  required: boolean,
  changed: number,
): ContextRecord {
  return { section, ref, text, required, changed_revision: changed };
}

/** Collects every candidate record for a context packet, required ones flagged. */
export async function gatherRecords(
  db: Kysely<LedgerSchema>,
  revision: number,
  input: GatherInput,
): Promise<ContextRecord[]> {
  const out: ContextRecord[] = [];
  const work = input.work;
  const visible = input.visible ?? (() => true);
  const revisions = await entityRevisions(db, revision);
  const changedOf = (key: string) => revisions.get(key) ?? 0;
  const paths = [...input.paths, ...(work === null ? [] : stringsOf(work, "paths"))];
  const tags = [...input.tags, ...(work === null ? [] : stringsOf(work, "tags"))];

  if (work !== null) {
    const fields = [
      `- ${work.key}: ${work.title}`,
      `  status: ${work.status}${work.raw_status === null ? "" : ` (source says "${work.raw_status}")`}`,
      work.summary === null ? null : `  summary: ${line(work.summary)}`,
      stringOf(work, "next_action") === null
        ? null
        : `  next action: ${line(stringOf(work, "next_action"))}`,
      stringOf(work, "blocker") === null ? null : `  blocker: ${line(stringOf(work, "blocker"))}`,
      paths.length === 0 ? null : `  paths: ${stringsOf(work, "paths").join(", ")}`,
      tags.length === 0 ? null : `  tags: ${stringsOf(work, "tags").join(", ")}`,
      `  source: ${work.source.path}:${work.source.line_start}-${work.source.line_end}`,
    ];
    out.push(
      record(
        "work",
        work.key,
        fields.filter((f) => f !== null).join("\n"),
        true,
        changedOf(work.key),
      ),
    );
    for (const ac of acceptanceOf(work)) {
      out.push(
        record(
          "acceptance",
          `${work.key}/${ac.id}`,
          `- [${ac.id}] ${line(ac.text)} (evidence level: ${ac.level})`,
          true,
          changedOf(work.key),
        ),
      );
    }
    const deps = (await dependenciesOf(db, [work.key])).get(work.key) ?? [];
    for (const dep of deps.filter((d) => d.required && !d.satisfied && visible("work", d.work))) {
      out.push(
        record(
          "unmet_dependencies",
          dep.work,
          `- ${dep.work}: ${dep.title ?? "(not defined)"} [${dep.status}]`,
          true,
          changedOf(dep.work),
        ),
      );
    }
  }

  const rules = await entitiesOfKind(db, revision, "rule");
  for (const rule of rules) {
    const scope = (rule.attributes["scope"] as string[] | undefined) ?? ["global"];
    if (!scopeMatches(scope, paths, tags)) continue;
    const severity = String(rule.attributes["severity"] ?? "soft");
    const text = `- ${rule.key} (${severity}; scope ${scope.join(" ")}): ${rule.title}${rule.summary === null ? "" : ` — ${line(rule.summary)}`}`;
    out.push(
      record(
        severity === "hard" ? "hard_rules" : "soft_rules",
        rule.key,
        text,
        severity === "hard",
        changedOf(rule.key),
      ),
    );
  }

  if (input.session !== null && (await tableExists(db, "waits"))) {
    const { rows } = await sql<{ id: string; question: string; created_revision: number }>`
      SELECT id, question, created_revision FROM waits
      WHERE session = ${input.session} AND status = 'waiting_user' ORDER BY created_revision`.execute(
      db,
    );
    for (const wait of rows) {
      out.push(
        record(
          "pending_waits",
          wait.id,
          `- wait ${wait.id}: ${line(wait.question)} (waiting for the user)`,
          true,
          Number(wait.created_revision),
        ),
      );
    }
  }

  const goalKeys = [
    ...new Set(
      [...(work === null ? [] : [stringOf(work, "goal")]), ...input.goals].filter(
        (g): g is string => g !== null,
      ),
    ),
  ];
  const goals = await entitiesOfKind(db, revision, "goal");
  const chosenGoals =
    goalKeys.length > 0 || work !== null
      ? goals.filter((g) => goalKeys.includes(g.key))
      : goals.filter((g) => g.status === "active");
  for (const goal of chosenGoals.filter((g) => visible("goal", g.key))) {
    out.push(
      record(
        "goal",
        goal.key,
        `- ${goal.key}: ${goal.title} [${goal.status}]${goal.summary === null ? "" : ` — ${line(goal.summary)}`}`,
        false,
        changedOf(goal.key),
      ),
    );
  }
  if (work !== null) {
    const milestoneKey = stringOf(work, "milestone");
    const milestone =
      milestoneKey === null
        ? undefined
        : (await entitiesOfKind(db, revision, "milestone")).find((m) => m.key === milestoneKey);
    if (milestone !== undefined && visible("milestone", milestone.key)) {
      out.push(
        record(
          "milestone",
          milestone.key,
          `- ${milestone.key}: ${milestone.title} [${milestone.status}]${milestone.summary === null ? "" : ` — ${line(milestone.summary)}`}`,
          false,
          changedOf(milestone.key),
        ),
      );
    }
    const named = stringsOf(work, "decisions");
    for (const decision of await entitiesOfKind(db, revision, "decision")) {
      const linked =
        named.includes(decision.key) ||
        ((decision.attributes["work"] as string[] | undefined) ?? []).includes(work.key);
      if (!linked || !visible("decision", decision.key)) continue;
      out.push(
        record(
          "decisions",
          decision.key,
          `- ${decision.key}: ${decision.title} [${decision.status}]${decision.summary === null ? "" : ` — ${line(decision.summary)}`}`,
          false,
          changedOf(decision.key),
        ),
      );
    }
  }

  if (input.checkpoint !== null) {
    const cp = input.checkpoint;
    const loops =
      cp.open_loops.length === 0 ? "" : `\n  open loops: ${cp.open_loops.map(line).join("; ")}`;
    out.push(
      record(
        "checkpoint",
        cp.id,
        `- ${cp.id} (revision ${cp.revision}): ${line(cp.digest)}${cp.next_action === null ? "" : `\n  next action: ${line(cp.next_action)}`}${loops}`,
        false,
        cp.revision,
      ),
    );
  }

  if (work !== null) {
    for (const [i, ev] of (
      (work.attributes["evidence"] as unknown[] | undefined) ?? []
    ).entries()) {
      const text = typeof ev === "string" ? ev : JSON.stringify(ev);
      out.push(
        record(
          "evidence",
          `${work.key}/source-evidence-${i + 1}`,
          `- (source) ${line(text)}`,
          false,
          changedOf(work.key),
        ),
      );
    }
    const recorded = await db
      .selectFrom("evidence")
      .selectAll()
      .where("work", "=", work.key)
      .orderBy("revision", "desc")
      .execute();
    for (const ev of recorded) {
      out.push(
        record(
          "evidence",
          ev.external_key,
          `- ${ev.external_key} [${ev.evidence_type}, ${ev.level}]: ${line(ev.summary)}`,
          false,
          Number(ev.revision),
        ),
      );
    }
    const events = await db
      .selectFrom("events")
      .select(["id", "seq", "revision", "type", "summary"])
      .where("work", "=", work.key)
      .orderBy("seq", "desc")
      .limit(10)
      .execute();
    for (const ev of events) {
      out.push(
        record(
          "recent_events",
          ev.id,
          `- #${ev.seq} r${ev.revision} ${ev.type}${ev.summary === null ? "" : `: ${line(ev.summary)}`}`,
          false,
          Number(ev.revision),
        ),
      );
    }
    const related = new Map<string, string>();
    const deps = (await dependenciesOf(db, [work.key])).get(work.key) ?? [];
    for (const dep of deps.filter(
      (d) => !(d.required && !d.satisfied) && visible("work", d.work),
    )) {
      related.set(
        dep.work,
        `- ${dep.work}: ${dep.title ?? "(not defined)"} [${dep.status}] (${dep.required ? "required" : "optional"} dependency)`,
      );
    }
    const dependents = await db
      .selectFrom("dependencies as d")
      .innerJoin("entities as e", "e.key", "d.work_key")
      .select(["e.key", "e.title", "e.status"])
      .where("d.depends_on", "=", work.key)
      .orderBy("e.key")
      .execute();
    for (const d of dependents.filter((d) => visible("work", d.key)))
      related.set(d.key, `- ${d.key}: ${d.title} [${d.status}] (depends on this item)`);
    for (const [key, text] of related)
      out.push(record("related_work", key, text, false, changedOf(key)));
  }
  return out;
}
