import type { Kysely } from "kysely";
import type { BranchCloseInput } from "../../branches/branch-close.js";
import type { BranchClosePlan } from "../../branches/branch-close-plan.js";
import type { BranchCreateInput } from "../../branches/branch-create.js";
import type { BranchListInput, BranchShowResult } from "../../branches/branch-read.js";
import type { BranchSwitchInput } from "../../branches/branch-switch.js";
import type { LedgerSchema } from "../../storage/schema.js";
import { choice, id, object, revision, text } from "../json-schema.js";
import { LIMITS } from "../limits.js";
import { type OperationHost, type OperationOptions, operation } from "../operation.js";

// Work branches: CLI-only operations, so they are never on tools/list
// (docs/design/work-branches.md, "CLI commands"; docs/compatibility/mcp-protocol.md).

function readAt<T>(
  host: OperationHost,
  options: OperationOptions,
  fn: (db: Kysely<LedgerSchema>, revision: number) => Promise<T>,
): Promise<T> {
  const { store } = host.runtime;
  return store.read(async (db) => fn(db, await store.currentRevision(db)), options);
}

const actorReason = { actor: text(), reason: text() };

export const branchCreateOperation = operation({
  tool: "awr_branch_create",
  kind: "write",
  freshness: "runtime",
  surface: "cli",
  description:
    "Creates a work branch forking at expected_revision; the selection does not change. git_ref is observed read-only.",
  input: object(
    { expected_revision: revision(), name: text(), parent: id(), git_ref: text(), ...actorReason },
    ["expected_revision", "name", "actor", "reason"],
  ),
  run: async (host, input: BranchCreateInput, caller, options) =>
    (await import("../../branches/branch-create.js")).branchCreate(
      host.runtime,
      input,
      caller,
      options,
    ),
  cli: [
    {
      path: ["branch", "create"],
      summary: "create a work branch at the current revision (runtime state, never a Git branch)",
      operands: [{ field: "name", name: "NAME" }],
    },
  ],
});

export const branchListOperation = operation({
  tool: "awr_branch_list",
  kind: "read",
  freshness: "runtime",
  surface: "cli",
  description: "The work branches by name, a page at a time, and main.",
  input: object({
    status: choice(["active", "merged", "abandoned"]),
    offset: { type: "integer", minimum: 0, maximum: LIMITS.branchList.offsetMax },
    limit: { type: "integer", minimum: 1, maximum: LIMITS.branchList.max },
  }),
  run: async (host, input: BranchListInput, _caller, options) => {
    const { branchList } = await import("../../branches/branch-read.js");
    return readAt(host, options, (db, rev) =>
      branchList(db, host.runtime.store.projectId, rev, input),
    );
  },
  cli: [
    { path: ["branch", "list"], summary: "main and the work branches, the selected one marked" },
  ],
});

export const branchShowOperation = operation({
  tool: "awr_branch_show",
  kind: "read",
  freshness: "runtime",
  surface: "cli",
  description: "One work branch (default: the selected one) with its creation and closure records.",
  input: object({ branch: id(), close_plan: { type: "boolean", default: false } }),
  run: async (host, input: { branch?: string; close_plan?: boolean }, _caller, options) => {
    const { branchShow, branchClosePlanOf } = await import("../../branches/branch-read.js");
    const { projectId } = host.runtime.store;
    return readAt<BranchShowResult | BranchClosePlan>(host, options, (db, rev) =>
      input.close_plan === true
        ? branchClosePlanOf(db, projectId, rev, input.branch)
        : branchShow(db, projectId, rev, input.branch),
    );
  },
  cli: [
    {
      path: ["branch", "show"],
      summary: "one work branch (default: the selected one) and its records",
      operands: [{ field: "branch", name: "BRANCH", optional: true }],
    },
  ],
});

export const branchSwitchOperation = operation({
  tool: "awr_branch_switch",
  kind: "write",
  freshness: "runtime",
  surface: "cli",
  description: "Selects another work branch (or main) as the project's default; nothing moves.",
  input: object({ expected_revision: revision(), branch: id(), ...actorReason }, [
    "expected_revision",
    "branch",
    "actor",
    "reason",
  ]),
  run: async (host, input: BranchSwitchInput, caller, options) =>
    (await import("../../branches/branch-switch.js")).branchSwitch(
      host.runtime,
      input,
      caller,
      options,
    ),
  cli: [
    {
      path: ["branch", "switch"],
      summary: "select another work branch (or main) as the default for every client",
      operands: [{ field: "branch", name: "BRANCH" }],
    },
  ],
});

export const branchCloseOperation = operation({
  tool: "awr_branch_close",
  kind: "write",
  freshness: "refresh",
  surface: "cli",
  description:
    "Closes a work branch as merged or abandoned from a close input (outcome, summary, merge evidence, open-loop dispositions).",
  input: object(
    {
      expected_revision: revision(),
      branch: id(),
      // The close input file as it came; checkCloseInput names every problem in it.
      input: { type: "object", additionalProperties: true },
      into: id(),
      ...actorReason,
    },
    ["expected_revision", "branch", "input", "actor", "reason"],
  ),
  run: async (host, input: BranchCloseInput, caller, options) =>
    (await import("../../branches/branch-close.js")).branchClose(
      host.runtime,
      input,
      caller,
      options,
    ),
  cli: [
    {
      path: ["branch", "close"],
      summary: "close a work branch as merged or abandoned (--input FILE holds the close input)",
      operands: [{ field: "branch", name: "BRANCH" }],
      files: { input: { base: "cwd", maxBytes: LIMITS.inputFileBytes } },
    },
  ],
});
