import type { LedgerValue } from "../sources/ledger-text-edit.js";
import type { WorkItemEditPlan } from "../sources/yaml-write-back.js";
import type { LedgerStore } from "../storage/ledger-store.js";
import type { ChangeIdentity, ChangeKind } from "./change-identity.js";
import type { ChangeRecord } from "./change-journal.js";

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
  /** The work item it changes (or creates); a batch names its targets. */
  work: string;
  /**
   * The fields it writes (our names), and the planned bytes of its one source file before and
   * after: one work item's fields edited in place, or a whole-file edit (a new item, several
   * items) whose `changed` lists the item keys.
   */
  fields: Record<string, LedgerValue>;
  edit: WorkItemEditPlan;
  /** The kind's own facts about the plan, journaled with it and given back to outcomeAnswer. */
  details?: Record<string, unknown>;
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
  plan(
    env: ChangeEnv,
    change: Readonly<Record<string, unknown>>,
    identity: ChangeIdentity,
  ): Promise<PlannedChange>;
  /**
   * The journaled change's bytes again, for a recovery that must still write them; refused
   * when the source no longer holds the reviewed bytes. Without it the engine re-plans the
   * recorded fields of the one work item.
   */
  replan?(env: ChangeEnv, record: ChangeRecord): WorkItemEditPlan;
  /** The preview's answer: what to review, and how to apply it. */
  previewAnswer(planned: PlannedChange, facts: PreviewFacts): Record<string, unknown>;
  /** The kind's additions to an apply's outcome, given the engine's answer. */
  outcomeAnswer(answer: Record<string, unknown>): Record<string, unknown>;
  /** The kind's additions to a status or recovery answer; without it they are the engine's. */
  journalAnswer?(answer: Record<string, unknown>): Record<string, unknown>;
}
