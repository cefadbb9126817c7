import { timingSafeEqual } from "node:crypto";
import type { IncomingMessage } from "node:http";
import { tokenDigest } from "../registry/check-registry.js";
import type { Registry, RegistryClient } from "../registry/registry-types.js";

/** Host names accepted when the registry lists no allowed_hosts: loopback, any port. */
export const LOOPBACK_HOSTS = ["127.0.0.1", "localhost", "[::1]"] as const;

/**
 * Headers the guard decides on, which a request must therefore carry at most once. Node's parser
 * keeps only the first Host or Authorization and joins repeated Origins, so a second copy (which
 * a proxy in front may read instead) would otherwise pass unseen.
 */
export const SINGLE_VALUE_HEADERS = ["Host", "Authorization", "Origin"] as const;

/** What the guard reads from a request: parsed headers, and the raw list to count repeats. */
export type GuardedRequest = Pick<IncomingMessage, "headers" | "rawHeaders">;

export type GuardResult =
  | { ok: true; client: RegistryClient }
  | { ok: false; status: 400 | 401 | 403; message: string; headers?: Record<string, string> };

/**
 * The first of SINGLE_VALUE_HEADERS that occurs more than once in `rawHeaders` (name/value
 * pairs as received), compared case-insensitively; undefined when each occurs at most once.
 */
export function repeatedHeader(
  rawHeaders: readonly string[],
): (typeof SINGLE_VALUE_HEADERS)[number] | undefined {
  const counts = new Map<string, number>();
  for (let i = 0; i < rawHeaders.length; i += 2) {
    const name = (rawHeaders[i] as string).toLowerCase();
    counts.set(name, (counts.get(name) ?? 0) + 1);
  }
  return SINGLE_VALUE_HEADERS.find((name) => (counts.get(name.toLowerCase()) ?? 0) > 1);
}

/**
 * Splits a Host header into a lower-case name and an optional port. Nothing is trimmed: the HTTP
 * parser has already removed the optional spaces and tabs around the value, so anything else
 * around it (a no-break space, say) makes it a different, refused, host.
 */
function splitHost(value: string): { name: string; port?: string } | undefined {
  const match = /^(\[[0-9a-f:.]+\]|[a-z0-9.-]+)(?::(\d{1,5}))?$/.exec(value.toLowerCase());
  if (!match?.[1]) return undefined;
  return match[2] === undefined ? { name: match[1] } : { name: match[1], port: match[2] };
}

/**
 * Whether a Host header is allowed. An entry without a port allows the name on any port; an
 * entry with a port allows exactly that pair.
 */
export function hostAllowed(header: string | undefined, allowed: readonly string[]): boolean {
  if (!header) return false;
  const host = splitHost(header);
  if (!host) return false;
  const entries = allowed.length > 0 ? allowed : LOOPBACK_HOSTS;
  return entries.some((entry) => {
    const rule = splitHost(entry);
    if (!rule || rule.name !== host.name) return false;
    return rule.port === undefined || rule.port === host.port;
  });
}

/**
 * Finds the client whose token matches. Every client's digest is compared with
 * timingSafeEqual (equal-length SHA-256 digests), without stopping at the first match, so the
 * time taken says nothing about which client or how much of a token matched.
 */
export function authenticate(
  authorization: string | undefined,
  clients: readonly RegistryClient[],
): RegistryClient | undefined {
  const match = authorization ? /^Bearer[ ]+(\S+)\s*$/i.exec(authorization) : null;
  if (!match?.[1]) return undefined;
  const presented = tokenDigest(match[1]);
  let found: RegistryClient | undefined;
  for (const client of clients) {
    if (timingSafeEqual(presented, client.tokenDigest) && found === undefined) found = client;
  }
  return found;
}

/**
 * The per-request checks: a repeated Host, Authorization or Origin (400), then in the order AWR
 * defines, Origin (403; compared exactly with the listed origins), bearer token (401 with
 * `WWW-Authenticate: Bearer`), Host (403).
 */
export function guardRequest(request: GuardedRequest, registry: Registry): GuardResult {
  const repeated = repeatedHeader(request.rawHeaders);
  if (repeated !== undefined) {
    return {
      ok: false,
      status: 400,
      message: `The request carries more than one ${repeated} header; send exactly one.`,
    };
  }
  const { headers } = request;
  const origin = headers.origin;
  if (origin !== undefined && !registry.allowed_origins.includes(origin)) {
    return {
      ok: false,
      status: 403,
      message: `Origin ${origin} is not allowed; the operator lists browser origins in allowed_origins.`,
    };
  }
  const client = authenticate(headers.authorization, registry.clients);
  if (!client) {
    return {
      ok: false,
      status: 401,
      message: "Missing or invalid bearer token: send `Authorization: Bearer <token>`.",
      headers: { "WWW-Authenticate": 'Bearer realm="awr"' },
    };
  }
  if (!hostAllowed(headers.host, registry.allowed_hosts)) {
    return {
      ok: false,
      status: 403,
      message: `Host ${headers.host ?? "(none)"} is not allowed; the operator lists served names in allowed_hosts.`,
    };
  }
  return { ok: true, client };
}
