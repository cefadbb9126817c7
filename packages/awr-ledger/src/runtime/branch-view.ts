import type { BranchStatus, BranchTable } from "../core/runtime-tables.js";

/** A work branch as results show it (docs/compatibility/runtime.md). */
export interface BranchView {
  id: string;
  project_id: string;
  name: string;
  parent_branch_id: string | null;
  git_ref: string | null;
  fork_project_revision: number;
  status: BranchStatus;
  revision: number;
}

export function branchView(row: BranchTable, projectId: string): BranchView {
  return {
    id: row.id,
    project_id: projectId,
    name: row.name,
    parent_branch_id: row.parent_branch_id,
    git_ref: row.git_ref,
    fork_project_revision: Number(row.fork_revision),
    status: row.status as BranchStatus,
    revision: Number(row.revision),
  };
}
