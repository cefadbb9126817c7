import { LedgerError } from "../errors.js";
import type { SourceChangeKind } from "./change-kind.js";

function notHere(kind: string): never {
  throw new LedgerError("Unsupported", `change kind ${kind} is not available in this version`);
}

/**
 * The kinds whose writers this version does not have yet. They go through the same engine (the
 * identity, the journal, status and recovery are the engine's), so a writer plugs in by
 * replacing its entry here; until then every tool answers Unsupported for them, naming what is
 * missing, before anything is read or written.
 */
function pendingKind(kind: "create" | "batch", missing: string, instead: string): SourceChangeKind {
  return {
    kind,
    unavailable: { missing, instead },
    normalize: () => notHere(kind),
    plan: async () => notHere(kind),
    previewAnswer: () => notHere(kind),
    outcomeAnswer: () => notHere(kind),
  };
}

export const createKind = pendingKind(
  "create",
  "creating a draft work item from a reviewed change needs the source creation writer, which is not available yet",
  "Add the draft to the work ledger source yourself, then call awr_source_reindex with the current expected_revision; kinds edit and work_edit are available.",
);

export const batchKind = pendingKind(
  "batch",
  "changing several work items (or related files) together needs the batch writer and its whole-graph check, which are not available yet",
  "Make the changes one work item at a time with kind edit or work_edit, or edit the sources yourself and call awr_source_reindex.",
);
