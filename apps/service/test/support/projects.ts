import { mkdir, mkdtemp, realpath, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { initProject } from "@awr/awr-ledger";

export const WORK_LEDGER = `# Work for the end-to-end tests.
milestones: []
work_items:
  - id: W-1
    title: Build checkout
    status: ready
    acceptance:
      - tests pass
    next_action: Write the payment form
  - id: W-2
    title: Add receipts
    status: ready
    depends_on: []
`;

export const GOALS = `# Checkout {#checkout status=active}

Customers can pay for their orders.
`;

export const RULES = `# Tests before merge {#tests severity=hard}

Every change ships with tests.
`;

/** A fresh temp directory (canonical path); remove it with cleanup(). */
export async function tempDir(prefix: string): Promise<{ dir: string; cleanup(): Promise<void> }> {
  const dir = await realpath(await mkdtemp(join(tmpdir(), prefix)));
  return { dir, cleanup: () => rm(dir, { recursive: true, force: true }) };
}

/** Creates and initialises a small project; `manifest` (TOML text) selects e.g. PostgreSQL. */
export async function makeProject(
  parent: string,
  name: string,
  options: { manifest?: string; env?: NodeJS.ProcessEnv } = {},
): Promise<{ root: string; project_id: string }> {
  const root = join(parent, name);
  await mkdir(root, { recursive: true });
  await writeFile(join(root, "work-ledger.yaml"), WORK_LEDGER);
  await writeFile(join(root, "GOALS.md"), GOALS);
  await writeFile(join(root, "RULES.md"), RULES);
  let manifest: string | undefined;
  if (options.manifest) {
    manifest = join(parent, `${name}.project.toml`);
    await writeFile(manifest, options.manifest);
  }
  const result = await initProject({ root, accept: true, manifest, env: options.env });
  return { root, project_id: result.project_id as string };
}

export interface RegistryClientSpec {
  id: string;
  token: string;
  read?: string[];
  write?: string[];
}

/** Writes a registry for the given projects and clients; returns the file and the token env. */
export async function writeRegistry(
  dir: string,
  projects: { key: string; root: string; project_id: string }[],
  clients: RegistryClientSpec[],
  extra = "",
): Promise<{ file: string; env: Record<string, string> }> {
  const env: Record<string, string> = {};
  const lines = ["version = 1", ""];
  for (const project of projects) {
    lines.push(
      "[[projects]]",
      `key = "${project.key}"`,
      `root = "${project.root}"`,
      `project_id = "${project.project_id}"`,
      "",
    );
  }
  for (const client of clients) {
    const name = `AWR_TEST_TOKEN_${client.id.toUpperCase().replace(/[^A-Z0-9]/g, "_")}`;
    env[name] = client.token;
    lines.push("[[clients]]", `id = "${client.id}"`, `token_env = "${name}"`);
    if (client.read) lines.push(`read = ${JSON.stringify(client.read)}`);
    if (client.write) lines.push(`write = ${JSON.stringify(client.write)}`);
    lines.push("");
  }
  const file = join(dir, "service.toml");
  // Mode 600 whatever the umask: the service refuses a registry others could write.
  await writeFile(file, `${lines.join("\n")}${extra}`, { mode: 0o600 });
  return { file, env };
}

/**
 * A manifest (project `name`) whose supporting goal source may hold up to 100,000 headings and
 * 16 MiB: a GOALS.md of many headings makes a reindex that runs for a while.
 */
export function largeGoalsManifest(name: string): string {
  return `[project]
name = "${name}"
[[sources]]
domain = "ledger"
role = "primary"
path = "work-ledger.yaml"
adapter = "yaml-ledger-v1"
[[sources]]
domain = "goal"
role = "supporting"
path = "GOALS.md"
adapter = "markdown-heading-v1"
[sources.options]
max_entities = 100000
max_bytes = 16777216
`;
}
