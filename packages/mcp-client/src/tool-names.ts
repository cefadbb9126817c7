import { createHash } from "node:crypto";

/** Longest qualified name: the limit hosts' model APIs put on tool names. */
export const MAX_TOOL_NAME_LENGTH = 64;

const PREFIX = "mcp__";
const SEPARATOR = "__";
const UNSAFE = /[^A-Za-z0-9_-]/g;
const HASH_LENGTH = 8;

export interface ToolAddress {
  server: string;
  tool: string;
}

/**
 * `mcp__<server>__<tool>`. Characters outside `[A-Za-z0-9_-]` become `_`; whenever that changed
 * anything, or the name would exceed `maxLength`, the name is cut and ends in `_` plus a short
 * hash of the original (server, tool) pair, so distinct tools never share a name. The mapping
 * back goes through a {@link ToolNameMap}, not by splitting the string.
 */
export function qualifyToolName(
  server: string,
  tool: string,
  maxLength = MAX_TOOL_NAME_LENGTH,
): string {
  const plain = `${PREFIX}${server}${SEPARATOR}${tool}`;
  const safe = plain.replace(UNSAFE, "_");
  if (safe === plain && safe.length <= maxLength) return safe;
  const hash = createHash("sha256")
    .update(`${server}\u0000${tool}`)
    .digest("hex")
    .slice(0, HASH_LENGTH);
  return `${safe.slice(0, maxLength - HASH_LENGTH - 1)}_${hash}`;
}

/** Qualified names of the tools currently exposed, and the way back to (server, tool). */
export class ToolNameMap {
  readonly #byName = new Map<string, ToolAddress>();
  readonly #maxLength: number;

  constructor(maxLength = MAX_TOOL_NAME_LENGTH) {
    this.#maxLength = maxLength;
  }

  /** Registers a tool and returns its qualified name. */
  add(server: string, tool: string): string {
    const name = qualifyToolName(server, tool, this.#maxLength);
    this.#byName.set(name, { server, tool });
    return name;
  }

  resolve(qualifiedName: string): ToolAddress | undefined {
    return this.#byName.get(qualifiedName);
  }

  /** Forgets every tool of one server (before registering its new list). */
  removeServer(server: string): void {
    for (const [name, address] of this.#byName)
      if (address.server === server) this.#byName.delete(name);
  }
}
