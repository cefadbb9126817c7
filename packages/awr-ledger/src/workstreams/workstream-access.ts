import { createHash } from "node:crypto";
import type { Kysely } from "kysely";
import { LedgerError } from "../errors.js";
import {
  publicWorkstream,
  type RecordedCatalog,
  type Workstream,
} from "../projection/workstream-catalog.js";
import type { LedgerSchema } from "../storage/schema.js";

/** One operator grant: read access to one workstream at exactly one authority_version. */
export interface WorkstreamGrant {
  readonly workstream_id: string;
  readonly authority_version: number;
}

/**
 * What a caller may read of one project's workstreams, built by the service from its registry
 * (never from tool arguments): the project's id, the caller's client id and its grants there.
 * A project-wide read or write grant is not part of it and authorises no workstream.
 */
export interface WorkstreamAccess {
  readonly project_id: string;
  readonly client: string;
  readonly grants: readonly WorkstreamGrant[];
}

/** The selectors of a call; only these come from the request. */
export interface WorkstreamSelection {
  workstream?: string | undefined;
  work?: string | undefined;
  session?: string | undefined;
}

/** The workstream a call reads, how it was chosen, and the session and work it is bound to. */
export interface ResolvedScope {
  stream: Workstream;
  basis: "session" | "work" | "explicit" | "unique_authorized";
  work: string | null;
  session: string | null;
  /** sha256 naming (project, client, workstream, authority_version): what cursors are bound to. */
  binding: string;
}

/**
 * One message for a missing and a hidden object alike, so a denial tells nothing about what
 * other workstreams hold.
 */
export function accessDenied(): LedgerError {
  return new LedgerError(
    "WorkstreamAccessDenied",
    "Workstream access denied: your credential has no grant for this workstream, or the work, session or object is not visible to it. Call awr_workstream with action list to see your workstreams; grants come from the operator.",
  );
}

/**
 * Checks the grant of `id` (exact workstream and authority_version, as the operator pinned it):
 * WorkstreamAccessDenied without one, WorkstreamUnavailable for a workstream the project does
 * not declare, WorkstreamStaleAuthority when the workstream's authority has moved on.
 */
export function authorize(
  catalog: RecordedCatalog,
  access: WorkstreamAccess,
  id: string,
): Workstream {
  const grant = access.grants.find((g) => g.workstream_id === id);
  if (grant === undefined) throw accessDenied();
  const stream = catalog.workstreams.find((w) => w.id === id);
  if (stream === undefined) {
    throw new LedgerError(
      "WorkstreamUnavailable",
      `Workstream ${id} is granted to you but this project does not declare it; ask the operator to correct the grant.`,
      { workstream_id: id },
    );
  }
  if (stream.authority_version !== grant.authority_version) {
    throw new LedgerError(
      "WorkstreamStaleAuthority",
      `Your grant for workstream ${stream.external_key} is for authority_version ${grant.authority_version}, but its authority is now version ${stream.authority_version}; the operator must review and grant the new version (then restart the service).`,
      {
        workstream_id: id,
        granted_authority_version: grant.authority_version,
        authority_version: stream.authority_version,
      },
    );
  }
  return publicWorkstream(stream);
}

function mismatch(): LedgerError {
  return new LedgerError(
    "WorkstreamBindingMismatch",
    "workstream, work and session name different workstreams; pass selectors that agree (or just one of them).",
  );
}

async function ownerOf(db: Kysely<LedgerSchema>, work: string): Promise<string> {
  const row = await db
    .selectFrom("workstream_ownership")
    .select("workstream_id")
    .where("work", "=", work)
    .executeTakeFirst();
  if (row === undefined) throw accessDenied();
  return row.workstream_id;
}

/**
 * Resolves the workstream of a call (docs/compatibility/workstreams.md): a session selects its
 * work's workstream, a work item its owner; an explicit `workstream` must agree with them; without
 * any selector the one workstream the caller is granted is chosen (several need a selector:
 * WorkstreamScopeRequired). The result is authorised; it grants nothing beyond this call.
 */
export async function resolveScope(
  db: Kysely<LedgerSchema>,
  catalog: RecordedCatalog,
  access: WorkstreamAccess,
  selection: WorkstreamSelection,
): Promise<ResolvedScope> {
  let bound: string | undefined;
  let basis: ResolvedScope["basis"] = "explicit";
  if (selection.work !== undefined) {
    bound = await ownerOf(db, selection.work);
    authorize(catalog, access, bound);
    basis = "work";
  }
  let work = selection.work ?? null;
  if (selection.session !== undefined) {
    const session = await db
      .selectFrom("sessions")
      .select(["work"])
      .where("id", "=", selection.session)
      .executeTakeFirst();
    if (session?.work === undefined || session.work === null) throw accessDenied();
    const owner = await ownerOf(db, session.work);
    authorize(catalog, access, owner);
    if (work !== null && work !== session.work) throw mismatch();
    bound = owner;
    work = session.work;
    basis = "session";
  }
  if (selection.workstream !== undefined && bound !== undefined && selection.workstream !== bound) {
    throw mismatch();
  }
  let id = bound ?? selection.workstream;
  if (id === undefined) {
    const granted = catalog.workstreams.filter((w) =>
      access.grants.some((g) => g.workstream_id === w.id),
    );
    if (granted.length === 0) throw accessDenied();
    if (granted.length > 1) {
      throw new LedgerError(
        "WorkstreamScopeRequired",
        `You are granted ${granted.length} workstreams of this project; choose one with workstream (an id from action list), work or session.`,
      );
    }
    id = (granted[0] as Workstream).id;
    basis = "unique_authorized";
  }
  const stream = authorize(catalog, access, id);
  return {
    stream,
    basis,
    work,
    session: selection.session ?? null,
    binding: createHash("sha256")
      .update(
        JSON.stringify([
          "awr.scoped_read.v1",
          access.project_id,
          access.client,
          stream.id,
          stream.authority_version,
        ]),
      )
      .digest("hex"),
  };
}
