import { type DoctorFinding, finding } from "./doctor-finding.js";

/** A work branch as the doctor judges it (migration 010). */
export interface BranchRow {
  id: string;
  status: string;
  fork_revision: number;
  parent_branch_id: string | null;
}

/** Why a branch cannot carry runtime state: closed, forked in the future, or a bad parent. */
export function branchProblems(
  branch: BranchRow,
  branches: ReadonlyMap<string, BranchRow>,
  revision: number,
): { closed?: string; fork?: true; parent?: true } {
  return {
    ...(branch.status !== "active" ? { closed: branch.status } : {}),
    ...(Number(branch.fork_revision) < 0 || Number(branch.fork_revision) > revision
      ? { fork: true as const }
      : {}),
    ...(branch.parent_branch_id !== null &&
    (branch.parent_branch_id === branch.id || !branches.has(branch.parent_branch_id))
      ? { parent: true as const }
      : {}),
  };
}

/**
 * The selected branch must exist and be active; an active branch must fork at or before the
 * current revision and name an existing parent other than itself. Only the selected one can be
 * repaired (by selecting main again).
 */
export function inspectBranches(
  branches: ReadonlyMap<string, BranchRow>,
  current: string | null,
  revision: number,
): DoctorFinding[] {
  const found: DoctorFinding[] = [];
  for (const branch of [...branches.values()].sort((a, b) => (a.id < b.id ? -1 : 1))) {
    const selected = branch.id === current;
    const bad = branchProblems(branch, branches, revision);
    const problems: string[] = [];
    if (selected && bad.closed !== undefined) problems.push(`current branch is ${bad.closed}`);
    if (branch.status === "active" && bad.fork) {
      problems.push("active branch forks from a future project revision");
    }
    if (branch.status === "active" && bad.parent) {
      problems.push("active branch has an invalid parent reference");
    }
    if (problems.length === 0) continue;
    found.push(
      finding(
        "invalid_branch",
        "error",
        "branch",
        branch.id,
        problems.join("; "),
        selected ? { kind: "clear_invalid_branch", branch_id: branch.id } : null,
      ),
    );
  }
  if (current !== null && !branches.has(current)) {
    found.push(
      finding(
        "invalid_branch",
        "error",
        "branch",
        current,
        "Project current_branch_id points to a missing branch",
        { kind: "clear_invalid_branch", branch_id: current },
      ),
    );
  }
  return found;
}
