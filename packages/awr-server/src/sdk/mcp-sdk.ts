import type { IncomingMessage, ServerResponse } from "node:http";
import type { Server } from "@modelcontextprotocol/sdk/server/index.js";
import { StreamableHTTPServerTransport } from "@modelcontextprotocol/sdk/server/streamableHttp.js";
import { type JSONRPCMessage, JSONRPCMessageSchema } from "@modelcontextprotocol/sdk/types.js";

/**
 * The one door to the official MCP SDK (a dependency rule keeps every other awr-server file from
 * importing it). The SDK earns its place for the MCP protocol layer (its `Server`: initialize,
 * capabilities, tools/list and tools/call routing) and the Streamable HTTP server transport;
 * JSON-RPC itself (message types, parse errors, error codes, line framing) is @awr/jsonrpc-core's
 * and @awr/transport-stdio's, as on the client side.
 */
export { Server } from "@modelcontextprotocol/sdk/server/index.js";
export type { Transport } from "@modelcontextprotocol/sdk/shared/transport.js";
export {
  type CallToolRequest,
  type CallToolResult,
  type JSONRPCMessage,
  ListToolsRequestSchema,
  McpError,
  type Tool,
} from "@modelcontextprotocol/sdk/types.js";
export { AjvJsonSchemaValidator } from "@modelcontextprotocol/sdk/validation/ajv-provider.js";

/** The message as the SDK's `Server` takes it, or undefined when the SDK's schema refuses it. */
export function readSdkMessage(value: unknown): JSONRPCMessage | undefined {
  const parsed = JSONRPCMessageSchema.safeParse(value);
  return parsed.success ? parsed.data : undefined;
}

/** True when the SDK's schema takes `value` as a JSON-RPC message. */
export function isJsonRpcMessage(value: unknown): boolean {
  return JSONRPCMessageSchema.safeParse(value).success;
}

/**
 * Answers one stateless Streamable HTTP exchange with `server`: a fresh SDK transport (no session,
 * JSON responses rather than SSE) that the body, already parsed and checked, is handed to. Both
 * close when the response does, sent or cut.
 */
export async function serveHttpExchange(
  server: Server,
  req: IncomingMessage,
  res: ServerResponse,
  body: unknown,
): Promise<void> {
  const transport = new StreamableHTTPServerTransport({
    sessionIdGenerator: undefined,
    enableJsonResponse: true,
  });
  res.on("close", () => {
    void transport.close();
    void server.close();
  });
  await server.connect(transport);
  await transport.handleRequest(req, res, body);
}
