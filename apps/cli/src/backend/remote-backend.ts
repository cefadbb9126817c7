import { randomUUID } from "node:crypto";
import { findOperation, type ToolName, takesRequestId } from "@awr/awr-ledger/catalog";
import { type CallToolResult, createTransport, MCPClient } from "@awr/mcp-client";
import { CLI_ERROR_CODES, CliError, usageError } from "../cli-error.js";
import { packageVersion } from "../internal/package-version.js";
import {
  type CallOptions,
  DEFAULT_TOKEN_ENV,
  type OperationBackend,
  type OperationInput,
  type OperationResult,
  revisionOf,
} from "./backend.js";

/** Milliseconds a remote call may take before the CLI gives up on the answer. */
const REMOTE_TIMEOUT_MS = 60_000;

export interface RemoteSettings {
  url: string;
  tokenEnv?: string;
  projectKey?: string;
  env: Readonly<Record<string, string | undefined>>;
  signal?: AbortSignal;
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return value !== null && typeof value === "object" && !Array.isArray(value);
}

/** A tool result's domain JSON: structuredContent, else the JSON text AWR puts beside it. */
function domainJson(result: CallToolResult): Record<string, unknown> | undefined {
  if (isRecord(result.structuredContent)) return result.structuredContent;
  for (const block of result.content) {
    if (block.type === "text" && typeof block.text === "string") {
      try {
        const parsed: unknown = JSON.parse(block.text);
        if (isRecord(parsed)) return parsed;
      } catch {
        return { message: block.text };
      }
    }
  }
  return undefined;
}

/**
 * A failure below the tool level (the service unreachable, a refused credential, a protocol
 * error) as a CliError. For a write the outcome may be unknown, so the request id is named.
 */
function remoteFailure(error: unknown, url: string, requestId?: string): CliError {
  if (error instanceof CliError) return error;
  const err = error as Error & { code?: unknown; status?: unknown; data?: unknown };
  const text = err?.message ?? String(error);
  const details: Record<string, unknown> = { url };
  if (typeof err?.code === "string" || typeof err?.code === "number")
    details["cause_code"] = err.code;
  if (err?.data !== undefined) details["data"] = err.data;
  let message = `The AWR service at ${url} failed: ${text}`;
  if (/\b401\b/.test(text)) {
    message = `The AWR service at ${url} refused the credential (HTTP 401). Check that --token-env names the variable holding this client's token, as the registry's token_env says.`;
  } else if (/\b403\b/.test(text)) {
    message = `The AWR service at ${url} refused the request (HTTP 403: Host or Origin not allowed): ${text}. Ask the operator to add the host to allowed_hosts.`;
  } else if (/ECONNREFUSED|ENOTFOUND|fetch failed|EHOSTUNREACH/i.test(text)) {
    message = `Cannot reach the AWR service at ${url} (${text}). Is it running (awr-mcp --registry FILE --listen HOST:PORT) and is --url right?`;
  }
  if (requestId !== undefined) {
    details["request_id"] = requestId;
    message += ` The write may or may not have happened: check with \`awr operation get ${requestId}\` (same --url) before retrying.`;
  }
  return new CliError(CLI_ERROR_CODES.RemoteError, message, { details, cause: error });
}

/**
 * Runs operations against a shared AWR service over Streamable HTTP with this repository's
 * MCP client. Results are the tools' structuredContent unchanged; tool errors keep their code.
 */
export class RemoteBackend implements OperationBackend {
  readonly kind = "remote";
  readonly #client: MCPClient;
  readonly #url: string;
  readonly #project: string;

  private constructor(client: MCPClient, url: string, project: string) {
    this.#client = client;
    this.#url = url;
    this.#project = project;
  }

  static async open(settings: RemoteSettings): Promise<RemoteBackend> {
    let url: URL;
    try {
      url = new URL(settings.url);
    } catch {
      throw usageError(
        `--url "${settings.url}" is not a URL; e.g. --url http://127.0.0.1:8787/mcp`,
      );
    }
    if (url.protocol !== "http:" && url.protocol !== "https:") {
      throw usageError(`--url must be http:// or https://, not ${url.protocol}`);
    }
    const tokenEnv = settings.tokenEnv ?? DEFAULT_TOKEN_ENV;
    const token = settings.env[tokenEnv];
    if (token === undefined || token === "") {
      throw usageError(
        `The environment variable ${tokenEnv} holding the bearer token is not set. Export it (e.g. export ${tokenEnv}="$(cat token-file)") or name another with --token-env.`,
      );
    }
    const transport = createTransport(
      { type: "http", url: url.href, headers: { Authorization: `Bearer ${token}` } },
      { listen: false, name: `AWR service ${url.href}`, timeout: REMOTE_TIMEOUT_MS },
    );
    const client = new MCPClient(transport, { name: "awr-cli", version: packageVersion() });
    try {
      await client.connect(settings.signal ? { signal: settings.signal } : {});
    } catch (error) {
      if (settings.signal?.aborted) throw settings.signal.reason;
      throw remoteFailure(error, url.href);
    }
    const backend = new RemoteBackend(client, url.href, settings.projectKey ?? "");
    if (settings.projectKey === undefined) {
      const keys = await backend
        .projectKeys(settings.signal ? { signal: settings.signal } : {})
        .catch(() => []);
      await backend.close();
      throw usageError(
        `Remote mode needs --project-key: the project's key in the service's registry.${keys.length ? ` Keys this token may use: ${keys.join(", ")}.` : ""}`,
      );
    }
    return backend;
  }

  /** Keys from `awr_projects_list`, for a helpful error when --project-key is missing. */
  async projectKeys(options: CallOptions = {}): Promise<string[]> {
    const result = await this.#client.callTool("awr_projects_list", {}, options);
    const projects = domainJson(result)?.["projects"];
    return Array.isArray(projects)
      ? projects
          .map((p) => (isRecord(p) && typeof p["key"] === "string" ? p["key"] : ""))
          .filter(Boolean)
      : [];
  }

  async call(
    tool: ToolName,
    input: OperationInput,
    { refresh: _refresh, ...options }: CallOptions = {},
  ): Promise<OperationResult> {
    const args: OperationInput = { project: this.#project, ...input };
    const operation = findOperation(tool);
    const journaled = operation !== undefined && takesRequestId(operation);
    // The shared service requires request_id on writes; one generated here still makes the
    // outcome checkable with `awr operation get` after a lost answer.
    if (journaled && args["request_id"] === undefined)
      args["request_id"] = `awr-cli-${randomUUID()}`;
    const requestId = journaled ? (args["request_id"] as string) : undefined;
    let result: CallToolResult;
    try {
      result = await this.#client.callTool(tool, args, options);
    } catch (error) {
      if (options.signal?.aborted) throw options.signal.reason;
      throw remoteFailure(error, this.#url, requestId);
    }
    const json = domainJson(result);
    if (result.isError === true) {
      // An error with a partial result carries the error under `error` and the rest beside it.
      const body = isRecord(json?.["error"]) ? json : undefined;
      const error = body === undefined ? json : (body["error"] as Record<string, unknown>);
      const code =
        typeof error?.["code"] === "string" ? error["code"] : CLI_ERROR_CODES.RemoteError;
      const message =
        typeof error?.["message"] === "string"
          ? error["message"]
          : "The tool failed without a message.";
      const details = error?.["details"];
      throw new CliError(code, message, {
        ...(isRecord(details) ? { details } : {}),
        ...(body === undefined ? {} : { result: body }),
      });
    }
    if (json === undefined) {
      throw new CliError(
        CLI_ERROR_CODES.RemoteError,
        `The service answered ${tool} without a result.`,
      );
    }
    return json;
  }

  async currentRevision(options: CallOptions & { refresh?: boolean } = {}): Promise<number> {
    // The service cannot refresh on a read (reads answer SourceStale instead), so refresh is moot.
    const { refresh: _refresh, ...callOptions } = options;
    const status = await this.call("awr_project_status", { view: "full" }, callOptions);
    return revisionOf(status);
  }

  async close(): Promise<void> {
    await this.#client.close();
  }
}
