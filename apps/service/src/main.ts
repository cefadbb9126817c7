#!/usr/bin/env node
import { createRequire } from "node:module";
import { loadDriversFrom } from "@awr/awr-ledger/drivers";
import { runService } from "./run-service.js";

// The database drivers are this package's dependencies: the ledger finds them through this
// package's resolution, wherever the install put them (a global install, a bundled awr).
loadDriversFrom(createRequire(import.meta.url));

// stdout belongs to the MCP protocol (stdio mode): every diagnostic goes to stderr.
const log = (line: string) => process.stderr.write(`${line}\n`);

runService({ argv: process.argv.slice(2), env: process.env, log }).then(
  (code) => process.exit(code),
  (error: unknown) => {
    log(`awr-mcp: fatal: ${(error as Error)?.stack ?? String(error)}`);
    process.exit(1);
  },
);
