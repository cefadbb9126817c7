import { LocalErrorCode, type LocalErrorOptions, TransportError } from "@awr/jsonrpc-core";

/**
 * The server answered 404 to a request that carried our `Mcp-Session-Id`: it no longer knows the
 * session. The transport forgets the id and stays open, so the client can send `initialize` again
 * (without a session id) and carry on in a new session. `details` holds status, body, sessionId.
 */
export class SessionExpiredError extends TransportError {
  override name = "SessionExpiredError";
  readonly sessionId: string;

  constructor(sessionId: string, message: string, options: LocalErrorOptions = {}) {
    super(LocalErrorCode.SessionExpired, message, {
      ...options,
      details: { ...options.details, sessionId },
    });
    this.sessionId = sessionId;
  }
}

export function isSessionExpiredError(value: unknown): value is SessionExpiredError {
  return value instanceof SessionExpiredError;
}
