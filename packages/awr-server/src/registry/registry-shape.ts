import { workstreamIdOf } from "@awr/awr-ledger/workstreams";
import { looksLikePastedToken, PASTED_TOKEN_PROBLEM } from "./token-shape.js";

/**
 * Structural validation of a parsed registry document. Every problem is collected (never the
 * first one only), each as `<field path>: <what is wrong>`, so an operator fixes the whole file in
 * one pass. Semantic checks that touch the filesystem or the environment live in check-registry.
 */

/** Names (project keys, client ids) are short, path-free identifiers. */
export const NAME_PATTERN = /^[A-Za-z0-9._-]{1,128}$/;
/** What `token_env` may hold: the name of an environment variable. */
export const ENV_NAME_PATTERN = /^[A-Za-z_][A-Za-z0-9_]{0,127}$/;

const TOP_FIELDS = ["version", "allowed_hosts", "allowed_origins", "projects", "clients"] as const;
const PROJECT_FIELDS = ["key", "root", "project_id"] as const;
const CLIENT_FIELDS = ["id", "token_env", "read", "write", "workstreams"] as const;
const GRANT_FIELDS = ["project", "workstream_id", "authority_version"] as const;

export interface RawProject {
  key: string;
  root: string;
  project_id: string;
}
export interface RawGrant {
  project: string;
  workstream_id: string;
  authority_version: number;
}
export interface RawClient {
  id: string;
  token_env: string;
  read: string[];
  write: string[];
  workstreams: RawGrant[];
}
export interface RawRegistry {
  version: 1 | 2;
  allowed_hosts: string[];
  allowed_origins: string[];
  projects: RawProject[];
  clients: RawClient[];
}

type Table = Record<string, unknown>;

function isTable(value: unknown): value is Table {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

function unknownFields(table: Table, allowed: readonly string[], at: string, out: string[]): void {
  for (const field of Object.keys(table)) {
    if (!allowed.includes(field)) {
      out.push(`${at}${at ? "." : ""}${field}: unknown field (allowed: ${allowed.join(", ")})`);
    }
  }
}

function str(table: Table, field: string, at: string, out: string[]): string {
  const value = table[field];
  if (value === undefined) {
    out.push(`${at}.${field}: missing`);
    return "";
  }
  if (typeof value !== "string") {
    out.push(`${at}.${field}: must be a string`);
    return "";
  }
  return value;
}

function strList(table: Table, field: string, at: string, out: string[]): string[] {
  const value = table[field];
  if (value === undefined) return [];
  if (!Array.isArray(value) || value.some((item) => typeof item !== "string")) {
    out.push(`${at}${at ? "." : ""}${field}: must be a list of strings`);
    return [];
  }
  return value as string[];
}

function name(value: string, at: string, out: string[]): void {
  if (value !== "" && !NAME_PATTERN.test(value)) {
    out.push(`${at}: "${value}" is not a valid name (use 1 to 128 of A-Z a-z 0-9 . _ -)`);
  }
}

function tables(doc: Table, field: string, out: string[]): Table[] {
  const value = doc[field];
  if (value === undefined) return [];
  if (!Array.isArray(value)) {
    out.push(`${field}: must be an array of tables ([[${field}]])`);
    return [];
  }
  const result: Table[] = [];
  value.forEach((item, index) => {
    if (isTable(item)) result.push(item);
    else out.push(`${field}[${index}]: must be a table`);
  });
  return result;
}

function validHostEntry(entry: string): boolean {
  // host, host:port, [v6], [v6]:port; no scheme, no path.
  return /^(\[[0-9A-Fa-f:.]+\]|[A-Za-z0-9.-]+)(:\d{1,5})?$/.test(entry);
}

function validOrigin(entry: string): boolean {
  try {
    const url = new URL(entry);
    return (url.protocol === "http:" || url.protocol === "https:") && url.origin === entry;
  } catch {
    return false;
  }
}

/** Checks the document's shape; returns the typed view (best effort) and appends problems. */
export function checkRegistryShape(doc: Table, out: string[]): RawRegistry {
  unknownFields(doc, TOP_FIELDS, "", out);
  let version: 1 | 2 = 1;
  if (doc["version"] === 1 || doc["version"] === 2) version = doc["version"];
  else out.push(`version: must be 1 or 2, got ${JSON.stringify(doc["version"] ?? null)}`);

  const allowed_hosts = strList(doc, "allowed_hosts", "", out);
  allowed_hosts.forEach((entry, i) => {
    if (!validHostEntry(entry)) {
      out.push(`allowed_hosts[${i}]: "${entry}" is not a host name (write host or host:port)`);
    }
  });
  const allowed_origins = strList(doc, "allowed_origins", "", out);
  allowed_origins.forEach((entry, i) => {
    if (!validOrigin(entry)) {
      out.push(`allowed_origins[${i}]: "${entry}" is not an origin (write scheme://host[:port])`);
    }
  });

  const projects = tables(doc, "projects", out).map((table, i): RawProject => {
    const at = `projects[${i}]`;
    unknownFields(table, PROJECT_FIELDS, at, out);
    const project = {
      key: str(table, "key", at, out),
      root: str(table, "root", at, out),
      project_id: str(table, "project_id", at, out),
    };
    name(project.key, `${at}.key`, out);
    return project;
  });
  if (projects.length === 0) out.push("projects: at least one [[projects]] entry is required");

  const clients = tables(doc, "clients", out).map((table, i): RawClient => {
    const at = `clients[${i}]`;
    unknownFields(table, CLIENT_FIELDS, at, out);
    const id = str(table, "id", at, out);
    name(id, `${at}.id`, out);
    const token_env = str(table, "token_env", at, out);
    if (token_env !== "" && !ENV_NAME_PATTERN.test(token_env)) {
      out.push(
        looksLikePastedToken(token_env)
          ? `${at}.token_env: ${PASTED_TOKEN_PROBLEM}`
          : `${at}.token_env: "${token_env}" is not an environment variable name`,
      );
    }
    const grants = table["workstreams"];
    let workstreams: RawGrant[] = [];
    if (grants !== undefined) {
      if (version === 1) {
        out.push(`${at}.workstreams: workstream grants need registry version = 2`);
      }
      if (!Array.isArray(grants)) {
        out.push(`${at}.workstreams: must be an array of tables ([[clients.workstreams]])`);
      } else {
        workstreams = grants.flatMap((grant, j): RawGrant[] => {
          const gat = `${at}.workstreams[${j}]`;
          if (!isTable(grant)) {
            out.push(`${gat}: must be a table`);
            return [];
          }
          unknownFields(grant, GRANT_FIELDS, gat, out);
          const written = str(grant, "workstream_id", gat, out);
          const workstream_id = written === "" ? "" : (workstreamIdOf(written) ?? "");
          if (written !== "" && workstream_id === "") {
            out.push(
              `${gat}.workstream_id: "${written}" is not a workstream id (the ULID of its definition in the project's ledger; see \`awr workstream list\`)`,
            );
          }
          const authority_version = grant["authority_version"];
          if (
            typeof authority_version !== "number" ||
            !Number.isSafeInteger(authority_version) ||
            authority_version < 1
          ) {
            out.push(`${gat}.authority_version: must be a positive integer`);
          }
          return [
            {
              project: str(grant, "project", gat, out),
              workstream_id,
              authority_version: typeof authority_version === "number" ? authority_version : 0,
            },
          ];
        });
      }
    }
    return {
      id,
      token_env,
      read: strList(table, "read", at, out),
      write: strList(table, "write", at, out),
      workstreams,
    };
  });
  if (clients.length === 0) out.push("clients: at least one [[clients]] entry is required");

  return { version, allowed_hosts, allowed_origins, projects, clients };
}
