import { isAbsolute } from "node:path";
import { parseArgs } from "node:util";

export const USAGE = `Usage:
  awr-mcp --project /absolute/project            serve one project over stdio
  awr-mcp --registry FILE --listen HOST:PORT     shared Streamable HTTP service at /mcp

Options:
  --project DIR      absolute path of an AWR project (stdio mode)
  --registry FILE    service registry (TOML, version 1 or 2)
  --listen HOST:PORT address to listen on, e.g. 127.0.0.1:8080 or [::1]:8080
  -h, --help         show this help
  -V, -v, --version  print the version`;

export type CliCommand =
  | { kind: "stdio"; project: string }
  | { kind: "http"; registry: string; host: string; port: number }
  | { kind: "help" }
  | { kind: "version" };

/** A usage mistake: printed with the fix, exit code 2. */
export class UsageError extends Error {
  override readonly name = "UsageError";
}

export function parseListen(value: string): { host: string; port: number } {
  const match = /^(?:\[([0-9A-Fa-f:.]+)\]|([^:[\]]+)):(\d{1,5})$/.exec(value);
  const port = Number(match?.[3]);
  if (!match || port > 65535) {
    throw new UsageError(
      `--listen needs HOST:PORT (e.g. 127.0.0.1:8080 or [::1]:8080); got "${value}"`,
    );
  }
  return { host: (match[1] ?? match[2]) as string, port };
}

export function parseCli(argv: readonly string[]): CliCommand {
  let values: Record<string, string | boolean | undefined>;
  try {
    ({ values } = parseArgs({
      args: [...argv],
      options: {
        project: { type: "string" },
        registry: { type: "string" },
        listen: { type: "string" },
        help: { type: "boolean", short: "h" },
        version: { type: "boolean", short: "v" },
        // -V as well, as `awr -V` (parseArgs takes one short name per option).
        "version-short": { type: "boolean", short: "V" },
      },
      strict: true,
      allowPositionals: false,
    }));
  } catch (error) {
    throw new UsageError((error as Error).message, { cause: error });
  }
  if (values["help"]) return { kind: "help" };
  if (values["version"] || values["version-short"]) return { kind: "version" };
  const project = values["project"] as string | undefined;
  const registry = values["registry"] as string | undefined;
  const listen = values["listen"] as string | undefined;
  if (project !== undefined && (registry !== undefined || listen !== undefined)) {
    throw new UsageError(
      "--project (stdio) and --registry/--listen (shared HTTP) exclude each other; choose one mode",
    );
  }
  if (project !== undefined) {
    if (!isAbsolute(project)) {
      throw new UsageError(
        `--project needs an absolute path; got "${project}". Try --project "${process.cwd()}/${project}"`,
      );
    }
    return { kind: "stdio", project };
  }
  if (registry !== undefined || listen !== undefined) {
    if (registry === undefined) throw new UsageError("--listen needs --registry FILE");
    if (listen === undefined) throw new UsageError("--registry needs --listen HOST:PORT");
    return { kind: "http", registry, ...parseListen(listen) };
  }
  throw new UsageError("give --project /absolute/project, or --registry FILE --listen HOST:PORT");
}
