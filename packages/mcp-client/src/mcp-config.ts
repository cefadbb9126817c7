import { readFile, stat } from "node:fs/promises";
import { join } from "node:path";
import { MCPClientError, MCPClientErrorCode } from "./client-errors.js";
import { expandVariables } from "./env-expansion.js";
import { isRecord } from "./internal/result-shapes.js";
import type { ManagedServerConfig, ManagedServerSettings, ToolFilter } from "./server-config.js";

/** A server entry that could not be used; the other servers of the file still load. */
export interface ConfigProblem {
  server: string;
  error: MCPClientError;
}

export interface McpConfig {
  /** The file read, when loaded from disk. */
  path?: string;
  servers: Record<string, ManagedServerConfig>;
  problems: ConfigProblem[];
}

export interface ParseMcpConfigOptions {
  /** Variables for `${VAR}` expansion (default: process.env). */
  env?: Readonly<Record<string, string | undefined>>;
  /** Named in error messages. */
  source?: string;
}

/** File names looked for, in order, when `loadMcpConfig` is given a directory. */
export const MCP_CONFIG_FILE_NAMES = [".mcp.json", "mcp.json"] as const;

/**
 * Reads `mcpServers` from a `.mcp.json` / `mcp.json` file, or from the first of those found in
 * a directory. A missing or unreadable file, bad JSON, or no `mcpServers` object rejects with
 * INVALID_CONFIG; a bad server entry lands in `problems` instead.
 */
export async function loadMcpConfig(
  pathOrDirectory: string,
  options: ParseMcpConfigOptions & { signal?: AbortSignal } = {},
): Promise<McpConfig> {
  if (options.signal?.aborted) throw options.signal.reason;
  const path = await resolveConfigPath(pathOrDirectory);
  let text: string;
  try {
    text = await readFile(path, {
      encoding: "utf8",
      ...(options.signal ? { signal: options.signal } : {}),
    });
  } catch (error) {
    if (options.signal?.aborted) throw options.signal.reason;
    throw new MCPClientError(MCPClientErrorCode.InvalidConfig, `cannot read ${path}`, {
      cause: error,
    });
  }
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch (error) {
    throw new MCPClientError(MCPClientErrorCode.InvalidConfig, `${path} is not valid JSON`, {
      cause: error,
    });
  }
  return { ...parseMcpConfig(value, { ...options, source: options.source ?? path }), path };
}

async function resolveConfigPath(pathOrDirectory: string): Promise<string> {
  const info = await stat(pathOrDirectory).catch(() => undefined);
  if (!info?.isDirectory()) return pathOrDirectory;
  for (const name of MCP_CONFIG_FILE_NAMES) {
    const candidate = join(pathOrDirectory, name);
    if ((await stat(candidate).catch(() => undefined))?.isFile()) return candidate;
  }
  throw new MCPClientError(
    MCPClientErrorCode.InvalidConfig,
    `no ${MCP_CONFIG_FILE_NAMES.join(" or ")} in ${pathOrDirectory}`,
  );
}

/** Validates and expands an already-parsed config value (see {@link loadMcpConfig}). */
export function parseMcpConfig(value: unknown, options: ParseMcpConfigOptions = {}): McpConfig {
  const source = options.source ?? "config";
  if (!isRecord(value) || !isRecord(value["mcpServers"])) {
    throw new MCPClientError(
      MCPClientErrorCode.InvalidConfig,
      `${source}: expected an object with an "mcpServers" object`,
    );
  }
  const env = options.env ?? process.env;
  const servers: Record<string, ManagedServerConfig> = {};
  const problems: ConfigProblem[] = [];
  for (const [name, entry] of Object.entries(value["mcpServers"])) {
    try {
      servers[name] = parseServerEntry(name, entry, env);
    } catch (error) {
      const wrapped =
        error instanceof MCPClientError
          ? error
          : new MCPClientError(MCPClientErrorCode.InvalidConfig, String(error), { cause: error });
      problems.push({ server: name, error: wrapped });
    }
  }
  return { servers, problems };
}

class EntryReader {
  readonly missing = new Set<string>();
  constructor(
    readonly server: string,
    readonly env: Readonly<Record<string, string | undefined>>,
  ) {}

  fail(message: string): never {
    // An unset variable usually explains whatever looks wrong next (an empty command or url).
    if (this.missing.size > 0) {
      message = `environment variable(s) not set and without a default: ${[...this.missing].join(", ")}`;
    }
    throw new MCPClientError(
      MCPClientErrorCode.InvalidConfig,
      `server "${this.server}": ${message}`,
      {
        details: { server: this.server },
      },
    );
  }

  expand(text: string): string {
    const { value, missing } = expandVariables(text, this.env);
    for (const name of missing) this.missing.add(name);
    return value;
  }

  string(entry: Record<string, unknown>, key: string): string | undefined {
    const value = entry[key];
    if (value === undefined) return undefined;
    if (typeof value !== "string") this.fail(`"${key}" must be a string`);
    return this.expand(value);
  }

  stringArray(entry: Record<string, unknown>, key: string): string[] | undefined {
    const value = entry[key];
    if (value === undefined) return undefined;
    if (!Array.isArray(value) || !value.every((item) => typeof item === "string")) {
      this.fail(`"${key}" must be an array of strings`);
    }
    return (value as string[]).map((item) => this.expand(item));
  }

  stringMap(entry: Record<string, unknown>, key: string): Record<string, string> | undefined {
    const value = entry[key];
    if (value === undefined) return undefined;
    if (!isRecord(value)) this.fail(`"${key}" must be an object of strings`);
    const out: Record<string, string> = {};
    for (const [k, v] of Object.entries(value)) {
      if (typeof v !== "string") this.fail(`"${key}.${k}" must be a string`);
      out[k] = this.expand(v);
    }
    return out;
  }
}

function parseServerEntry(
  name: string,
  entry: unknown,
  env: Readonly<Record<string, string | undefined>>,
): ManagedServerConfig {
  const reader: EntryReader = new EntryReader(name, env);
  if (!isRecord(entry)) reader.fail("the entry must be an object");
  const settings = parseSettings(reader, entry);
  const rawType = entry["type"];
  // Cursor writes remote servers as `{ "url": … }` without a type: that is Streamable HTTP.
  const type =
    rawType ?? (entry["url"] !== undefined && entry["command"] === undefined ? "http" : "stdio");
  let config: ManagedServerConfig;
  if (type === "stdio") {
    const command = reader.string(entry, "command");
    if (!command) reader.fail('a stdio server needs a "command"');
    const args = reader.stringArray(entry, "args");
    const envMap = reader.stringMap(entry, "env");
    const cwd = reader.string(entry, "cwd");
    config = {
      type: "stdio",
      command,
      ...(args ? { args } : {}),
      ...(envMap ? { env: envMap } : {}),
      ...(cwd ? { cwd } : {}),
      ...settings,
    };
  } else if (type === "http" || type === "sse") {
    const url = reader.string(entry, "url");
    if (!url) reader.fail(`an ${type} server needs a "url"`);
    try {
      new URL(url);
    } catch {
      reader.fail(`"url" is not a valid URL: ${url}`);
    }
    const headers = reader.stringMap(entry, "headers");
    config = { type, url, ...(headers ? { headers } : {}), ...settings };
  } else {
    reader.fail(`unknown "type" ${JSON.stringify(rawType)} (expected "stdio", "http" or "sse")`);
  }
  if (reader.missing.size > 0) {
    reader.fail(
      `environment variable(s) not set and without a default: ${[...reader.missing].join(", ")}`,
    );
  }
  return config;
}

function parseSettings(reader: EntryReader, entry: Record<string, unknown>): ManagedServerSettings {
  const settings: ManagedServerSettings = {};
  for (const key of ["enabled", "disabled"] as const) {
    const value = entry[key];
    if (value === undefined) continue;
    if (typeof value !== "boolean") reader.fail(`"${key}" must be a boolean`);
    settings[key] = value;
  }
  for (const key of ["timeout", "startupTimeout"] as const) {
    const value = entry[key];
    if (value === undefined) continue;
    if (typeof value !== "number" || !Number.isFinite(value) || value <= 0)
      reader.fail(`"${key}" must be a positive number`);
    settings[key] = value;
  }
  const tools = entry["tools"];
  if (tools !== undefined) {
    if (!isRecord(tools)) reader.fail('"tools" must be an object with "allow" and/or "deny" lists');
    const filter: ToolFilter = {};
    for (const key of ["allow", "deny"] as const) {
      const list = tools[key];
      if (list === undefined) continue;
      if (!Array.isArray(list) || !list.every((item) => typeof item === "string")) {
        reader.fail(`"tools.${key}" must be an array of tool names`);
      }
      filter[key] = list as string[];
    }
    settings.tools = filter;
  }
  return settings;
}
