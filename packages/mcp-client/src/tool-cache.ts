import { createHash } from "node:crypto";
import { mkdir, readFile, rename, rm, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { isRecord } from "./internal/result-shapes.js";
import type { Tool } from "./mcp-types.js";
import { isHttpServerConfig, type ServerConfig } from "./server-config.js";

/** A server's tool list as last seen, with when it was fetched (epoch milliseconds). */
export interface CachedToolList {
  tools: Tool[];
  savedAt: number;
}

/**
 * Where the manager keeps tool lists between runs, so a slow server's tools can be offered
 * before it is ready. Keys come from {@link serverConfigHash}. Implementations may fail; the
 * manager treats a failing cache as empty.
 */
export interface ToolCacheStore {
  get(key: string): Promise<CachedToolList | undefined>;
  set(key: string, entry: CachedToolList): Promise<void>;
  delete(key: string): Promise<void>;
}

export class MemoryToolCache implements ToolCacheStore {
  readonly #entries = new Map<string, CachedToolList>();

  async get(key: string): Promise<CachedToolList | undefined> {
    return this.#entries.get(key);
  }

  async set(key: string, entry: CachedToolList): Promise<void> {
    this.#entries.set(key, entry);
  }

  async delete(key: string): Promise<void> {
    this.#entries.delete(key);
  }
}

/** One JSON file per key in `directory`, replaced atomically (write, then rename). */
export class FileToolCache implements ToolCacheStore {
  readonly directory: string;

  constructor(directory: string) {
    this.directory = directory;
  }

  async get(key: string): Promise<CachedToolList | undefined> {
    let text: string;
    try {
      text = await readFile(this.#path(key), "utf8");
    } catch {
      return undefined;
    }
    try {
      const value: unknown = JSON.parse(text);
      if (
        isRecord(value) &&
        Array.isArray(value["tools"]) &&
        typeof value["savedAt"] === "number"
      ) {
        return { tools: value["tools"] as Tool[], savedAt: value["savedAt"] };
      }
    } catch {
      // A torn or foreign file is a cache miss, not an error.
    }
    return undefined;
  }

  async set(key: string, entry: CachedToolList): Promise<void> {
    await mkdir(this.directory, { recursive: true });
    const target = this.#path(key);
    const temporary = `${target}.${process.pid}.${Date.now()}.tmp`;
    await writeFile(temporary, JSON.stringify(entry));
    await rename(temporary, target);
  }

  async delete(key: string): Promise<void> {
    await rm(this.#path(key), { force: true });
  }

  #path(key: string): string {
    if (!/^[A-Za-z0-9_-]+$/.test(key)) throw new TypeError(`unsafe cache key: ${key}`);
    return join(this.directory, `${key}.json`);
  }
}

/**
 * A stable hash of what identifies a server's connection (type, command, args, env, cwd, url,
 * headers), so an edited config never reuses another config's cached tools. Key order does
 * not matter; values are hashed, never stored.
 */
export function serverConfigHash(config: ServerConfig): string {
  const identity = isHttpServerConfig(config)
    ? { type: config.type, url: config.url, headers: config.headers ?? {} }
    : {
        type: "stdio",
        command: config.command,
        args: config.args ?? [],
        env: config.env ?? {},
        cwd: config.cwd ?? "",
      };
  return createHash("sha256").update(canonicalJson(identity)).digest("hex").slice(0, 32);
}

function canonicalJson(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(canonicalJson).join(",")}]`;
  if (isRecord(value)) {
    const keys = Object.keys(value).sort();
    return `{${keys.map((key) => `${JSON.stringify(key)}:${canonicalJson(value[key])}`).join(",")}}`;
  }
  return JSON.stringify(value) ?? "null";
}
