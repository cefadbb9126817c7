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
 * The one line for a --listen address the system refuses (a configuration problem, exit 1, no
 * stack trace), with its fix; undefined for any other failure, which stays fatal.
 */
function listenProblem(error: unknown, host: string, port: number): string | undefined {
  const address = `${host.includes(":") ? `[${host}]` : host}:${port}`;
  switch ((error as NodeJS.ErrnoException | undefined)?.code) {
    case "EADDRINUSE":
      return `cannot listen on ${address}: the address is already in use by another process; stop that process or pick another --listen address`;
    case "EADDRNOTAVAIL":
      return `cannot listen on ${address}: no network interface of this machine has that address; pick another --listen address (e.g. 127.0.0.1:${port})`;
    case "ENOTFOUND":
      return `cannot listen on ${address}: the host name ${host} does not resolve; give an address of this machine (e.g. 127.0.0.1:${port}) in --listen`;
    case "EACCES":
      return `cannot listen on ${address}: permission denied (ports below 1024 need privileges); pick another --listen address`;
    default:
      return undefined;
  }
}

/**
 * Runs awr-mcp until it is told to stop. Resolves with the process exit code: 0 after a clean
 * stop, 1 for a refused configuration (registry problems, a --listen address that cannot be
 * used), 2 for a usage mistake.
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
  let service: Awaited<ReturnType<typeof startHttpService>>;
  try {
    service = await startHttpService({
      registry,
      backend,
      host: command.host,
      port: command.port,
      log,
    });
  } catch (error) {
    const refused = listenProblem(error, command.host, command.port);
    if (refused === undefined) throw error;
    log(refused);
    return 1;
  }
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
