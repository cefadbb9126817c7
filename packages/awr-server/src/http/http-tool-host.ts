import type { WorkstreamAccess } from "@awr/awr-ledger";
import type { CallLimiter } from "../internal/call-limiter.js";
import type { Registry, RegistryClient } from "../registry/registry-types.js";
import type { ToolHost } from "../server/tool-host.js";
import { AwrToolError } from "../tool-result.js";
import type { ProjectDirectory } from "./project-directory.js";

const denied = () => new AwrToolError("RuleViolation", "project access denied");

/**
 * The ToolHost of one authenticated HTTP request. An unknown key, a path and an ungranted key
 * get the same answer, so a client learns nothing about projects it may not use.
 */
export function httpToolHost(input: {
  registry: Registry;
  client: RegistryClient;
  projects: ProjectDirectory;
  limiter: CallLimiter;
  log?: (line: string) => void;
}): ToolHost {
  const { registry, client, projects } = input;
  const host: ToolHost = {
    mode: "http",
    caller: { client: client.id },
    limiter: input.limiter,
    async resolveProject(key, access, options) {
      if (key === undefined || !projects.has(key) || !client.read.has(key)) throw denied();
      if (access === "write" && !client.write.has(key)) {
        throw new AwrToolError(
          "RuleViolation",
          `read-only access to project "${key}": this credential cannot write. Use read tools, or ask the operator for write access.`,
        );
      }
      const { ledger, project } = await projects.use(key, options);
      // The ledger refuses project tools where workstreams bound the project or the caller.
      await ledger.assertProjectToolAllowed?.(options?.tool ?? "this tool", accessOn(key), options);
      return { ledger, root: project.root };
    },
    listProjects() {
      const list = registry.projects
        .filter((project) => client.read.has(project.key))
        .map((project) => {
          const entry: Record<string, unknown> = {
            key: project.key,
            access: client.write.has(project.key) ? "write" : "read",
            project_id: project.project_id,
            root: project.root,
          };
          const grants = accessOn(project.key)?.grants;
          if (grants !== undefined) entry["workstreams"] = grants;
          return entry;
        });
      return { client: client.id, projects: list };
    },
    log: input.log,
  };
  if (registry.version === 2) {
    host.workstream = async ({ project: key, ...args }, options) => {
      if (typeof key !== "string" || !projects.has(key) || !client.read.has(key)) throw denied();
      const { ledger } = await projects.use(key, options);
      if (ledger.workstream === undefined) {
        throw new AwrToolError("Unsupported", "this ledger does not implement awr_workstream");
      }
      return ledger.workstream(args, accessOn(key), options);
    };
  }
  return host;

  /** The client's workstream grants on a project, as the ledger checks them (none: undefined). */
  function accessOn(key: string): WorkstreamAccess | undefined {
    const grants = client.workstreams
      .filter((grant) => grant.project === key)
      .map(({ workstream_id, authority_version }) => ({ workstream_id, authority_version }));
    const project = registry.projects.find((p) => p.key === key);
    if (grants.length === 0 || project === undefined) return undefined;
    return { project_id: project.project_id, client: client.id, grants };
  }
}
