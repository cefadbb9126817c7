import type { EditValue, WorkItemEditPlan } from "../sources/yaml-write-back.js";
import type { LedgerStore } from "../storage/ledger-store.js";
import type { ChangeKind } from "./change-identity.js";

/** What a change kind runs against: the project's store and root, and the calling client. */
export interface ChangeEnv {
  readonly store: LedgerStore;
  readonly root: string;
  readonly client: string;
  now(): number;
}

/** A change planned on the current source text: nothing is written to make it. */
export interface PlannedChange {
  /** The change as the caller applies it (a work_edit gets its reviewed source fingerprint). */
  change: Record<string, unknown>;
  work: string;
  /** The fields it writes (our names), and the planned bytes before and after. */
  fields: Record<string, EditValue>;
  edit: WorkItemEditPlan;
}

/** The facts every preview answer carries, computed by the engine. */
export interface PreviewFacts {
  project_id: string;
  project_revision: number;
  request_key: string;
  request_hash: string;
  preview_fingerprint: string;
}

/**
 * One change kind of the reviewed source changes. The engine (change-engine.ts) owns the
 * identity, the journal, the review fingerprint, the write, the reindex, status and recovery;
 * a kind checks and normalizes its `change`, plans it on the current source text, and shapes
 * its answers. A kind this version cannot run sets `unavailable`, and all four tools answer
 * Unsupported for it, naming what is missing, before anything is read.
 */
export interface SourceChangeKind {
  readonly kind: ChangeKind;
  readonly unavailable?: { missing: string; instead: string };
  /**
   * The change as a replay must repeat it, checked without reading any source (so a replay
   * reaches the journal even once the work item is gone). `apply`: every field the reviewed
   * preview fixed must be present.
   */
  normalize(
    change: Readonly<Record<string, unknown>>,
    step: "preview" | "apply",
  ): Record<string, unknown>;
  /** Plans the change on the current sources: the before/after bytes and the changed fields. */
  plan(env: ChangeEnv, change: Readonly<Record<string, unknown>>): Promise<PlannedChange>;
  /** The preview's answer: what to review, and how to apply it. */
  previewAnswer(planned: PlannedChange, facts: PreviewFacts): Record<string, unknown>;
  /** The kind's additions to an outcome (apply, status, recover), given the engine's answer. */
  outcomeAnswer(answer: Record<string, unknown>): Record<string, unknown>;
}
