// The `@awr/awr-ledger/open` entry: opening a project and running its operations, without the
// rest of the package's API. A process that answers one command (the `awr` CLI) imports this and
// loads about 100 of the package's modules instead of 160 (workstream listings, secrets, init,
// the context compiler's exports): module loading is most of a cold read. The same classes and
// functions as the main entry (the same module instances), so the two can be mixed.

export {
  type Caller,
  type CallOptions,
  Ledger,
  type LedgerSource,
  type OpenLedgerOptions,
  openLedger,
  type ToolResult,
} from "./ledger.js";
export {
  type SourceRefusal,
  type SourceScan,
  StaleChecker,
} from "./projection/stale-check.js";
