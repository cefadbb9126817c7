import { execFile } from "node:child_process";
import { promisify } from "node:util";
import { LedgerError } from "../errors.js";

const run = promisify(execFile);

/** What `branch create --git-ref` observed: a local Git ref and its commit, read only. */
export interface GitBinding {
  requested_ref: string;
  /** The full ref name (`refs/heads/…`), or the ref as given when it is not symbolic (a SHA). */
  resolved_ref: string;
  commit_sha: string;
  repository_root: string;
  /** Milliseconds since the epoch. */
  observed_at: number;
}

async function git(root: string, args: string[]): Promise<string> {
  const { stdout } = await run("git", args, { cwd: root, timeout: 10_000, maxBuffer: 1 << 20 });
  return stdout.trim();
}

/**
 * Observes `ref` in the Git repository holding `root` with read-only `git rev-parse` (never a
 * checkout or any write). A ref that does not resolve to a commit is InvalidInput.
 */
export async function observeGitRef(root: string, ref: string, nowMs: number): Promise<GitBinding> {
  try {
    const repositoryRoot = await git(root, ["rev-parse", "--show-toplevel"]);
    const commit = await git(root, [
      "rev-parse",
      "--verify",
      "--end-of-options",
      `${ref}^{commit}`,
    ]);
    const symbolic = await git(root, [
      "rev-parse",
      "--symbolic-full-name",
      "--end-of-options",
      ref,
    ]);
    return {
      requested_ref: ref,
      resolved_ref: symbolic === "" ? ref : symbolic,
      commit_sha: commit,
      repository_root: repositoryRoot,
      observed_at: nowMs,
    };
  } catch (cause) {
    throw new LedgerError(
      "InvalidInput",
      `git ref ${ref} does not resolve to a commit in the project's Git repository (${root}); name an existing local ref or commit, or omit --git-ref`,
      { field: "git_ref", git_ref: ref },
      { cause },
    );
  }
}
