import { randomUUID } from "node:crypto";
import { AwrToolError } from "../tool-result.js";

/** The command the operator runs in the project's root on the server to reindex it. */
function operatorCommand(revision: number): string {
  return `awr source reindex --expected-revision ${revision}`;
}

/**
 * A ledger SourceStale as a shared-service client can act on it. The ledger names the stdio call
 * (`awr_source_reindex` with `expected_revision` only); over HTTP that call also needs `project`
 * and a `request_id`, and only a client with write access to the project may make it. So:
 * - a writer gets `details.next` callable exactly as written: the project key, the revision and a
 *   fresh request_id (new on every answer, so a host that calls it never replays another
 *   reindex's journal entry);
 * - a read-only client gets no call it would be refused: `details.next` says who can reindex (a
 *   client with write access, or the operator) and `details.operator_cli` the operator's command.
 * Neither names a path of the server's disk. Anything else (another error, a SourceStale without
 * the ledger's reindex hint) is returned unchanged.
 */
export function sharedSourceStale(error: unknown, project: string, canWrite: boolean): unknown {
  if (!(error instanceof Error) || error.name !== "LedgerError") return error;
  const { code, details } = error as Error & { code?: unknown; details?: unknown };
  if (code !== "SourceStale" || details === null || typeof details !== "object") return error;
  const given = details as Record<string, unknown>;
  const hint = given["next"] as { tool?: unknown } | undefined;
  const revision = given["project_revision"];
  if (hint?.tool !== "awr_source_reindex" || typeof revision !== "number") return error;

  const paths = Array.isArray(given["changed_paths"]) ? given["changed_paths"] : [];
  const changed =
    paths.length > 0
      ? `Sources changed since the last index: ${paths.join(", ")}.`
      : "Sources changed since the last index.";
  const { next: _stdioHint, cli: _stdioCli, ...rest } = given;
  if (canWrite) {
    const call = {
      tool: "awr_source_reindex",
      arguments: { project, expected_revision: revision, request_id: `reindex-${randomUUID()}` },
    };
    return new AwrToolError(
      "SourceStale",
      `${changed} Reindex with awr_source_reindex as details.next gives it (project "${project}", expected_revision ${revision}, request_id "${call.arguments.request_id}"), then read again.`,
      { ...rest, next: call, cli: operatorCommand(revision) },
      { cause: error },
    );
  }
  const who = `a client with write access to project "${project}" (awr_source_reindex), or the service operator (\`${operatorCommand(revision)}\` in the project's root on the server)`;
  return new AwrToolError(
    "SourceStale",
    `${changed} This credential has read-only access and cannot reindex: ${who} can. Read again after the reindex.`,
    {
      ...rest,
      access: "read",
      reindex_by: ["write_client", "operator"],
      next: `Ask ${who} to reindex; then read again.`,
      operator_cli: operatorCommand(revision),
    },
    { cause: error },
  );
}
