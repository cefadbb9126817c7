// Public API of @awr/cli: run() is the whole CLI against given streams (bin/main.ts wraps it).

export type {
  CallOptions,
  OperationBackend,
  OperationInput,
  OperationResult,
} from "./backend/backend.js";
export { DEFAULT_TOKEN_ENV } from "./backend/backend.js";
export {
  CLI_ERROR_CODES,
  CliError,
  type CliErrorCode,
  type ErrorPayload,
  EXIT_CODES,
  type ExitCode,
} from "./cli-error.js";
export { newToken, TOKEN_BYTES } from "./commands/registry-commands.js";
export type { GlobalOptions, RunIO } from "./context.js";
export type { OutputStream } from "./output/style.js";
export { findProjectRoot, PROJECT_MANIFEST } from "./project-root.js";
export { type RunOptions, run } from "./run.js";
