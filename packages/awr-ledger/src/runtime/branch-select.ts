import type { Kysely } from "kysely";
import { LIMITS } from "../core/limits.js";
import type { BranchTable } from "../core/runtime-tables.js";
import { LedgerError } from "../errors.js";
import { PreparedQuery } from "../storage/prepared-query.js";
import type { LedgerSchema } from "../storage/schema.js";

// The one place a branch selector becomes a branch (docs/design/work-branches.md, "Naming and
// selecting a branch"). `null` as a resolved branch is main, the baseline, which has no row.

/** The explicit name of the baseline; never a branch's name. */
export const MAIN = "main";

const selectedBranchQuery = new PreparedQuery<
  Record<string, never>,
  { current_branch_id: string | null }
>((db) => db.selectFrom("project_state").select("current_branch_id"));

const branchByIdQuery = new PreparedQuery<{ id: string }, BranchTable>((db, $) =>
  db.selectFrom("branches").selectAll().where("id", "=", $("id")),
);

const branchesNamedQuery = new PreparedQuery<{ selector: string }, BranchTable>((db, $) =>
  db
    .selectFrom("branches")
    .selectAll()
    .where((eb) => eb.or([eb("name", "=", $("selector")), eb("id", "=", $("selector"))])),
);

/** The project's selected default branch id (null = main). Project-wide. */
export async function selectedBranchId(db: Kysely<LedgerSchema>): Promise<string | null> {
  const row = await selectedBranchQuery.first(db, {});
  return row?.current_branch_id ?? null;
}

/**
 * Resolves a selector: omitted or null is the selected default, `"main"` is main, anything else
 * is a branch by name or id (NotFound "work branch X" when none; InvalidInput when a name and
 * an id name different branches). Closed branches resolve too: reads accept them.
 */
export async function resolveBranch(
  db: Kysely<LedgerSchema>,
  selector: string | null | undefined,
): Promise<BranchTable | null> {
  if (selector === undefined || selector === null) {
    const current = await selectedBranchId(db);
    if (current === null) return null;
    const row = await branchByIdQuery.first(db, { id: current });
    if (row === undefined) {
      throw new LedgerError(
        "NotFound",
        `work branch ${current} (the selected default) does not exist; run \`awr doctor\` and \`awr doctor repair clear-invalid-branch ${current}\``,
        { branch: current },
      );
    }
    return row;
  }
  if (selector.trim().length === 0) {
    throw new LedgerError("InvalidInput", 'branch selector is empty: name a branch, or "main"', {
      branch: selector,
    });
  }
  if (selector === MAIN) return null;
  const rows = await branchesNamedQuery.all(db, { selector });
  if (rows.length > 1) {
    throw new LedgerError(
      "InvalidInput",
      `branch selector ${selector} is the name of one branch and the id of another; pass the id, or rename the branch to an unambiguous name`,
      { branch: selector, matches: rows.map((r) => r.id) },
    );
  }
  const row = rows[0];
  if (row === undefined) {
    throw new LedgerError(
      "NotFound",
      `work branch ${selector} does not exist; list the branches with \`awr branch list\``,
      { branch: selector },
    );
  }
  return row;
}

/** The resolved branch's id (null = main). */
export function branchIdOf(branch: BranchTable | null): string | null {
  return branch === null ? null : branch.id;
}

/** Writes that create runtime state need an active branch: a closed one is NotFound. */
export function requireActiveBranch(branch: BranchTable | null): BranchTable | null {
  if (branch !== null && branch.status !== "active") {
    throw new LedgerError(
      "NotFound",
      `active branch ${branch.name} does not exist: it is ${branch.status}, and a closed branch takes no new sessions, claims, events or evidence; create or select an active branch`,
      { branch: branch.id, status: branch.status },
    );
  }
  return branch;
}

/** Resolves a selector that must name an active branch (or main). */
export async function resolveActiveBranch(
  db: Kysely<LedgerSchema>,
  selector: string | null | undefined,
): Promise<BranchTable | null> {
  return requireActiveBranch(await resolveBranch(db, selector));
}

/** The active branch with this id (a session's or claim's branch); main for null. */
export async function activeBranchById(
  db: Kysely<LedgerSchema>,
  id: string | null,
): Promise<BranchTable | null> {
  if (id === null) return null;
  return requireActiveBranch(await resolveBranch(db, id));
}

// biome-ignore lint/suspicious/noControlCharactersInRegex: the check is for control characters.
const CONTROL = /[\u0000-\u001f\u007f-\u009f]/u;

/** Checks a bounded free-text field: 1..max bytes, no outer whitespace, no control characters. */
export function checkText(
  field: string,
  value: string,
  maxBytes: number,
  options: { outerWhitespace?: boolean; controls?: boolean } = {},
): string {
  const bytes = Buffer.byteLength(value, "utf8");
  const problem =
    bytes === 0 || value.trim().length === 0
      ? "must not be blank"
      : bytes > maxBytes
        ? `is ${bytes} bytes; at most ${maxBytes} are allowed`
        : options.outerWhitespace !== true && value.trim() !== value
          ? "must not start or end with whitespace"
          : options.controls !== true && CONTROL.test(value)
            ? "must not contain control characters"
            : undefined;
  if (problem !== undefined) {
    throw new LedgerError("InvalidInput", `${field} ${problem}`, { field });
  }
  return value;
}

/** A branch name: 1..128 bytes, no outer whitespace or control characters, never `main`. */
export function checkBranchName(name: string): string {
  checkText("branch name", name, 128);
  if (name === MAIN) {
    throw new LedgerError(
      "InvalidInput",
      "branch name main is reserved for the baseline; choose another name",
      { field: "name" },
    );
  }
  return name;
}

/** A Git ref to observe: 1..4096 bytes, no outer whitespace or control characters, no leading `-`. */
export function checkGitRef(ref: string): string {
  checkText("git ref", ref, LIMITS.gitRefBytes);
  if (ref.startsWith("-")) {
    throw new LedgerError("InvalidInput", `git ref ${ref} must not start with "-"`, {
      field: "git_ref",
    });
  }
  return ref;
}

/** The actor and reason every branch write records. */
export function checkActorReason(actor: string, reason: string): void {
  checkText("actor", actor, LIMITS.branchActorBytes);
  checkText("reason", reason, LIMITS.branchReasonBytes, { outerWhitespace: true, controls: true });
}
