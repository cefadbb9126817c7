import { requestId } from "./fields.js";
import type { ProjectToolDefinition } from "./tool-definition.js";

export const OPERATION_TOOLS: readonly ProjectToolDefinition[] = [
  {
    name: "awr_operation_get",
    title: "Operation",
    kind: "read",
    method: "operationGet",
    description:
      "What became of one of your writes, by its request_id: outcome recorded or unknown, the domain receipts bound to it and the next action. Call it after a timeout or a dropped connection instead of guessing; never infer failure from a closed stream. NotFound: no such request for this client (it never arrived: retrying with the same request_id is safe).",
    shape: { request_id: requestId() },
  },
  {
    name: "awr_operation_recover",
    title: "Recover operation",
    kind: "write",
    method: "operationRecover",
    description:
      "Settles a write whose outcome is unknown, without running it again: a finished request is replayed; an unfinished one with exactly one terminal event is recorded as committed (recovered: true); with none as not_committed. Call it when awr_operation_get reports outcome unknown. MutationConflict: ambiguous, inspect the receipts. RevisionConflict: read again.",
    shape: { request_id: requestId() },
  },
  {
    name: "awr_source_reindex",
    title: "Reindex sources",
    kind: "write",
    method: "sourceReindex",
    description:
      "Re-reads the project's planning sources (Markdown/YAML) into the ledger; unchanged sources are skipped. Call it when a read answers SourceStale. InvalidInput names a malformed source file and line: fix the file, then retry.",
    shape: {},
  },
];
