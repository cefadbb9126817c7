import { JsonRpcError, type JsonRpcRequest } from "@awr/jsonrpc-core";
import type { MCPClientOptions, RootsSource } from "../mcp-client-options.js";
import type { ClientCapabilities } from "../mcp-types.js";
import { isRecord } from "./result-shapes.js";

/**
 * The client's side of server→client requests: `ping`, `roots/list` while roots are set, and
 * the host's handlers for anything else (-32601 without one). Setting roots also declares the
 * `roots` capability, so the capabilities offered in `initialize` come from here too.
 */
export class ServerRequestResponder {
  readonly #capabilities: ClientCapabilities | undefined;
  readonly #handlers: MCPClientOptions["requestHandlers"];
  #roots: RootsSource | undefined;

  constructor(options: MCPClientOptions) {
    this.#capabilities = options.capabilities;
    this.#handlers = options.requestHandlers;
    this.#roots = options.roots;
  }

  setRoots(roots: RootsSource): void {
    this.#roots = roots;
  }

  /** The capabilities to offer: the host's, plus `roots` when roots are set. */
  capabilities(): ClientCapabilities {
    const capabilities: ClientCapabilities = { ...this.#capabilities };
    if (this.#roots !== undefined)
      capabilities.roots = { listChanged: true, ...capabilities.roots };
    return capabilities;
  }

  async answer(request: JsonRpcRequest): Promise<unknown> {
    if (request.method === "ping") return {};
    if (request.method === "roots/list" && this.#roots !== undefined) {
      const roots = typeof this.#roots === "function" ? await this.#roots() : this.#roots;
      return { roots: [...roots] };
    }
    const handler = this.#handlers?.[request.method];
    if (!handler) throw JsonRpcError.methodNotFound(request.method);
    return handler(isRecord(request.params) ? request.params : undefined, request);
  }
}
