import { mkdir, readFile, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { initProject } from "@awr/awr-ledger";
import type { Client } from "@modelcontextprotocol/sdk/client/index.js";
import Database from "better-sqlite3";
import { expect } from "vitest";
import { toolCall } from "./call-path.js";

/**
 * A project in the shape the host scenarios need (our own text): W is ready once its completed
 * dependency D is, NEXT is ready on its own, one hard rule, one active goal. Sources are named
 * work.yaml, rules.md and goal.md, with the manifest in .awr/project.toml.
 */
export const CRITERION = "Ship the reviewed quarterly report";
export const SHA = "a".repeat(40);
export const RULE_TEXT = "Quote every figure together with its source.";

export const WORK = `work_items:
  - id: W
    title: Prepare the quarterly report
    status: ready
    owner: report-lead
    next_action: Outline the report
    depends_on: [D]
    acceptance: [${CRITERION}]
  - id: D
    title: Collect the figures
    status: completed
  - id: NEXT
    title: Plan the follow-up
    status: ready
    next_action: List the follow-up questions
    acceptance: [A follow-up plan exists]
`;

export const MANIFEST = `[project]
name = "host scenarios"
external_key = "host"

[[sources]]
domain = "work"
role = "primary"
path = "work.yaml"
adapter = "yaml-ledger-v1"

[[sources]]
domain = "rule"
role = "primary"
path = "rules.md"
adapter = "markdown-rules-v1"

[[sources]]
domain = "goal"
role = "primary"
path = "goal.md"
adapter = "markdown-heading-v1"
[sources.options]
status = "active"
`;

/** Writes and initialises the project under `parent/name` (W titled `title`); returns its root. */
export async function hostProject(parent: string, name: string, title?: string): Promise<string> {
  const root = join(parent, name);
  await mkdir(root, { recursive: true });
  const work = title === undefined ? WORK : WORK.replace("Prepare the quarterly report", title);
  await writeFile(join(root, "work.yaml"), work);
  await writeFile(
    join(root, "rules.md"),
    `# Rules\n\n## Figures {#figures severity=hard scope=global}\n\n${RULE_TEXT}\n`,
  );
  await writeFile(
    join(root, "goal.md"),
    "# Goals\n\n## Useful reporting {#reporting}\n\nThe team gets a reviewed report.\n",
  );
  await writeFile(join(root, "project.toml"), MANIFEST);
  await initProject({ root, manifest: join(root, "project.toml"), accept: true });
  return root;
}

/** Every row of every table of the project's database, sorted: equal means nothing changed. */
export function logicalState(root: string): Record<string, string[]> {
  const db = new Database(join(root, ".awr", "state.db"), { readonly: true, fileMustExist: true });
  try {
    const tables = db
      .prepare("SELECT name FROM sqlite_master WHERE type = 'table' ORDER BY name")
      .all() as { name: string }[];
    return Object.fromEntries(
      tables.map(({ name }) => [
        name,
        (db.prepare(`SELECT * FROM "${name.replaceAll('"', '""')}"`).all() as unknown[])
          .map((row) => JSON.stringify(row))
          .sort(),
      ]),
    );
  } finally {
    db.close();
  }
}

/** The project's id, read from its database. */
export function projectIdOf(root: string): string {
  const db = new Database(join(root, ".awr", "state.db"), { readonly: true, fileMustExist: true });
  try {
    return (db.prepare("SELECT project_id FROM project_state").get() as { project_id: string })
      .project_id;
  } finally {
    db.close();
  }
}

/** The project's current revision, read from its database. */
export function revisionOf(root: string): number {
  const db = new Database(join(root, ".awr", "state.db"), { readonly: true, fileMustExist: true });
  try {
    return (db.prepare("SELECT revision FROM project_state").get() as { revision: number })
      .revision;
  } finally {
    db.close();
  }
}

export type Body = Record<string, unknown> & {
  code?: string;
  details?: Record<string, unknown>;
};

/** Calls a tool; checks the text equals structuredContent and isError is exactly `failed`. */
export async function call(
  client: Client,
  name: string,
  args: Record<string, unknown>,
  failed = false,
): Promise<Body> {
  const result = await toolCall(client, name, args);
  const body = result.structuredContent as Body;
  const text = (result.content as { type: string; text: string }[])[0]?.text ?? "";
  expect(JSON.parse(text)).toEqual(body);
  // isError is explicit either way, as the original sends it.
  expect({ tool: name, isError: result.isError, body }).toMatchObject({
    tool: name,
    isError: failed,
  });
  return body;
}

/** A failing call's error code (top-level, or under `error` for a partial result). */
export async function failure(
  client: Client,
  name: string,
  args: Record<string, unknown>,
  code: string,
): Promise<Body> {
  const body = await call(client, name, args, true);
  const error = body["error"] as { code?: string } | undefined;
  expect({ tool: name, code: body.code ?? error?.code }).toEqual({ tool: name, code });
  return body;
}

/** Starts a session on `work` (claiming it) at the current revision; returns ids. */
export async function claimWork(
  client: Client,
  root: string,
  work: string,
  conversation: string,
): Promise<{ session: string; claim: string }> {
  const started = await call(client, "awr_session_start", {
    work,
    conversation,
    agent: "report-writer",
    provider: "fixture",
    model: "none",
    claim: true,
    ttl_ms: 600_000,
    expected_revision: revisionOf(root),
  });
  return {
    session: (started["session"] as { id: string }).id,
    claim: (started["claim"] as { id: string }).id,
  };
}

/** Runs awr_source_reindex at the project's current revision. */
export async function reindex(client: Client, root: string): Promise<void> {
  await call(client, "awr_source_reindex", { expected_revision: revisionOf(root) });
}

export const readText = (root: string, file: string) => readFile(join(root, file), "utf8");
