import { timingSafeEqual } from "node:crypto";
import type { IncomingHttpHeaders } from "node:http";
import { tokenDigest } from "../registry/check-registry.js";
import type { Registry, RegistryClient } from "../registry/registry-types.js";

/** Host names accepted when the registry lists no allowed_hosts: loopback, any port. */
export const LOOPBACK_HOSTS = ["127.0.0.1", "localhost", "[::1]"] as const;

export type GuardResult =
  | { ok: true; client: RegistryClient }
  | { ok: false; status: 401 | 403; message: string; headers?: Record<string, string> };

/** Splits a Host header into a lower-case name and an optional port. */
function splitHost(value: string): { name: string; port?: string } | undefined {
  const match = /^(\[[0-9a-f:.]+\]|[a-z0-9.-]+)(?::(\d{1,5}))?$/.exec(value.trim().toLowerCase());
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
 * The per-request checks, in the order AWR defines: Origin (403), bearer token (401 with
 * `WWW-Authenticate: Bearer`), Host (403).
 */
export function guardRequest(headers: IncomingHttpHeaders, registry: Registry): GuardResult {
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
