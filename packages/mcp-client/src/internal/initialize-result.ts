import { MCPClientError, MCPClientErrorCode } from "../client-errors.js";
import type { InitializeResult } from "../mcp-types.js";
import { isSupportedProtocolVersion, LATEST_PROTOCOL_VERSION } from "../protocol-version.js";
import { expectRecord, isRecord } from "./result-shapes.js";

/**
 * Checks the server's `initialize` answer: the protocol revision must be one this client
 * speaks (else UNSUPPORTED_PROTOCOL_VERSION); missing capabilities or serverInfo are tolerated
 * as empty, since some servers omit them.
 */
export function readInitializeResult(raw: unknown): InitializeResult {
  const result = expectRecord("initialize", raw);
  const version = result["protocolVersion"];
  if (!isSupportedProtocolVersion(version)) {
    throw new MCPClientError(
      MCPClientErrorCode.UnsupportedProtocolVersion,
      `the server chose protocol version ${JSON.stringify(version)}; this client speaks 2025-11-25, 2025-06-18 and 2025-03-26`,
      { details: { offered: LATEST_PROTOCOL_VERSION, received: version } },
    );
  }
  const serverInfo = isRecord(result["serverInfo"]) ? result["serverInfo"] : {};
  return {
    ...result,
    protocolVersion: version,
    capabilities: isRecord(result["capabilities"]) ? result["capabilities"] : {},
    serverInfo: {
      name: String(serverInfo["name"] ?? ""),
      version: String(serverInfo["version"] ?? ""),
      ...serverInfo,
    },
    instructions: typeof result["instructions"] === "string" ? result["instructions"] : undefined,
  };
}
