import type { Operation, OperationHost, OperationOptions } from "./operation.js";

/** A `sources` read answered from the last recorded projection (`--cached`): not verified. */
export const LAST_RECORDED = "last_recorded_source_state";

/**
 * The fields where a CLI read and a tool read may differ (docs/compatibility/mcp-protocol.md):
 * the CLI reindexes changed sources first, a tool call reads what is indexed and never writes.
 */
export function readPolicy(
  // biome-ignore lint/suspicious/noExplicitAny: any catalog entry.
  entry: Operation<any, unknown>,
  host: OperationHost,
  options: OperationOptions,
): Record<string, unknown> {
  if (entry.freshness === "scoped") return {};
  if (entry.kind === "write") {
    return entry.freshness === "refresh" && host.project !== undefined
      ? { freshness_basis: "source_refresh", source_refresh_performed: true }
      : {};
  }
  if (entry.freshness === "runtime") {
    return {
      freshness_basis: "runtime_database",
      source_refresh_performed: false,
      read_only: true,
    };
  }
  if (options.cachedProjection === true) {
    return { freshness_basis: LAST_RECORDED, source_refresh_performed: false, read_only: true };
  }
  return options.refresh === true
    ? { freshness_basis: "source_refresh", source_refresh_performed: true, read_only: false }
    : {
        freshness_basis: "source_verified_readonly",
        source_refresh_performed: false,
        read_only: true,
      };
}
