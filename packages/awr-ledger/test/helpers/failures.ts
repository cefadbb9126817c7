import { isLedgerError, type LedgerError } from "@awr/awr-ledger";

/**
 * Runs `promise` and returns the LedgerError it rejects with; any other rejection goes on, and a
 * promise that resolves fails with `unexpected` (what a suite calls a call that should have failed).
 */
export async function ledgerFailure(
  promise: Promise<unknown>,
  unexpected = "expected the call to fail with a LedgerError",
): Promise<LedgerError> {
  // Awaited first: a rejection must find its handler at once, not after another await.
  try {
    await promise;
  } catch (error) {
    if (isLedgerError(error)) return error;
    throw error;
  }
  throw new Error(unexpected);
}
