// Public API of @awr/service (the awr-mcp program). Named exports only.

export { type CliCommand, parseCli, parseListen, USAGE, UsageError } from "./parse-cli.js";
export { runService, type ServiceIo, VERSION } from "./run-service.js";
