/** The revision this client offers in `initialize`. */
export const LATEST_PROTOCOL_VERSION = "2025-11-25";

/**
 * Revisions the client accepts in the server's answer, newest first. A server that answers
 * anything else is refused: the client closes the transport and `connect()` rejects.
 */
export const SUPPORTED_PROTOCOL_VERSIONS = ["2025-11-25", "2025-06-18", "2025-03-26"] as const;

export type SupportedProtocolVersion = (typeof SUPPORTED_PROTOCOL_VERSIONS)[number];

export function isSupportedProtocolVersion(value: unknown): value is SupportedProtocolVersion {
  return (SUPPORTED_PROTOCOL_VERSIONS as readonly unknown[]).includes(value);
}
