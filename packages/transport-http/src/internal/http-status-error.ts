import { LocalErrorCode, TransportError } from "@awr/jsonrpc-core";
import { SessionExpiredError } from "../session-expired-error.js";
import { readErrorBody } from "./body-text.js";
import type { HttpResponse } from "./http-exchange.js";

/** How much of the body the error message quotes; `details.body` keeps more. */
const MESSAGE_BODY_LIMIT = 1_000;

/**
 * How servers built on the SDK's examples (server-everything among them) answer a session id
 * they do not know, instead of the 404 the specification asks for: a 400 whose body says so
 * ("Bad Request: No valid session ID provided", "Invalid or missing session ID", "Session not
 * found").
 */
const UNKNOWN_SESSION_BODY =
  /session[ _-]?id|session (?:not found|expired|unknown|missing|invalid)|(?:unknown|invalid|missing|expired) session/i;

/**
 * Turns a non-2xx response into a typed error: `HTTP <status>: <body>` with the server's
 * `WWW-Authenticate` and `Mcp-Auth-Server` hints appended, or a SessionExpiredError when a
 * request that carried a session id met a 404, or a 400 whose body says the session is unknown
 * or missing. Consumes (a bounded prefix of) the body.
 */
export async function httpStatusError(
  response: HttpResponse,
  request: { method: string; url: URL | string; sessionId: string | undefined },
): Promise<TransportError> {
  const body = (await readErrorBody(response)).trim();
  const wwwAuthenticate = response.header("www-authenticate");
  const authServer = response.header("mcp-auth-server");
  const quoted =
    body.length > MESSAGE_BODY_LIMIT
      ? `${body.slice(0, MESSAGE_BODY_LIMIT)}…`
      : body || response.statusText;
  let message = `HTTP ${response.status}: ${quoted}`;
  if (wwwAuthenticate) message += ` (WWW-Authenticate: ${wwwAuthenticate})`;
  if (authServer) message += ` (Mcp-Auth-Server: ${authServer})`;
  const details: Record<string, unknown> = {
    status: response.status,
    body,
    method: request.method,
    url: String(request.url),
  };
  if (wwwAuthenticate) details.wwwAuthenticate = wwwAuthenticate;
  if (authServer) details.mcpAuthServer = authServer;
  const lostSession =
    response.status === 404 || (response.status === 400 && UNKNOWN_SESSION_BODY.test(body));
  if (lostSession && request.sessionId !== undefined) {
    return new SessionExpiredError(
      request.sessionId,
      `Session expired: the server no longer knows session ${request.sessionId} (${message})`,
      { details },
    );
  }
  return new TransportError(LocalErrorCode.HttpStatus, message, { details });
}
