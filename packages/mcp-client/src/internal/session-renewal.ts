import { isLocalError, type JsonRpcParams, LocalErrorCode } from "@awr/jsonrpc-core";
import { SessionExpiredError } from "@awr/transport-http";
import type { Tool } from "../mcp-types.js";

/**
 * Renews a lost HTTP session on the same transport: one handshake shared by every caller that
 * met the loss; until one succeeds (the server may still be restarting), `lost` stays true and
 * the next request renews first.
 */
export class SessionRenewal {
  readonly #handshake: () => Promise<void>;
  #renewing: Promise<void> | undefined;
  #lost = false;

  constructor(handshake: () => Promise<void>) {
    this.#handshake = handshake;
  }

  get lost(): boolean {
    return this.#lost;
  }

  renew(): Promise<void> {
    this.#lost = true;
    this.#renewing ??= this.#handshake().then(
      () => {
        this.#renewing = undefined;
        this.#lost = false;
      },
      (error: unknown) => {
        this.#renewing = undefined;
        throw error;
      },
    );
    return this.#renewing;
  }
}

/** True for the transport's verdict that the server no longer knows the session. */
export function isSessionExpired(error: unknown): error is SessionExpiredError {
  return isLocalError(error) && error.code === LocalErrorCode.SessionExpired;
}

/**
 * Whether a request that met a lost session may be sent again in the new one: everything but
 * `tools/call`, and tool calls of tools annotated `readOnlyHint` or `idempotentHint`.
 */
export function isSafeToRepeat(
  method: string,
  params: JsonRpcParams | undefined,
  tools: readonly Tool[] | undefined,
): boolean {
  if (method !== "tools/call") return true;
  const name = (params as { name?: unknown } | undefined)?.name;
  const annotations = tools?.find((tool) => tool.name === name)?.annotations;
  return annotations?.readOnlyHint === true || annotations?.idempotentHint === true;
}

/** The documented rejection of a tool call that met a lost session and was not repeated. */
export function notRepeated(
  expired: SessionExpiredError,
  params: JsonRpcParams | undefined,
): SessionExpiredError {
  const tool = (params as { name?: unknown } | undefined)?.name;
  return new SessionExpiredError(
    expired.sessionId,
    `the session expired before tools/call "${String(tool)}" ran; a new session is ready, but the call was not repeated because the tool is not annotated readOnlyHint or idempotentHint: repeat it yourself if that is safe`,
    { cause: expired, details: { tool, renewed: true, repeated: false } },
  );
}
