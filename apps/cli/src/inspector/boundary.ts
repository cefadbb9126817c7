import type { IncomingMessage, ServerResponse } from "node:http";

/**
 * The inspector's request boundary. Binding to 127.0.0.1 keeps other machines out, but any page
 * open in the user's browser can still send requests to a loopback address, so every request is
 * checked for signs that it does not come from the inspector's own page:
 * - Host must name this server exactly (a DNS-rebinding page sends its own hostname);
 * - Origin, when sent, must be this server (`null`, from sandboxed frames and files, included);
 * - Sec-Fetch-Site, set by the browser itself, must not be cross-site or same-site;
 * - every method but GET needs `X-AWR-Inspector: 1`, which a plain cross-site form cannot send
 *   and a cross-site script can only send after a CORS preflight that this server never grants.
 */

/** The header every non-GET request carries (the page's fetches set it). */
export const GUARD_HEADER = "x-awr-inspector";

/** The methods the inspector answers at all; anything else is 405. */
export const METHODS = ["GET", "HEAD", "POST"] as const;

export interface Refusal {
  status: number;
  code: string;
  message: string;
}

/** The Host and Origin values this server accepts, once it knows its port. */
export function allowedAddresses(port: number): { hosts: Set<string>; origins: Set<string> } {
  const hosts = new Set([`127.0.0.1:${port}`, `localhost:${port}`]);
  return { hosts, origins: new Set([...hosts].map((h) => `http://${h}`)) };
}

/** Undefined when the request may go on; else why it is refused (403). */
export function checkBoundary(
  req: IncomingMessage,
  allowed: ReturnType<typeof allowedAddresses>,
): Refusal | undefined {
  const host = (req.headers.host ?? "").toLowerCase();
  if (!allowed.hosts.has(host)) {
    // The rejected value is not echoed: the answer is for a page we do not trust.
    return { status: 403, code: "ForbiddenHost", message: "Host must be this inspector's address" };
  }
  const origin = req.headers.origin;
  if (origin !== undefined && !allowed.origins.has(origin)) {
    return {
      status: 403,
      code: "ForbiddenOrigin",
      message: "Origin must be this inspector's own page",
    };
  }
  const site = req.headers["sec-fetch-site"];
  if (site === "cross-site" || site === "same-site") {
    return {
      status: 403,
      code: "ForbiddenSite",
      message: "requests from other sites are refused",
    };
  }
  if (req.method !== "GET" && req.headers[GUARD_HEADER] !== "1") {
    return {
      status: 403,
      code: "MissingGuardHeader",
      message: `requests other than GET need the header ${GUARD_HEADER}: 1`,
    };
  }
  return undefined;
}

/**
 * The page may load only this server's own scripts, styles and images and talk only to it; no
 * inline script or style, no frames around it, no forms, no base URL.
 */
export const CONTENT_SECURITY_POLICY = [
  "default-src 'none'",
  "script-src 'self'",
  "style-src 'self'",
  "img-src 'self'",
  "connect-src 'self'",
  "base-uri 'none'",
  "frame-ancestors 'none'",
  "form-action 'none'",
].join("; ");

/** The headers on every answer, static files, API answers and refusals alike. */
export function setSecurityHeaders(res: ServerResponse): void {
  res.setHeader("Content-Security-Policy", CONTENT_SECURITY_POLICY);
  res.setHeader("X-Content-Type-Options", "nosniff");
  res.setHeader("Referrer-Policy", "no-referrer");
  res.setHeader("Cross-Origin-Resource-Policy", "same-origin");
  res.setHeader("Cache-Control", "no-store");
}
