import { resolve } from "node:path";
import type { Registry } from "@awr/awr-server";
import { CLI_ERROR_CODES, CliError } from "../cli-error.js";
import type { CommandContext } from "../context.js";
import { formatTable } from "../output/table.js";

/** The JSON `awr --json registry check` prints for a valid file (tokens never appear). */
export function registrySummary(registry: Registry) {
  return {
    ok: true as const,
    file: registry.file,
    version: registry.version,
    allowed_hosts: [...registry.allowed_hosts],
    allowed_origins: [...registry.allowed_origins],
    projects: registry.projects.map(({ key, root, project_id }) => ({ key, root, project_id })),
    clients: registry.clients.map((client) => ({
      id: client.id,
      token_env: client.token_env,
      read: [...client.read].filter((key) => !client.write.has(key)).sort(),
      write: [...client.write].sort(),
      workstreams: client.workstreams.map((grant) => ({ ...grant })),
    })),
  };
}

/**
 * Validates a registry exactly as awr-mcp does at startup (awr-server's checker): shape, names,
 * duplicates, canonical roots, initialised ledgers whose project_id matches, tokens present in
 * the environment and long enough, grants naming known projects. Starts nothing.
 */
export async function runRegistryCheck(context: CommandContext, file: string): Promise<void> {
  const path = resolve(context.io.cwd, file);
  const { checkRegistry, defaultBackend } = await import("@awr/awr-server");
  const result = await checkRegistry(path, context.io.env, {
    ...(context.signal ? { signal: context.signal } : {}),
    readIdentity: defaultBackend({ env: context.io.env as NodeJS.ProcessEnv }).readIdentity,
  });
  if (!result.ok) {
    throw new CliError(
      CLI_ERROR_CODES.RegistryInvalid,
      `${path} has ${result.problems.length} problem(s); awr-mcp would refuse to start:\n${result.problems.map((p) => `  - ${p}`).join("\n")}`,
      { details: { file: path, problems: result.problems } },
    );
  }
  const summary = registrySummary(result.registry);
  const c = context.colors;
  context.print(summary, () => [
    `${c.green("ok")}: ${path} (version ${summary.version}) is valid; every project identity matches its ledger.`,
    `allowed hosts: ${summary.allowed_hosts.length ? summary.allowed_hosts.join(", ") : "loopback only (default)"}`,
    `allowed origins: ${summary.allowed_origins.length ? summary.allowed_origins.join(", ") : "none (native clients send no Origin)"}`,
    "",
    ...formatTable(
      summary.projects,
      [
        { header: "project", value: (p) => p.key },
        { header: "root", value: (p) => p.root, shrink: true },
        { header: "project_id", value: (p) => p.project_id },
      ],
      { header: c.dim, width: c.width },
    ),
    "",
    ...formatTable(
      summary.clients,
      [
        { header: "client", value: (cl) => cl.id },
        { header: "token_env", value: (cl) => cl.token_env },
        { header: "write", value: (cl) => cl.write.join(", ") || "-" },
        { header: "read only", value: (cl) => cl.read.join(", ") || "-" },
        { header: "workstreams", value: (cl) => String(cl.workstreams.length) },
      ],
      { header: c.dim, width: c.width },
    ),
  ]);
}
