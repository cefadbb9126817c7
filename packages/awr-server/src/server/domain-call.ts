import type { ServerMode } from "@awr/awr-ledger";
import {
  type Domain,
  domainOf,
  MANIFEST_VERSION,
  TOOL_EXPOSURE_ENV,
} from "@awr/awr-ledger/catalog";
import { JsonRpcErrorCode } from "@awr/jsonrpc-core";
import { McpError } from "../sdk/mcp-sdk.js";

/** What a domain tool call asks for: its manifest, or one child run with its own arguments. */
export type DomainCall =
  | { readonly kind: "manifest"; readonly project: string | undefined }
  | { readonly kind: "child"; readonly child: string; readonly arguments: Record<string, unknown> };

const DOMAIN_FIELDS = new Set(["child_tool", "arguments", "manifest_version", "project"]);

/**
 * Reads a domain tool's arguments. No `child_tool` (and nothing but `arguments` or `project`):
 * the manifest. `child_tool` with an `arguments` object: that child, with `project` (shared
 * HTTP) passed on to it. Anything else is the caller's mistake, refused as invalid params (-32602)
 * with the fix: a child of another domain names its domain, an unknown one lists the children.
 */
export function readDomainCall(
  domain: Domain,
  args: Record<string, unknown>,
  mode: ServerMode,
): DomainCall {
  const unknown = Object.keys(args).filter(
    (key) => !DOMAIN_FIELDS.has(key) || (key === "project" && mode !== "http"),
  );
  if (unknown.length > 0) {
    throw invalid(
      `${domain.name} takes child_tool, arguments and manifest_version${mode === "http" ? " and project" : ""}; unknown: ${unknown.join(", ")}. Put the child tool's own arguments inside \`arguments\`.`,
    );
  }
  const { child_tool: child, arguments: childArgs, manifest_version: version, project } = args;
  if (project !== undefined && typeof project !== "string") {
    throw invalid(`project must be a string: a key from awr_projects_list.`);
  }
  if (child === undefined && version === undefined) {
    return { kind: "manifest", project };
  }
  if (typeof child !== "string" || child === "") {
    throw invalid(
      `provide both child_tool and arguments, or neither for discovery: call ${domain.name} with no arguments to read its children.`,
    );
  }
  if (childArgs === null || typeof childArgs !== "object" || Array.isArray(childArgs)) {
    throw invalid(
      `provide both child_tool and arguments, or neither for discovery: give ${child}'s arguments as an object (an empty one if it takes none).`,
    );
  }
  if (version !== undefined && version !== MANIFEST_VERSION) {
    throw invalid(
      `manifest_version ${JSON.stringify(version)} is not this server's (${MANIFEST_VERSION}): call ${domain.name} with no arguments to read the current manifest, then retry.`,
    );
  }
  if (!domain.children.includes(child)) throw notAChild(domain, child);
  const passed = childArgs as Record<string, unknown>;
  return {
    kind: "child",
    child,
    arguments: project === undefined ? passed : { ...passed, project },
  };
}

function notAChild(domain: Domain, child: string): McpError {
  const home = domainOf(child);
  if (home !== undefined) {
    return invalid(
      `child_tool is not a member of this domain: ${child} belongs to ${home.name}, not ${domain.name}. Call ${home.name} with child_tool "${child}", or call ${child} by name (flat names stay callable; ${TOOL_EXPOSURE_ENV}=flat lists every tool by name).`,
    );
  }
  return invalid(
    `child_tool is not a member of this domain: ${domain.name} has no child ${JSON.stringify(child)}; its children are ${domain.children.join(", ")}. Call ${domain.name} with no arguments for their schemas.`,
  );
}

function invalid(message: string): McpError {
  return new McpError(JsonRpcErrorCode.InvalidParams, message);
}
