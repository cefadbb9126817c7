import { LedgerError } from "../../errors.js";

/**
 * The run of a tool whose schema this version already lists (so hosts written for the full
 * 32-tool interface see every name) but whose behaviour it does not have yet: an honest
 * Unsupported naming what is missing and what to do instead, with nothing read or written.
 */
export function notYetImplemented(tool: string, missing: string, instead: string) {
  return async (): Promise<never> => {
    throw new LedgerError(
      "Unsupported",
      `${tool} is not implemented in this version of AWR: ${missing}. Nothing was read or written. ${instead}`,
      { tool, implemented: false },
    );
  };
}
