import { McpServer } from "@modelcontextprotocol/sdk/server/mcp.js";
import {
  CallToolRequestSchema,
  type CallToolResult,
  ErrorCode,
  ListToolsRequestSchema,
  McpError,
} from "@modelcontextprotocol/sdk/types.js";
import { AjvJsonSchemaValidator } from "@modelcontextprotocol/sdk/validation/ajv-provider.js";
import type { z } from "zod";
import { toolErrorPayload, toolFailure, toolSuccess } from "../tool-result.js";
import { PROJECTS_LIST_TOOL, WORKSTREAM_TOOL } from "../tools/tool-catalog.js";
import type { ProjectToolDefinition } from "../tools/tool-definition.js";
import type { ToolHost } from "./tool-host.js";
import { type ToolSetEntry, toolSet } from "./tool-set.js";

/** Tool arguments larger than this (as JSON, in UTF-8 bytes) are refused with InvalidInput. */
export const MAX_ARGUMENT_BYTES = 1024 * 1024;
/** JSON-RPC error code of a call refused because too many are in flight. */
export const BUSY_ERROR_CODE = -32010;

export const SERVER_NAME = "awr";
export const SERVER_VERSION = "0.1.0";

const INSTRUCTIONS = {
  http: "AWR work ledger. Call awr_projects_list first; every project tool then needs `project` (a key from that list), and every write needs expected_revision and a stable request_id.",
  stdio:
    "AWR work ledger for one project. Start with awr_project_status; every write needs expected_revision (request_id is optional but makes retries safe).",
} as const;

/**
 * One JSON Schema validator for every server instance. The SDK would otherwise build a fresh Ajv
 * (with its formats) per McpServer, that is per HTTP request; AWR never asks the client for
 * schema-checked input (no elicitation), so sharing it changes nothing but the cost.
 */
let sharedValidator: AjvJsonSchemaValidator | undefined;

function issuesOf(error: z.ZodError) {
  return error.issues.map((issue) => ({
    path: issue.path.map(String).join(".") || "(arguments)",
    message: issue.message,
  }));
}

/**
 * Builds an McpServer exposing the AWR tools for one ToolHost. The tool catalog (schemas,
 * descriptions, annotations and the tools/list answer) is built once per process and shared, so
 * a server per HTTP request costs little more than its handlers. tools/list answers from that
 * catalog exactly as the SDK renders registered tools; tools/call is our own handler so that an
 * unknown tool is a JSON-RPC -32601 error, invalid input is an InvalidInput result with the
 * issues, domain errors become `isError` results `{code, message, details?}`, and the in-flight
 * limit holds.
 */
export function createAwrServer(host: ToolHost): McpServer {
  sharedValidator ??= new AjvJsonSchemaValidator();
  const server = new McpServer(
    { name: SERVER_NAME, version: SERVER_VERSION },
    {
      capabilities: { tools: { listChanged: false } },
      instructions: INSTRUCTIONS[host.mode],
      jsonSchemaValidator: sharedValidator,
    },
  );
  const tools = toolSet(host.mode, {
    projectsList: host.listProjects !== undefined,
    workstream: host.workstream !== undefined,
  });

  async function runProjectTool(
    tool: ProjectToolDefinition,
    args: Record<string, unknown>,
    signal: AbortSignal,
  ): Promise<unknown> {
    const { project, ...rest } = args;
    const access = tool.kind === "write" ? "write" : "read";
    const resolved = await host.resolveProject(project as string | undefined, access, {
      signal,
      tool: tool.name,
    });
    return resolved.ledger[tool.method](rest, host.caller, { signal });
  }

  async function run(
    entry: ToolSetEntry,
    args: Record<string, unknown>,
    signal: AbortSignal,
  ): Promise<unknown> {
    const { target } = entry;
    if (target.kind === "project") return runProjectTool(target.tool, args, signal);
    // The tool set only holds these two when the host has them.
    if (target.kind === "projects-list") return host.listProjects?.();
    return host.workstream?.(args, { signal });
  }

  // McpServer installed its own tool handlers (the tools capability is declared); ours replace
  // them. The capability it registered ({listChanged: true}) stays as it always was.
  server.server.removeRequestHandler("tools/list");
  server.server.setRequestHandler(ListToolsRequestSchema, () => tools.listResult());
  server.server.removeRequestHandler("tools/call");
  server.server.setRequestHandler(CallToolRequestSchema, async (request, extra) => {
    const { name } = request.params;
    const entry = tools.entries.get(name);
    if (!entry) {
      throw new McpError(ErrorCode.MethodNotFound, `Unknown tool: ${name}. Call tools/list.`);
    }
    if (!host.limiter.tryAcquire()) {
      throw new McpError(
        BUSY_ERROR_CODE,
        `Server busy: ${host.limiter.max} tool calls are already running. Nothing was done; retry shortly with the same arguments.`,
        { reason: "busy", limit: host.limiter.max },
      );
    }
    try {
      return await callTool(name, entry, request.params.arguments ?? {}, extra.signal);
    } finally {
      host.limiter.release();
    }
  });

  async function callTool(
    name: string,
    entry: ToolSetEntry,
    args: Record<string, unknown>,
    signal: AbortSignal,
  ): Promise<CallToolResult> {
    const bytes = Buffer.byteLength(JSON.stringify(args), "utf8");
    if (bytes > MAX_ARGUMENT_BYTES) {
      return toolFailure({
        code: "InvalidInput",
        message: `The arguments are ${bytes} bytes; the limit is ${MAX_ARGUMENT_BYTES} (1 MiB). Send less (e.g. a shorter payload or summary).`,
        details: { bytes, limit: MAX_ARGUMENT_BYTES },
      });
    }
    const parsed = entry.input.safeParse(args);
    if (!parsed.success) {
      const issues = issuesOf(parsed.error);
      return toolFailure({
        code: "InvalidInput",
        message: `Invalid arguments for ${name}: ${issues.map((i) => `${i.path}: ${i.message}`).join("; ")}. Fix them as the tool's input schema says.`,
        details: { issues },
      });
    }
    try {
      const value = await run(entry, parsed.data as Record<string, unknown>, signal);
      // awr_workstream answers an incomplete context as an error result carrying its envelope.
      const incomplete =
        entry.target.kind === "workstream" && (value as { ok?: unknown })?.ok === false;
      return incomplete ? { ...toolSuccess(value), isError: true } : toolSuccess(value);
    } catch (error) {
      const payload = toolErrorPayload(error);
      if (payload) return toolFailure(payload);
      if (signal.aborted) throw error;
      host.log?.(`${name} failed: ${(error as Error)?.stack ?? String(error)}`);
      throw new McpError(
        ErrorCode.InternalError,
        `${name} failed unexpectedly: ${(error as Error)?.message ?? String(error)}. For a write, call awr_operation_get with its request_id before retrying.`,
      );
    }
  }

  return server;
}

export { PROJECTS_LIST_TOOL, WORKSTREAM_TOOL };
