import { throwIfAborted } from "../../internal/abort.js";
import type { WorkstreamAccess } from "../../workstreams/workstream-access.js";
import { readWorkstream, type WorkstreamLedger } from "../../workstreams/workstream-read.js";
import { admitArguments } from "../admit-arguments.js";
import { checkedSchemaFor } from "../catalog.js";
import { workstreamOperation } from "./workstream-operations.js";

/**
 * One awr_workstream call from a library caller, with arguments as they came (the tool's,
 * without `project`): they pass the same gate as a tool call's (the catalog's schema, each
 * action's `args` by its own), then the read runs (see readWorkstream).
 */
export async function workstreamRead(
  ledger: WorkstreamLedger,
  input: unknown,
  access: WorkstreamAccess | undefined,
  options: { signal?: AbortSignal | undefined } = {},
): Promise<Record<string, unknown>> {
  throwIfAborted(options.signal);
  const admitted = admitArguments(
    workstreamOperation.tool,
    checkedSchemaFor(workstreamOperation, "stdio"),
    input,
  );
  return await readWorkstream(ledger, admitted, access, options);
}
