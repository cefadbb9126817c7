import type { AwrErrorCode } from "../../errors.js";

/** A problem found in a source, always located by file and (when known) 1-based line. */
export interface SourceIssue {
  path: string;
  line: number | null;
  severity: "error" | "warning";
  message: string;
  /**
   * The error code a refusal over this issue carries when it is not InvalidInput, e.g.
   * `Unsupported` for what this build reads only through another adapter (a `workstreams:`
   * block under yaml-ledger-v1, an unknown workstreams version).
   */
  code?: AwrErrorCode | undefined;
}
