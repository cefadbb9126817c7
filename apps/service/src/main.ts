#!/usr/bin/env node
import { runService } from "./run-service.js";

// stdout belongs to the MCP protocol (stdio mode): every diagnostic goes to stderr.
const log = (line: string) => process.stderr.write(`${line}\n`);

runService({ argv: process.argv.slice(2), env: process.env, log }).then(
  (code) => process.exit(code),
  (error: unknown) => {
    log(`awr-mcp: fatal: ${(error as Error)?.stack ?? String(error)}`);
    process.exit(1);
  },
);
