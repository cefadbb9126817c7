import { McpServer } from "@modelcontextprotocol/sdk/server/mcp.js";
import {
  CallToolRequestSchema,
  type CallToolResult,
  ErrorCode,
  McpError,
} from "@modelcontextprotocol/sdk/types.js";
import type { z } from "zod";
import { AwrToolError, toolErrorPayload, toolFailure, toolSuccess } from "../tool-result.js";
import { projectsListTool, workstreamTool } from "../tools/shared-tools.js";
import {
  ledgerOutput,
  PROJECT_TOOLS,
  PROJECTS_LIST_TOOL,
  projectToolAnnotations,
  projectToolInput,
  WORKSTREAM_TOOL,
} from "../tools/tool-catalog.js";
import { isWorkstreamsEnabled } from "../workstreams/workstream-store.js";
import type { ToolHost } from "./tool-host.js";

/** Tool arguments larger than this (as JSON, in UTF-8 bytes) are refused with InvalidInput. */
export const MAX_ARGUMENT_BYTES = 1024 * 1024;
/** JSON-RPC error code of a call refused because too many are in flight. */
export const BUSY_ERROR_CODE = -32010;

export const SERVER_NAME = "awr";
export const SERVER_VERSION = "0.1.0";

interface ToolEntry {
  readonly input: z.ZodType;
  run(args: Record<string, unknown>, signal: AbortSignal): Promise<unknown>;
}

function issuesOf(error: z.ZodError) {
  return error.issues.map((issue) => ({
    path: issue.path.map(String).join(".") || "(arguments)",
    message: issue.message,
  }));
}

/**
 * Builds an McpServer exposing the AWR tools for one ToolHost. tools/list comes from the SDK
 * (schemas, annotations, output schemas); tools/call is our own handler so that an unknown tool
 * is a JSON-RPC -32601 error, invalid input is an InvalidInput result with the issues, domain
 * errors become `isError` results `{code, message, details?}`, and the in-flight limit holds.
 */
export function createAwrServer(host: ToolHost): McpServer {
  const server = new McpServer(
    { name: SERVER_NAME, version: SERVER_VERSION },
    {
      capabilities: { tools: { listChanged: false } },
      instructions:
        host.mode === "http"
          ? "AWR work ledger. Call awr_projects_list first; every project tool then needs `project` (a key from that list), and every write needs expected_revision and a stable request_id."
          : "AWR work ledger for one project. Start with awr_project_status; every write needs expected_revision (request_id is optional but makes retries safe).",
    },
  );
  const entries = new Map<string, ToolEntry>();

  for (const tool of PROJECT_TOOLS) {
    const input = projectToolInput(tool, host.mode);
    const run = async (args: Record<string, unknown>, signal: AbortSignal) => {
      const { project, ...rest } = args;
      const access = tool.kind === "write" ? "write" : "read";
      const resolved = await host.resolveProject(project as string | undefined, access, { signal });
      if (await isWorkstreamsEnabled(resolved.root)) {
        throw new AwrToolError(
          "Unsupported",
          `${tool.name} is not available: this project has workstreams enabled, so only awr_workstream reads are served. Ask the operator, or use awr_workstream.`,
        );
      }
      return resolved.ledger[tool.method](rest, host.caller, { signal });
    };
    entries.set(tool.name, { input, run });
    server.registerTool(
      tool.name,
      {
        title: tool.title,
        description: tool.description,
        inputSchema: input,
        outputSchema: ledgerOutput,
        annotations: projectToolAnnotations(tool),
      },
      async () => toolFailure({ code: "Unsupported", message: "unreachable" }),
    );
  }

  const shared = [
    host.listProjects ? projectsListTool(host.listProjects.bind(host)) : undefined,
    host.workstream ? workstreamTool(host.workstream.bind(host)) : undefined,
  ];
  for (const tool of shared) {
    if (!tool) continue;
    entries.set(tool.name, { input: tool.input, run: tool.run });
    server.registerTool(
      tool.name,
      {
        title: tool.title,
        description: tool.description,
        inputSchema: tool.input,
        outputSchema: tool.output,
        annotations: tool.annotations,
      },
      async () => toolFailure({ code: "Unsupported", message: "unreachable" }),
    );
  }

  server.server.removeRequestHandler("tools/call");
  server.server.setRequestHandler(CallToolRequestSchema, async (request, extra) => {
    const { name } = request.params;
    const entry = entries.get(name);
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
    entry: ToolEntry,
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
      return toolSuccess(await entry.run(parsed.data as Record<string, unknown>, signal));
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
