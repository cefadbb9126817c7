/** JSON-RPC 2.0 message shapes, as MCP uses them (ids are strings or integers, never null in requests). */

export const JSONRPC_VERSION = "2.0" as const;

export type JsonRpcId = string | number;

/** Parameters are by-name (an object) or by-position (an array); MCP always uses objects. */
export type JsonRpcParams = Record<string, unknown> | readonly unknown[];

export interface JsonRpcRequest {
  jsonrpc: typeof JSONRPC_VERSION;
  id: JsonRpcId;
  method: string;
  params?: JsonRpcParams;
}

export interface JsonRpcNotification {
  jsonrpc: typeof JSONRPC_VERSION;
  method: string;
  params?: JsonRpcParams;
}

export interface JsonRpcErrorObject {
  code: number;
  message: string;
  data?: unknown;
}

export interface JsonRpcSuccessResponse {
  jsonrpc: typeof JSONRPC_VERSION;
  id: JsonRpcId;
  result: unknown;
}

/** `id` is null only when the peer could not read the id of the request it answers (e.g. -32700). */
export interface JsonRpcErrorResponse {
  jsonrpc: typeof JSONRPC_VERSION;
  id: JsonRpcId | null;
  error: JsonRpcErrorObject;
}

export type JsonRpcResponse = JsonRpcSuccessResponse | JsonRpcErrorResponse;

export type JsonRpcMessage = JsonRpcRequest | JsonRpcNotification | JsonRpcResponse;

/** The params of MCP's `notifications/progress`. */
export interface Progress {
  progress: number;
  total?: number;
  message?: string;
}
