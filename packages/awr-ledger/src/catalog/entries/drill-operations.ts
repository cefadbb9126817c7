import type { ContextDeltaInput } from "../../context/context-delta.js";
import { LedgerError } from "../../errors.js";
import { loadInOrder } from "../../internal/ordered-import.js";
import { about, bounded, choice, id, nullable, object } from "../json-schema.js";
import { LIMITS } from "../limits.js";
import { operation } from "../operation.js";
import { readAt } from "./history-operations.js";
import { workGetOperation } from "./read-operations.js";

// The explicit reads behind a packet (`object show`, `event show`, `context delta`): CLI-only
// operations, never tools (docs/design/operation-catalog.md).

/** The source-projected kinds `object show` reads besides work items. */
const ENTITY_OBJECT_KINDS = ["goal", "plan", "rule"] as const;
type EntityObjectKind = (typeof ENTITY_OBJECT_KINDS)[number];
const OBJECT_KINDS = [...ENTITY_OBJECT_KINDS, "work", "work_item", "work-item", "checkpoint"];

/** `max_bytes`: the cap on what a full read returns, in bytes. */
const maxBytes = () =>
  about(
    `With full, refuse a read larger than this many bytes (${LIMITS.readBytes.min}..${LIMITS.readBytes.max}, default ${LIMITS.readBytes.default}).`,
    bounded(LIMITS.readBytes),
  );

/**
 * Refuses a full read larger than `limit` bytes (default 64 KiB), before
 * any of it is returned: the brief says how large it is, and a larger --max-bytes reads it.
 */
function checkReadLimit(what: string, bytes: number, limit: number | undefined): void {
  const cap = limit ?? LIMITS.readBytes.default;
  if (!Number.isInteger(cap) || cap < LIMITS.readBytes.min || cap > LIMITS.readBytes.max) {
    throw new LedgerError(
      "InvalidInput",
      `read limit must be 1..${LIMITS.readBytes.max} bytes; got ${String(limit)}`,
      { field: "max_bytes" },
    );
  }
  if (bytes > cap) {
    throw new LedgerError(
      "InvalidInput",
      `${what} has ${bytes} bytes; read limit is ${cap}: pass a larger --max-bytes (at most ${LIMITS.readBytes.max}) or drop --full for the brief`,
      { field: "max_bytes", bytes, max_bytes: cap },
    );
  }
}

const jsonBytes = (value: unknown) => Buffer.byteLength(JSON.stringify(value ?? null), "utf8");

export interface ObjectShowInput {
  kind: EntityObjectKind | "work" | "work_item" | "work-item" | "checkpoint";
  reference: string;
  full?: boolean | undefined;
  cached?: boolean | undefined;
  entity_revision?: number | undefined;
  max_bytes?: number | undefined;
}

/** RevisionConflict `{expected, actual}` when the object is not at the revision the caller saw. */
function checkEntityRevision(expected: number | undefined, actual: number | null): void {
  if (expected === undefined || expected === actual) return;
  throw new LedgerError(
    "RevisionConflict",
    `entity_revision ${expected} does not match the object's revision ${String(actual)}; read it again without --entity-revision and use the revision it shows.`,
    { expected, actual },
  );
}

export const objectShowOperation = operation({
  tool: "awr_object_show",
  kind: "read",
  surface: "cli",
  freshness: "sources",
  cachedBy: "cached",
  description:
    "One object by kind and key or id: a goal, plan, rule or work item as its source states it (a work item's acceptance as written), or a checkpoint with what it saved (full: its session delta).",
  input: object(
    {
      kind: about("What to show: goal, plan, rule, work (a work item) or checkpoint.", {
        ...choice(OBJECT_KINDS),
      }),
      reference: about(
        "The goal's, plan's, rule's or work item's key or id, or the checkpoint's id.",
        id(),
      ),
      full: about("All of it: every field of the object; a checkpoint's saved delta too.", {
        type: "boolean",
        default: false,
      }),
      cached: about(
        "Read the last recorded projection, without checking or refreshing the sources.",
        { type: "boolean", default: false },
      ),
      entity_revision: about(
        "Refuse with RevisionConflict unless the object is at this revision.",
        nullable({ type: "integer", minimum: 0, maximum: LIMITS.revisionMax }),
      ),
      max_bytes: maxBytes(),
    },
    ["kind", "reference"],
  ),
  run: async (host, input: ObjectShowInput, caller, options) => {
    const full = input.full === true;
    if ((ENTITY_OBJECT_KINDS as readonly string[]).includes(input.kind)) {
      const { entityObject } = await import("../../read/entity-object.js");
      return readAt(host, options, async (db, rev) => {
        const object = await entityObject(db, rev, input.kind, input.reference);
        checkEntityRevision(input.entity_revision, object.brief.revision);
        if (full)
          checkReadLimit(
            `${input.kind} ${input.reference}`,
            jsonBytes(object.full),
            input.max_bytes,
          );
        return {
          project_revision: rev,
          object: full ? object.full : object.brief,
          source: object.source,
          content_included: full,
        };
      });
    }
    if (input.kind !== "checkpoint") {
      const got = (await workGetOperation.run(
        host,
        { work: input.reference },
        caller,
        options,
      )) as {
        project_revision: number;
        work: Record<string, unknown> & {
          id: string;
          work: string;
          title: string;
          status: string;
          raw_status: string | null;
          summary: string | null;
          source: unknown;
        };
        acceptance: { text: string }[];
      };
      const { active_claims: _claims, expired_claims: _expired, ...work } = got.work;
      const { entityRevisions } = await import("../../read/entity-view.js");
      const revisions = await readAt(host, options, (db) =>
        entityRevisions(db, got.project_revision),
      );
      const revision = revisions.get(got.work.work) ?? null;
      checkEntityRevision(input.entity_revision, revision);
      const item = {
        ...work,
        external_key: got.work.work,
        revision,
        acceptance: got.acceptance.map((a) => a.text),
      };
      if (full) checkReadLimit(`work item ${item.external_key}`, jsonBytes(item), input.max_bytes);
      const brief = {
        id: item.id,
        external_key: item.external_key,
        title: item.title,
        revision,
        status: item.status,
        raw_status: item.raw_status,
        summary: item.summary,
      };
      return {
        project_revision: got.project_revision,
        object: full ? item : brief,
        source: got.work.source,
        content_included: full,
      };
    }
    const [{ ownCheckpoint }, { checkpointView }, { checkpointSave }] = await Promise.all([
      import("../../runtime/conversation-privacy.js"),
      import("../../runtime/runtime-views.js"),
      import("../../sessions/checkpoint-delta.js"),
    ]);
    return readAt(host, options, async (db, rev) => {
      const row = await ownCheckpoint(db, caller, input.reference);
      const saved = await checkpointSave(db, row.id);
      const object = checkpointView(row);
      checkEntityRevision(input.entity_revision, object.revision);
      if (full) {
        const bytes = jsonBytes(object) + jsonBytes(saved?.delta);
        checkReadLimit(`checkpoint ${row.id} with its saved delta`, bytes, input.max_bytes);
      }
      return {
        project_revision: rev,
        object,
        source: null,
        content_included: full,
        checkpoint_save: saved?.save ?? null,
        ...(full ? { session_delta: saved?.delta ?? null } : {}),
      };
    });
  },
  cli: [
    {
      path: ["object", "show"],
      summary:
        "one goal, plan, rule, work item or checkpoint (--full: all of it, a checkpoint's saved delta too)",
      operands: [
        { field: "kind", name: "KIND" },
        { field: "reference", name: "REF" },
      ],
      flags: { kind: null, reference: null },
    },
  ],
});

export interface EventShowInput {
  event: string;
  full?: boolean | undefined;
  max_bytes?: number | undefined;
}

export const eventShowOperation = operation({
  tool: "awr_event_show",
  kind: "read",
  surface: "cli",
  freshness: "runtime",
  description:
    "One event by id: its brief, and with full its payload too (what packets and histories leave out).",
  input: object(
    {
      event: about("The event's id.", id()),
      full: about("The whole event: its payload and references too.", {
        type: "boolean",
        default: false,
      }),
      max_bytes: maxBytes(),
    },
    ["event"],
  ),
  run: async (host, input: EventShowInput, caller, options) => {
    const [{ eventSeenBy }, { eventBrief }] = await Promise.all([
      import("../../runtime/conversation-privacy.js"),
      import("../../read/event-history.js"),
    ]);
    return readAt(host, options, async (db, rev) => {
      const row = await db
        .selectFrom("events")
        .selectAll()
        .where("id", "=", input.event)
        .executeTakeFirst();
      if (row === undefined) {
        throw new LedgerError(
          "NotFound",
          `no event ${input.event}; list events with awr event history`,
          { event: input.event },
        );
      }
      const seen = eventSeenBy(row, caller.client);
      const full = input.full === true;
      if (full) {
        const bytes = Buffer.byteLength(seen.payload, "utf8");
        checkReadLimit(`event ${seen.id}'s payload`, bytes, input.max_bytes);
      }
      return {
        project_revision: rev,
        event: full
          ? { ...eventBrief(seen), payload: JSON.parse(seen.payload) as unknown }
          : eventBrief(seen),
        payload_included: full,
      };
    });
  },
  cli: [
    {
      path: ["event", "show"],
      summary: "one event by id (--full: with its payload)",
      operands: [{ field: "event", name: "EVENT" }],
      flags: { event: null },
    },
  ],
});

export const contextDeltaOperation = operation({
  tool: "awr_context_delta",
  kind: "read",
  surface: "cli",
  freshness: "sources",
  description:
    "What changed since a baseline (a checkpoint, a revision, else the session's recovery point): the work item's and the session's events and the source changes, as summaries and references.",
  input: object({
    session: about(
      "Your session: the delta since its last checkpoint or its start.",
      nullable(id()),
    ),
    work: about("Only changes that touch this work item.", nullable(id())),
    checkpoint: about("Since this checkpoint.", nullable(id())),
    after_revision: about(
      "Since this project revision.",
      nullable({ type: "integer", minimum: 0, maximum: LIMITS.revisionMax }),
    ),
    agent: about(
      "Without a session: this agent's one active session of yours (of the work, when given).",
      nullable(id()),
    ),
    event_limit: about("At most this many events of each kind.", bounded(LIMITS.deltaEventLimit)),
    entity_limit: about(
      "At most this many changed entities per source change.",
      bounded(LIMITS.entityLimit),
    ),
  }),
  run: async (host, input: ContextDeltaInput, caller, options) => {
    const { contextDelta } = await loadInOrder(() => import("../../context/context-delta.js"));
    return readAt(host, options, (db, rev) => contextDelta(db, input, caller, rev));
  },
  cli: [{ path: ["context", "delta"], summary: "what changed since a checkpoint or revision" }],
});
