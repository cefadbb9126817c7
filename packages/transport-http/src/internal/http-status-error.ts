import { LocalErrorCode, TransportError } from "@awr/jsonrpc-core";
import { SessionExpiredError } from "../session-expired-error.js";
import { readErrorBody } from "./body-text.js";

/** How much of the body the error message quotes; `details.body` keeps more. */
const MESSAGE_BODY_LIMIT = 1_000;

/**
 * Turns a non-2xx response into a typed error: `HTTP <status>: <body>` with the server's
 * `WWW-Authenticate` and `Mcp-Auth-Server` hints appended, or a SessionExpiredError when a 404
 * answers a request that carried a session id. Consumes (a bounded prefix of) the body.
 */
export async function httpStatusError(
  response: Response,
  request: { method: string; url: URL | string; sessionId: string | undefined },
): Promise<TransportError> {
  const body = (await readErrorBody(response)).trim();
  const wwwAuthenticate = response.headers.get("www-authenticate") ?? undefined;
  const authServer = response.headers.get("mcp-auth-server") ?? undefined;
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
  if (response.status === 404 && request.sessionId !== undefined) {
    return new SessionExpiredError(
      request.sessionId,
      `Session expired: the server no longer knows session ${request.sessionId} (${message})`,
      { details },
    );
  }
  return new TransportError(LocalErrorCode.HttpStatus, message, { details });
}
