import {
  type ContextCompileResult,
  isLedgerError,
  type Ledger,
  type ToolInput,
} from "@awr/awr-ledger";

/**
 * awr_context_compile's L1 result whether or not it is complete: an incomplete packet is
 * ContextIncomplete carrying the whole result (as the original answers it), which is what a
 * host reads, so tests of the compiler look at that result either way.
 */
export async function compileL1(
  ledger: Ledger,
  input: ToolInput<"awr_context_compile">,
  caller = { client: "stdio" },
): Promise<ContextCompileResult> {
  try {
    return (await ledger.call("awr_context_compile", input, caller)) as ContextCompileResult;
  } catch (error) {
    if (isLedgerError(error, "ContextIncomplete") && error.result !== undefined) {
      return error.result as unknown as ContextCompileResult;
    }
    throw error;
  }
}
