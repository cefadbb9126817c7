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
 * Whether `mcp__<server>__<tool>` names one (server, tool) pair only: the server's part must not
 * hold the separator or end in `_` (server `a` with tool `b__c` and server `a__b` with tool `c`
 * would both be `mcp__a__b__c`; `a_` with `x` and `a` with `_x` both `mcp__a___x`).
 */
function unambiguous(server: string): boolean {
  return server !== "" && !server.includes(SEPARATOR) && !server.endsWith("_");
}

/**
 * `mcp__<server>__<tool>`. Characters outside `[A-Za-z0-9_-]` become `_`; whenever that changed
 * anything, the plain form would be ambiguous (a server name holding `__` or ending in `_`), or
 * the name would exceed `maxLength`, the name is cut and ends in `_` plus a short hash of the
 * original (server, tool) pair, so distinct tools never share a name. The mapping back goes
 * through a {@link ToolNameMap}, not by splitting the string.
 */
export function qualifyToolName(
  server: string,
  tool: string,
  maxLength = MAX_TOOL_NAME_LENGTH,
): string {
  return qualifiedName(server, tool, maxLength, false);
}

/** The qualified name; `rehash`: the hashed form, with a hash that differs from the usual one. */
function qualifiedName(server: string, tool: string, maxLength: number, rehash: boolean): string {
  const plain = `${PREFIX}${server}${SEPARATOR}${tool}`;
  const safe = plain.replace(UNSAFE, "_");
  if (!rehash && safe === plain && safe.length <= maxLength && unambiguous(server)) return safe;
  const hash = createHash("sha256")
    .update(`${server}\u0000${tool}${rehash ? "\u0000" : ""}`)
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

  /**
   * Registers a tool and returns its qualified name. A name another (server, tool) already holds
   * (a plain name that happens to look like a hashed one) is refused rather than taken over:
   * this tool gets a hashed form of its pair instead.
   */
  add(server: string, tool: string): string {
    let name = qualifyToolName(server, tool, this.#maxLength);
    const holder = this.#byName.get(name);
    if (holder !== undefined && (holder.server !== server || holder.tool !== tool)) {
      name = qualifiedName(server, tool, this.#maxLength, true);
    }
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
