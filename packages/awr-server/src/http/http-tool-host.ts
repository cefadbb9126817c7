import type { WorkstreamAccess } from "@awr/awr-ledger/workstreams";
import type { CallLimiter } from "../internal/call-limiter.js";
import type { Registry, RegistryClient } from "../registry/registry-types.js";
import type { ToolHost } from "../server/tool-host.js";
import { AwrToolError } from "../tool-result.js";
import type { ProjectDirectory } from "./project-directory.js";
import { sharedSourceStale } from "./source-stale-hint.js";

/** How a client picks a project, as awr_projects_list says it. */
const PROJECT_SELECTION = "pass project on every project-scoped call; no shared current project";

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
  return {
    mode: "http",
    caller: { client: client.id },
    limiter: input.limiter,
    workstreams: registry.version === 2,
    async resolveProject(key, access, options = {}) {
      if (key === undefined || !projects.has(key) || !client.read.has(key)) throw denied();
      if (access === "write" && !client.write.has(key)) {
        throw new AwrToolError(
          "RuleViolation",
          `read-only access to project "${key}": this credential cannot write. Use read tools, or ask the operator for write access.`,
        );
      }
      const { ledger, project } = await projects.use(key, options);
      const workstreamAccess = accessOn(key);
      // Every project tool but awr_workstream: the ledger refuses it where workstreams bound
      // the project or the caller.
      if (options.workstreamRead !== true) {
        await ledger.assertProjectToolAllowed?.(
          options.tool ?? "this tool",
          workstreamAccess,
          options,
        );
      }
      const canWrite = client.write.has(key);
      return {
        ledger,
        root: project.root,
        workstreamAccess,
        explain: (error) => sharedSourceStale(error, key, canWrite),
      };
    },
    listProjects() {
      const list = registry.projects
        .filter((project) => client.read.has(project.key))
        .map((project) => {
          // Never a root or a path of the server's disk: the key, identity and access.
          const entry: Record<string, unknown> = {
            key: project.key,
            project_id: project.project_id,
            access: client.write.has(project.key) ? "write" : "read",
          };
          const grants = accessOn(project.key)?.grants;
          if (grants !== undefined) entry["workstreams"] = grants;
          return entry;
        });
      // The envelope (docs/compatibility/mcp-protocol.md): `ok`, `read_only` (the call changed
      // nothing) and `selection`, the rule for using the keys; `client` and `projects` as well.
      return {
        ok: true,
        read_only: true,
        client: client.id,
        projects: list,
        selection: PROJECT_SELECTION,
      };
    },
    log: input.log,
  };

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
