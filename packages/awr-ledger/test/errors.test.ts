import { AWR_ERROR_CODES, isLedgerError, LedgerError } from "@awr/awr-ledger";
import { describe, expect, it } from "vitest";

describe("ledger errors", () => {
  it("use exactly the 14 AWR codes, Storage, then the five workstream codes", () => {
    expect(Object.values(AWR_ERROR_CODES)).toEqual([
      "NotFound",
      "InvalidInput",
      "RevisionConflict",
      "SourceStale",
      "SourceConflict",
      "DependencyBlocked",
      "ClaimConflict",
      "RuleViolation",
      "EvidenceMissing",
      "MutationConflict",
      "ContextIncomplete",
      "BudgetExceeded",
      "InvalidTransition",
      "Unsupported",
      "Storage",
      "WorkstreamAccessDenied",
      "WorkstreamScopeRequired",
      "WorkstreamBindingMismatch",
      "WorkstreamStaleAuthority",
      "WorkstreamUnavailable",
    ]);
  });

  it("carry code, message, details and cause, and serialise to the wire shape", () => {
    const cause = new Error("disk full");
    const error = new LedgerError(
      "RevisionConflict",
      "expected 3, found 4",
      { expected: 3, actual: 4 },
      { cause },
    );
    expect(error).toBeInstanceOf(Error);
    expect(error.cause).toBe(cause);
    expect(JSON.parse(JSON.stringify(error))).toEqual({
      code: "RevisionConflict",
      message: "expected 3, found 4",
      details: { expected: 3, actual: 4 },
    });
    expect(isLedgerError(error)).toBe(true);
    expect(isLedgerError(error, "NotFound")).toBe(false);
    expect(isLedgerError(new Error("plain"))).toBe(false);
  });
});
