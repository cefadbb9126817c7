import type { RuntimeCaller } from "../core/runtime-context.js";
import type { OperationHost, OperationOptions } from "./operation.js";

/**
 * A read's source check: SourceStale (with the fix) when a source changed since the last index,
 * unless the caller asks for a refresh (the CLI's reads), which reindexes the changed sources
 * first. The dispatch runs it for every `sources` read; a `scoped` read that stands on the
 * projection runs it itself. Nothing to check for a runtime without project sources.
 */
export async function checkSources(
  host: OperationHost,
  caller: RuntimeCaller,
  options: OperationOptions,
): Promise<void> {
  await host.project?.ensureFresh({
    refresh: options.refresh === true,
    client: caller.client,
    ...(options.signal === undefined ? {} : { signal: options.signal }),
  });
}
