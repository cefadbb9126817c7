import { createHash } from "node:crypto";
import { realpath } from "node:fs/promises";
import { isAbsolute } from "node:path";
import { findSecretsInSource } from "@awr/awr-ledger/secrets";
import { parse, TomlError } from "smol-toml";

import { defaultBackend } from "../default-backend.js";
import type { IdentityReader } from "../ledger-backend.js";
import { readRegistryFile } from "./read-registry-file.js";
import { checkRegistryShape, ENV_NAME_PATTERN } from "./registry-shape.js";
import type { Registry, RegistryClient, RegistryProject } from "./registry-types.js";
import {
  looksLikePastedToken,
  PASTED_TOKEN_PROBLEM,
  TOKEN_MAX_LENGTH,
  TOKEN_MIN_LENGTH,
  TOKEN_PATTERN,
} from "./token-shape.js";

export { REGISTRY_MAX_BYTES } from "./read-registry-file.js";
export { TOKEN_MAX_LENGTH, TOKEN_MIN_LENGTH } from "./token-shape.js";

/** The registry is unusable; `problems` lists every reason, one human-readable line each. */
export class RegistryError extends Error {
  override readonly name = "RegistryError";
  constructor(
    readonly file: string,
    readonly problems: readonly string[],
    options?: { cause?: unknown },
  ) {
    super(`registry ${file} has ${problems.length} problem(s):\n${problems.join("\n")}`, options);
  }
}

export interface CheckRegistryOptions {
  signal?: AbortSignal;
  /** How to read a root's project identity; defaults to the AWR ledger's own reader. */
  readIdentity?: IdentityReader;
}

export type RegistryCheck =
  | { ok: true; registry: Registry }
  | { ok: false; file: string; problems: string[] };

export function tokenDigest(token: string): Buffer {
  return createHash("sha256").update(token, "utf8").digest();
}

function duplicates(values: readonly string[]): string[] {
  const seen = new Set<string>();
  const repeated = new Set<string>();
  for (const value of values) {
    if (value === "") continue;
    if (seen.has(value)) repeated.add(value);
    seen.add(value);
  }
  return [...repeated];
}

/** `"a"`, `"a" and "b"`, `"a", "b" and "c"`. */
function quotedList(values: readonly string[]): string {
  const quoted = values.map((value) => `"${value}"`);
  return quoted.length <= 1
    ? quoted.join("")
    : `${quoted.slice(0, -1).join(", ")} and ${quoted.at(-1)}`;
}

/**
 * What makes two registry projects one: the same key, the same root, or the same project_id on
 * different roots. The last is a copied project directory (its `.awr/` came along, identity
 * included): the project_id is how the service and the ledger tell projects apart, so serving
 * both would give one identity two diverging ledgers. All three are refused at load.
 * One line per duplicate, naming the keys, the shared value and the fix.
 */
export function duplicateProjectProblems(projects: readonly RegistryProject[]): string[] {
  const problems: string[] = [];
  for (const key of duplicates(projects.map((p) => p.key))) {
    problems.push(`projects: duplicate key "${key}"`);
  }
  for (const root of duplicates(projects.map((p) => p.root))) {
    problems.push(`projects: duplicate root "${root}"`);
  }
  for (const id of duplicates(projects.map((p) => p.project_id))) {
    const sharing = projects.filter((p) => p.project_id === id);
    // One root listed twice is already its own problem above.
    if (new Set(sharing.map((p) => p.root)).size < 2) continue;
    problems.push(
      `projects: ${quotedList(sharing.map((p) => p.key))} have the same project_id "${id}" on different roots (${quotedList([...new Set(sharing.map((p) => p.root))])}); a project_id names one ledger, and a copied project directory keeps its original's, so the service refuses to serve both. Re-initialise the copy so it gets its own identity: move its copied .awr/ directory away, run \`awr init --accept\` in its root, and register the new project_id (from \`awr --json status\`)`,
    );
  }
  return problems;
}

/**
 * Validates a registry file completely: shape, names, duplicates, canonical roots, initialised
 * ledgers with matching project ids, tokens from the environment and grants. Never throws for a
 * problem in the file; it returns all of them. Rejects with `signal.reason` when aborted.
 */
export async function checkRegistry(
  file: string,
  env: Readonly<Record<string, string | undefined>>,
  options: CheckRegistryOptions = {},
): Promise<RegistryCheck> {
  const { signal } = options;
  signal?.throwIfAborted();
  const readIdentity = options.readIdentity ?? defaultBackend().readIdentity;
  const problems: string[] = [];
  const fail = () => ({ ok: false as const, file, problems });

  const read = await readRegistryFile(file, { signal });
  signal?.throwIfAborted();
  if (!read.ok) {
    problems.push(read.problem);
    return fail();
  }
  const { text } = read;
  // Before parsing, so that no later problem (a type error, a missing variable) quotes the value.
  const held = findSecretsInSource(text);
  if (held.length > 0) {
    for (const { line, category } of held) {
      problems.push(
        `line ${line}: holds a credential (${category}); a client names the environment variable that holds its token (token_env), never the token itself`,
      );
    }
    return fail();
  }

  let doc: Record<string, unknown>;
  try {
    doc = parse(text) as Record<string, unknown>;
  } catch (error) {
    const where = error instanceof TomlError ? `line ${error.line}, column ${error.column}: ` : "";
    const message = (error as Error).message.split("\n")[0] ?? "invalid TOML";
    problems.push(`${where}${message}`);
    return fail();
  }

  const raw = checkRegistryShape(doc, problems);

  problems.push(...duplicateProjectProblems(raw.projects));
  for (const id of duplicates(raw.clients.map((c) => c.id))) {
    problems.push(`clients: duplicate id "${id}"`);
  }

  // Checked concurrently, reported in file order.
  const rootProblems = await Promise.all(
    raw.projects.map(async (project, i): Promise<string[]> => {
      const at = `projects[${i}]`;
      if (project.root === "") return [];
      if (!isAbsolute(project.root)) {
        return [`${at}.root: "${project.root}" is relative; give the absolute path`];
      }
      let canonical: string;
      try {
        canonical = await realpath(project.root);
      } catch {
        return [`${at}.root: "${project.root}" does not exist`];
      }
      if (canonical !== project.root) {
        return [`${at}.root: "${project.root}" is not canonical; write "${canonical}"`];
      }
      try {
        const identity = await readIdentity(project.root, { signal });
        if (identity === null) {
          return [
            `${at}.root: no initialised AWR ledger in "${project.root}"; run \`awr init --accept\` there`,
          ];
        }
        if (identity.project_id !== project.project_id) {
          return [
            `${at}.project_id: "${project.project_id}" does not match the ledger's "${identity.project_id}" (see \`awr --json status\`)`,
          ];
        }
        return [];
      } catch (error) {
        signal?.throwIfAborted();
        return [`${at}.root: cannot read the AWR ledger: ${(error as Error).message}`];
      }
    }),
  );
  problems.push(...rootProblems.flat());
  signal?.throwIfAborted();

  const keys = new Set(raw.projects.map((p) => p.key));
  const digests = new Map<string, string>();
  const clients: RegistryClient[] = raw.clients.map((client, i) => {
    const at = `clients[${i}]`;
    const token = client.token_env === "" ? undefined : env[client.token_env];
    let digest: Buffer = Buffer.alloc(32);
    // A value that is no variable's name was reported with the file's shape.
    if (ENV_NAME_PATTERN.test(client.token_env)) {
      const from = `the token in ${client.token_env}`;
      const fix = `tokens are ${TOKEN_MIN_LENGTH} to ${TOKEN_MAX_LENGTH} visible ASCII characters (try \`awr token new\`)`;
      if (token === undefined || token === "") {
        // Unset and set-but-empty (`NAME=` in an EnvironmentFile, an empty secret) have different
        // fixes, so they are told apart; a pasted token is never repeated.
        problems.push(
          looksLikePastedToken(client.token_env)
            ? `${at}.token_env: ${PASTED_TOKEN_PROBLEM}`
            : token === undefined
              ? `${at}.token_env: environment variable ${client.token_env} is not set`
              : `${at}.token_env: environment variable ${client.token_env} is set but empty; set it to the client's token (${TOKEN_MIN_LENGTH} to ${TOKEN_MAX_LENGTH} visible ASCII characters; try \`awr token new\`)`,
        );
      } else if (token.trim() === "") {
        problems.push(`${at}.token_env: ${from} is blank (only whitespace); ${fix}`);
      } else if (!TOKEN_PATTERN.test(token)) {
        problems.push(
          `${at}.token_env: ${from} contains a space, line break or other character outside visible ASCII; ${fix}`,
        );
      } else if (token.length < TOKEN_MIN_LENGTH) {
        problems.push(
          `${at}.token_env: ${from} has ${token.length} characters; at least ${TOKEN_MIN_LENGTH} are required (try \`awr token new\`)`,
        );
      } else if (token.length > TOKEN_MAX_LENGTH) {
        problems.push(`${at}.token_env: ${from} has ${token.length} characters; ${fix}`);
      } else {
        digest = tokenDigest(token);
        const hex = digest.toString("hex");
        const other = digests.get(hex);
        if (other !== undefined) {
          problems.push(`${at}.token_env: the same token is already used by client "${other}"`);
        } else digests.set(hex, client.id);
      }
    }
    for (const [field, list] of [
      ["read", client.read],
      ["write", client.write],
    ] as const) {
      for (const key of list) {
        if (!keys.has(key)) problems.push(`${at}.${field}: unknown project "${key}"`);
      }
    }
    const readable = new Set([...client.read, ...client.write]);
    const granted = new Set<string>();
    client.workstreams.forEach((grant, j) => {
      const gat = `${at}.workstreams[${j}]`;
      if (grant.project !== "" && !keys.has(grant.project)) {
        problems.push(`${gat}.project: unknown project "${grant.project}"`);
      } else if (grant.project !== "" && !readable.has(grant.project)) {
        // A workstream grant refines project access, it never replaces it.
        problems.push(
          `${gat}.project: workstream grants on "${grant.project}" need read or write access to it; add it to read`,
        );
      }
      const pair = `${grant.project}\u0000${grant.workstream_id}`;
      if (grant.workstream_id !== "" && granted.has(pair)) {
        problems.push(
          `${gat}.workstream_id: ${grant.workstream_id} is granted twice on "${grant.project}"; keep one grant, with the current authority_version`,
        );
      }
      granted.add(pair);
    });
    if (readable.size === 0) {
      problems.push(
        `${at}: grants nothing; give it read or write (workstream grants need one of them)`,
      );
    }
    return {
      id: client.id,
      token_env: client.token_env,
      tokenDigest: digest,
      read: new Set([...client.read, ...client.write]),
      write: new Set(client.write),
      workstreams: client.workstreams,
    };
  });

  if (problems.length > 0) return fail();
  return {
    ok: true,
    registry: {
      file,
      version: raw.version,
      allowed_hosts: raw.allowed_hosts,
      allowed_origins: raw.allowed_origins,
      projects: raw.projects,
      clients,
    },
  };
}

/** Like checkRegistry, but rejects with a RegistryError listing every problem. */
export async function loadRegistry(
  file: string,
  env: Readonly<Record<string, string | undefined>>,
  options: CheckRegistryOptions = {},
): Promise<Registry> {
  const result = await checkRegistry(file, env, options);
  if (!result.ok) throw new RegistryError(file, result.problems);
  return result.registry;
}
