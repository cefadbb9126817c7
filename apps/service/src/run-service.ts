import { realpath, stat } from "node:fs/promises";
import {
  defaultBackend,
  type LedgerBackend,
  loadRegistry,
  RegistryError,
  startHttpService,
  startStdioServer,
} from "@awr/awr-server";
import { PACKAGE_VERSION } from "./package-version.js";
import { parseCli, USAGE, UsageError } from "./parse-cli.js";
import { onShutdownSignals } from "./shutdown.js";

/** What `awr-mcp --version` prints: this package's version, from its package.json. */
export const VERSION = PACKAGE_VERSION;

export interface ServiceIo {
  readonly argv: readonly string[];
  readonly env: Readonly<Record<string, string | undefined>>;
  /** stderr: every log line; stdout carries protocol only. */
  readonly log: (line: string) => void;
  readonly backend?: LedgerBackend;
}

/**
 * Runs awr-mcp until it is told to stop. Resolves with the process exit code: 0 after a clean
 * stop, 1 for a refused configuration, 2 for a usage mistake.
 */
export async function runService(io: ServiceIo): Promise<number> {
  const log = (line: string) => io.log(`awr-mcp: ${line}`);
  let command: ReturnType<typeof parseCli>;
  try {
    command = parseCli(io.argv);
  } catch (error) {
    if (!(error instanceof UsageError)) throw error;
    log(error.message);
    io.log(USAGE);
    return 2;
  }
  if (command.kind === "help") {
    io.log(USAGE);
    return 0;
  }
  if (command.kind === "version") {
    io.log(VERSION);
    return 0;
  }
  const backend = io.backend ?? defaultBackend();

  if (command.kind === "stdio") {
    const info = await stat(command.project).catch(() => undefined);
    if (!info?.isDirectory()) {
      log(
        `--project ${command.project} is not a directory; give the absolute path of an AWR project`,
      );
      return 2;
    }
    const root = await realpath(command.project);
    const server = await startStdioServer({ root, backend, log });
    const stopped = onShutdownSignals(log, () => server.close());
    log(`serving ${root} over stdio`);
    await Promise.race([server.closed, stopped.requested]);
    await server.close();
    stopped.dispose();
    return 0;
  }

  let registry: Awaited<ReturnType<typeof loadRegistry>>;
  try {
    registry = await loadRegistry(command.registry, io.env, { readIdentity: backend.readIdentity });
  } catch (error) {
    if (!(error instanceof RegistryError)) throw error;
    for (const problem of error.problems) log(`registry ${command.registry}: ${problem}`);
    log(`refusing to start: ${error.problems.length} problem(s) in the registry`);
    return 1;
  }
  const service = await startHttpService({
    registry,
    backend,
    host: command.host,
    port: command.port,
    log,
  });
  const stopped = onShutdownSignals(log, () => service.close());
  log(
    `listening on ${service.url} (${registry.projects.length} project(s), ${registry.clients.length} client(s), registry version ${registry.version})`,
  );
  await stopped.requested;
  await service.close();
  stopped.dispose();
  log("stopped");
  return 0;
}
