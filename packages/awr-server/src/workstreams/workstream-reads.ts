import { AwrToolError } from "../tool-result.js";
import { WORKSTREAM_ACTIONS, type Workstream } from "./workstream-format.js";
import {
  isWorkstreamsEnabled,
  readWorkstreamIndex,
  staleWorkstreamFiles,
  summarize,
} from "./workstream-store.js";

export interface WorkstreamReadRequest {
  readonly root: string;
  readonly project: string;
  readonly client: string;
  /** This client's grants on this project: exact (workstream_id, authority_version) pairs. */
  readonly grants: readonly { workstream_id: string; authority_version: number }[];
  readonly args: {
    action: (typeof WORKSTREAM_ACTIONS)[number];
    workstream?: string;
    work?: string;
    session?: string;
    args?: { id?: string; after?: number; limit?: number };
  };
}

const denied = () =>
  new AwrToolError(
    "RuleViolation",
    "workstream access denied: your credential has no grant for this workstream at its current authority_version. Call action list to see what you may read, or ask the operator for a grant.",
  );

function granted(request: WorkstreamReadRequest, workstream: Workstream): boolean {
  return request.grants.some(
    (grant) =>
      grant.workstream_id === workstream.workstream_id &&
      grant.authority_version === workstream.authority_version,
  );
}

function renderContext(workstream: Workstream, work: string | undefined): string {
  const lines = [
    `# Workstream ${workstream.workstream_id} (authority ${workstream.authority_version}): ${workstream.title}`,
  ];
  if (workstream.summary) lines.push("", workstream.summary);
  const items = work
    ? workstream.work_items.filter((item) => item.id === work)
    : workstream.work_items;
  lines.push("", "## Work");
  for (const item of items) {
    lines.push(`- ${item.id} [${item.status}] ${item.title}`);
    if (item.next_action) lines.push(`  next: ${item.next_action}`);
    if (item.depends_on.length > 0) lines.push(`  depends on: ${item.depends_on.join(", ")}`);
    for (const criterion of item.acceptance) lines.push(`  - [ ] ${criterion}`);
  }
  const recent = workstream.events.filter((e) => !work || e.work === work).slice(-10);
  if (recent.length > 0) {
    lines.push("", "## Recent events");
    for (const event of recent)
      lines.push(`- #${event.seq} ${event.type}${event.summary ? `: ${event.summary}` : ""}`);
  }
  return lines.join("\n");
}

/**
 * Answers one awr_workstream call from the project's validated index. Reads never refresh:
 * a changed workstream file answers SourceStale until the operator reindexes.
 */
export async function readWorkstream(
  request: WorkstreamReadRequest,
): Promise<Record<string, unknown>> {
  const { root, args } = request;
  const base = { protocol_version: 1 as const, action: args.action, project: request.project };
  if (args.action === "capabilities") {
    return {
      ...base,
      client: request.client,
      actions: [...WORKSTREAM_ACTIONS],
      writes: [],
      enabled: await isWorkstreamsEnabled(root),
      grants: request.grants.map((g) => ({
        workstream_id: g.workstream_id,
        authority_version: g.authority_version,
      })),
    };
  }
  if (!(await isWorkstreamsEnabled(root))) {
    throw new AwrToolError(
      "Unsupported",
      "workstreams are not enabled on this project; use the project tools, or ask the operator to run `awr workstream enable`.",
    );
  }
  const index = await readWorkstreamIndex(root);
  if (!index)
    throw new AwrToolError(
      "Unsupported",
      "the workstream index is missing; the operator must run `awr workstream reindex`.",
    );
  const changed = await staleWorkstreamFiles(root, index);
  if (changed.length > 0) {
    throw new AwrToolError(
      "SourceStale",
      `workstream files changed since the last index (${changed.join(", ")}); the operator must run \`awr workstream reindex\`.`,
      { changed_paths: changed },
    );
  }
  if (args.action === "list") {
    return {
      ...base,
      workstreams: index.workstreams.filter((w) => granted(request, w)).map(summarize),
    };
  }
  const workstream = index.workstreams.find((w) => w.workstream_id === args.workstream);
  if (!args.workstream) {
    throw new AwrToolError(
      "InvalidInput",
      `action ${args.action} needs \`workstream\` (a workstream_id from action list).`,
    );
  }
  if (!workstream || !granted(request, workstream)) throw denied();
  const head = { ...base, workstream: summarize(workstream) };
  switch (args.action) {
    case "context": {
      if (args.work && !workstream.work_items.some((item) => item.id === args.work)) {
        throw new AwrToolError(
          "NotFound",
          `no work item "${args.work}" in workstream ${workstream.workstream_id}; see action catalog.`,
        );
      }
      return { ...head, rendered_context: renderContext(workstream, args.work) };
    }
    case "catalog":
      return {
        ...head,
        work_items: workstream.work_items.map(({ id, title, status }) => ({ id, title, status })),
        objects: workstream.objects.map(({ id, kind, title }) => ({ id, kind, title })),
      };
    case "object": {
      const wanted = args.args?.id ?? args.work;
      if (!wanted) throw new AwrToolError("InvalidInput", "action object needs args.id or `work`.");
      const item = workstream.work_items.find((entry) => entry.id === wanted);
      const object = workstream.objects.find((entry) => entry.id === wanted);
      if (!item && !object) {
        throw new AwrToolError(
          "NotFound",
          `no object "${wanted}" in workstream ${workstream.workstream_id}; see action catalog.`,
        );
      }
      return { ...head, object: item ? { kind: "work_item", ...item } : object };
    }
    case "events": {
      const after = args.args?.after ?? 0;
      const limit = args.args?.limit ?? 50;
      const matching = workstream.events.filter(
        (e) =>
          e.seq > after &&
          (!args.work || e.work === args.work) &&
          (!args.session || e.session === args.session),
      );
      const events = matching.slice(0, limit);
      return { ...head, events, next_after: matching.length > limit ? events.at(-1)?.seq : null };
    }
  }
}
