import type { RuntimeCaller, RuntimeContext } from "../core/runtime-context.js";
import type { ToolInput, ToolName, ToolOutput } from "./catalog.js";
import { runOperation } from "./dispatch.js";
import type { OperationOptions } from "./operation.js";

/**
 * The catalog's runtime operations on a bare store, without project sources (tests seed the
 * projection directly): the same dispatch as Ledger, for the tools that need no sources.
 */
export interface LedgerRuntime {
  call<T extends ToolName>(
    tool: T,
    input: ToolInput<T>,
    caller: RuntimeCaller,
    options?: OperationOptions,
  ): Promise<ToolOutput<T> & { ok: true }>;
  execute(
    tool: string,
    input: unknown,
    caller: RuntimeCaller,
    options?: OperationOptions,
  ): Promise<Record<string, unknown>>;
}

export function createLedgerRuntime(ctx: RuntimeContext): LedgerRuntime {
  const host = { runtime: ctx };
  return {
    call: (tool, input, caller, options) =>
      runOperation(host, tool, input, caller, options) as never,
    execute: (tool, input, caller, options) => runOperation(host, tool, input, caller, options),
  };
}
