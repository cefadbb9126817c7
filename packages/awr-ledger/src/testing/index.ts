// Subpath `@awr/awr-ledger/testing`: what the ledger's own tests, child processes and benchmarks
// reach below the public API: the storage layer (stores, dialects, migrations, revisions,
// events), the journal's fault switch (docs/design/fault-switch.md) and a ledger's store.
// Not a stable API: it changes with the ledger's internals, and it is not published (the
// packed package's exports leave it out, so a program using AWR reaches history only through
// the ledger's operations).

export { createLedgerRuntime } from "../catalog/ledger-runtime.js";
export { FAULT_ENV, FAULT_POINTS, type FaultPoint } from "../journal/fault-injection.js";
export { type DatabaseInput, openProjectDatabase } from "../project/project-storage.js";
export * from "../storage/index.js";
export { ledgerStore } from "../storage/ledger-store-of.js";
