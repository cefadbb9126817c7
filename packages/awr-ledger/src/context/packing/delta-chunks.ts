import type { EventTable } from "../../storage/schema.js";
import { type ContextChunk, chunk } from "../context-records.js";
import type { ContextCompleteness, PacketMeta } from "../context-types.js";
import type { ContextFacts } from "../gather-records.js";
import { DONE_LIMIT } from "../milestone-neighbours.js";
import { oneLine, optional, required, stateLines, workEntity } from "./chunk-text.js";

/**
 * The packet's delta, evidence, related-work and metadata chunks: the baseline and the
 * checkpoint (required), recent events, evidence gaps (required) and evidence, dependents and
 * the rest of the milestone, and the completeness verdict (required).
 */
export function deltaChunks(
  facts: ContextFacts,
  completeness: ContextCompleteness,
  meta: PacketMeta,
): ContextChunk[] {
  const { work } = facts;
  const chunks: ContextChunk[] = [];
  const cp = facts.checkpoint;
  chunks.push(
    chunk(
      "delta-baseline",
      "delta",
      `Changes after project revision ${meta.after_revision} (${meta.baseline_origin}) through ${meta.project_revision}. ` +
        `Checkpoint: ${cp?.id ?? "none"}. Events shown: up to ${facts.work_events.length} of this item's and ${facts.project_events.length} project-wide.`,
      [],
      required,
    ),
  );
  if (cp !== null) {
    const entities = [{ kind: "checkpoint", id: cp.id, revision: cp.revision }];
    chunks.push(
      chunk(
        "checkpoint",
        "delta",
        [
          `Checkpoint context hash: ${cp.context_hash ?? "none"}`,
          "Checkpoint next action:",
          cp.next_action ?? "(none)",
          "Checkpoint open loops:",
          ...(cp.open_loops.length === 0 ? ["(none)"] : cp.open_loops),
        ].join("\n"),
        entities,
        required,
      ),
      chunk("checkpoint-digest", "delta", cp.digest, entities, optional(25, cp.revision)),
    );
  }
  const eventChunk = (e: EventTable, priority: number) =>
    chunk(
      `event:${e.id}`,
      "delta",
      `${e.type} at r${e.revision}${e.summary === null ? "" : `: ${oneLine(e.summary)}`}`,
      [{ kind: "event", id: e.id, revision: Number(e.revision) }],
      optional(priority, Number(e.revision)),
    );
  for (const e of facts.work_events) chunks.push(eventChunk(e, 30));
  for (const e of facts.project_events) chunks.push(eventChunk(e, 65));

  chunks.push(
    chunk(
      "evidence-gaps",
      "evidence",
      completeness.evidence_gaps.length === 0
        ? "No evidence gaps in the recorded metadata; compiling context runs no verification."
        : completeness.evidence_gaps
            .map((g) => `${g.code} [${g.reference}]: ${g.reason}`)
            .join("\n"),
      [],
      required,
    ),
  );
  for (const ev of facts.evidence) {
    chunks.push(
      chunk(
        `evidence:${ev.external_key}`,
        "evidence",
        [
          oneLine(ev.summary),
          `Type: ${ev.evidence_type}; level: ${ev.level}`,
          `Report: ${ev.locator ?? "none"}`,
          `Command: ${ev.command ?? "none"}`,
        ].join("\n"),
        [{ kind: "evidence", id: ev.id, revision: Number(ev.revision) }],
        optional(55, Number(ev.revision)),
      ),
    );
  }
  facts.source_evidence.forEach((ev, i) => {
    chunks.push(
      chunk(
        `source-evidence:${work.external_key}/${i + 1}`,
        "evidence",
        typeof ev === "string" ? ev : JSON.stringify(ev),
        [workEntity(work)],
        optional(56, work.revision),
      ),
    );
  });

  for (const d of facts.dependents) {
    chunks.push(
      chunk(
        `dependent:${d.external_key}`,
        "related",
        `${d.title} (depends on this item)\n${stateLines(d)}`,
        [workEntity(d)],
        optional(45, d.revision),
      ),
    );
  }
  for (const s of facts.siblings) {
    chunks.push(
      chunk(
        `sibling:${s.external_key}`,
        "related",
        `${s.title} (same milestone ${work.milestone})\n${stateLines(s)}`,
        [workEntity(s)],
        optional(80, s.revision),
      ),
    );
  }

  const done = facts.milestone_done;
  if (done.count > 0) {
    const listed = done.listed.map((d) => `${d.key} ${d.title}`);
    if (done.count > DONE_LIMIT) listed.push(`${done.count - DONE_LIMIT} more`);
    chunks.push(
      chunk(
        `milestone-progress:${work.milestone}`,
        "related",
        `Completed in ${work.milestone} (${done.count}): ${listed.join("; ")}`,
        [],
        optional(82, work.revision),
      ),
    );
  }

  chunks.push(
    chunk(
      "completeness",
      "metadata",
      [
        completeness.status,
        ...completeness.issues.map((i) => `${i.code} [${i.reference}]: ${i.reason}`),
      ].join("\n"),
      [],
      required,
    ),
  );
  return chunks;
}
