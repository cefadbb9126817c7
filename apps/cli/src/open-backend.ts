import type { OperationBackend } from "./backend/backend.js";
import type { CommandContext } from "./context.js";

/**
 * Remote when `--url` is given, else the ledger of the project found from `--project`. Each
 * backend is loaded on first use, so a command pays only for the stack it needs (the ledger and
 * its drivers, or the MCP client), which keeps `awr` quick to start.
 */
export async function openBackend(context: CommandContext): Promise<OperationBackend> {
  const { url, tokenEnv, projectKey } = context.globals;
  const signal = context.signal ? { signal: context.signal } : {};
  if (url !== undefined) {
    const { RemoteBackend } = await import("./backend/remote-backend.js");
    return RemoteBackend.open({
      url,
      env: context.io.env,
      ...(tokenEnv !== undefined ? { tokenEnv } : {}),
      ...(projectKey !== undefined ? { projectKey } : {}),
      ...signal,
    });
  }
  const root = await context.projectRoot();
  const { LocalBackend } = await import("./backend/local-backend.js");
  return LocalBackend.open(root, { env: context.io.env, ...signal });
}
