import { LedgerError } from "../errors.js";
import { throwIfAborted } from "../internal/abort.js";
import type { LedgerContext } from "../project/ledger-context.js";
import { readCatalog, type Workstream } from "../projection/workstream-catalog.js";
import { workstreamIdOf } from "../sources/adapters/workstream-format.js";
import type { LedgerStore } from "../storage/ledger-store.js";
import { ledgerStore } from "../storage/ledger-store-of.js";
import {
  accessDenied,
  authorize,
  resolveScope,
  type WorkstreamAccess,
} from "./workstream-access.js";
import {
  WORKSTREAM_ACTIONS,
  WORKSTREAM_PROTOCOL_VERSION,
  type WorkstreamAction,
  type WorkstreamArgs,
  workstreamCapabilities,
} from "./workstream-capabilities.js";
import { catalogPage } from "./workstream-catalog-page.js";
import { workstreamContext } from "./workstream-context.js";
import { readEvents } from "./workstream-events.js";
import { readObject, readRecovery } from "./workstream-objects.js";
import { searchScope } from "./workstream-search.js";
import { workstreamVisibility } from "./workstream-visibility.js";

/** The part of a Ledger the workstream reads use (the catalog passes its store along). */
export interface WorkstreamLedger {
  readonly projectId: string;
  readonly context: LedgerContext;
  readonly store?: LedgerStore | undefined;
}

/** The result of every scoped action: the envelope around the action's result. */
export interface WorkstreamEnvelope {
  /** False only for a context packet that is incomplete (served as an error result). */
  ok: boolean;
  read_only: true;
  protocol_version: 1;
  workstream: Workstream;
  scope_binding: string;
  project_revision: number;
  result: Record<string, unknown>;
}

/**
 * awr_workstream's arguments (`{protocol_version, action, workstream?, work?, session?, args?}`,
 * without `project`) as the gate admitted them against the catalog's schema, `args` against
 * the action's.
 */
export type WorkstreamRequest = Readonly<Record<string, unknown>>;

/**
 * One admitted awr_workstream call for a caller whose grants on this project are `access`
 * (undefined: none). Read-only; the sources must be fresh (else SourceStale). capabilities
 * answers the protocol, list `{ok, read_only, workstreams}` (every granted workstream, each
 * grant checked), every other action a WorkstreamEnvelope. Another protocol_version or action
 * is Unsupported.
 */
export async function readWorkstream(
  ledger: WorkstreamLedger,
  fields: WorkstreamRequest,
  access: WorkstreamAccess | undefined,
  options: { signal?: AbortSignal | undefined } = {},
): Promise<Record<string, unknown>> {
  throwIfAborted(options.signal);
  const action = fields["action"];
  if (
    fields["protocol_version"] !== WORKSTREAM_PROTOCOL_VERSION ||
    !(WORKSTREAM_ACTIONS as readonly unknown[]).includes(action)
  ) {
    throw new LedgerError(
      "Unsupported",
      `awr_workstream speaks protocol_version ${WORKSTREAM_PROTOCOL_VERSION} with the actions ${WORKSTREAM_ACTIONS.join(", ")}; got protocol_version ${JSON.stringify(fields["protocol_version"] ?? null)}, action ${JSON.stringify(action ?? null)}. Nothing was done.`,
    );
  }
  const args = (fields["args"] as WorkstreamArgs | undefined) ?? {};
  const selection = {
    workstream: selector(fields, "workstream"),
    work: fields["work"] as string | undefined,
    session: fields["session"] as string | undefined,
  };
  if (action === "capabilities" || action === "list") {
    if (Object.values(selection).some((v) => v !== undefined) || Object.keys(args).length > 0) {
      throw new LedgerError(
        "InvalidInput",
        `action ${action} takes no workstream, work, session or args; drop them.`,
      );
    }
    if (action === "capabilities") return workstreamCapabilities();
  }
  // A caller without grants here (a project-wide grant alone) reads no workstream.
  if (
    access === undefined ||
    access.grants.length === 0 ||
    access.project_id !== ledger.projectId
  ) {
    throw accessDenied();
  }
  await ledger.context.ensureFresh({ signal: options.signal, client: access.client });
  return ledgerStore(ledger).read(
    async (db) => {
      const revision = await ledgerStore(ledger).currentRevision(db);
      const catalog = await readCatalog(db, ledger.projectId);
      if (catalog.source_path === null) {
        throw new LedgerError(
          "Unsupported",
          "This project does not serve workstreams: the operator enables them (awr workstream enable) before awr_workstream can read it.",
        );
      }
      if (action === "list") {
        const workstreams = access.grants.map((g) => authorize(catalog, access, g.workstream_id));
        return { ok: true, read_only: true, workstreams };
      }
      const scope = await resolveScope(db, catalog, access, selection);
      const visible = await workstreamVisibility(db, revision, scope.stream, access.client);
      const name = action as Exclude<WorkstreamAction, "capabilities" | "list">;
      let result: Record<string, unknown>;
      switch (name) {
        case "context":
          result = await workstreamContext(db, revision, scope, visible, args, {
            client: access.client,
            projectId: ledger.projectId,
            projectKey:
              ledger.context.manifest().manifest.project.external_key ?? ledger.context.projectName,
            projectName: ledger.context.projectName,
            contextProfile: ledger.context.manifest().manifest.project.context_profile,
          });
          break;
        case "catalog":
          result = await catalogPage(db, revision, scope, visible, args);
          break;
        case "search":
          result = await searchScope(db, revision, visible, args);
          break;
        case "object":
          result = await readObject(db, visible, args);
          break;
        case "events":
          result = await readEvents(db, scope, visible, args);
          break;
        case "recovery":
          result = await readRecovery(db, scope, visible);
          break;
      }
      const complete =
        name !== "context" || (result["completeness"] as { complete: boolean }).complete;
      const envelope: WorkstreamEnvelope = {
        ok: complete,
        read_only: true,
        protocol_version: 1,
        workstream: scope.stream,
        scope_binding: scope.binding,
        project_revision: revision,
        result,
      };
      return envelope as unknown as Record<string, unknown>;
    },
    { signal: options.signal },
  );
}

function selector(fields: WorkstreamRequest, name: string): string | undefined {
  const value = fields[name];
  if (value === undefined || value === null) return undefined;
  const id = workstreamIdOf(value);
  if (id === undefined) {
    throw new LedgerError(
      "InvalidInput",
      `${name} must be a workstream id (a ULID from action list); got ${JSON.stringify(value)}.`,
      { field: name },
    );
  }
  return id;
}
