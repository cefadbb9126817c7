// The `@awr/awr-ledger/drivers` entry: how an application hands the ledger the database drivers
// it depends on (loadDriversFrom). One small module, so a program can call it first thing
// without loading the rest of the ledger.
export { loadDriversFrom } from "./internal/database-drivers.js";
