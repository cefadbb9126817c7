/**
 * Every bound an operation's caller meets, defined once: the bounds on tool inputs (the
 * catalog's schemas use these, so what tools/list advertises, what the ledger accepts and what
 * the CLI checks are the same numbers), and the sizes, counts and defaults the ledger applies
 * inside an operation. Where the original AWR states a bound it is kept exactly; the others are
 * ours and are generous enough never to refuse normal use (docs/design/operation-catalog.md
 * lists which are which). It lives in core/ so every layer can read it; the catalog re-exports it.
 */
export const LIMITS = {
  /** Identifiers and names (work keys, session ids, conversations, agents, models), bytes. */
  idBytes: 256,
  /** Free text (reasons, digests, questions, replies, summaries, commands), bytes. */
  textBytes: 65_536,
  /** awr_search's text (the original's 1..500 characters; bytes never admit more). */
  searchTextBytes: 500,
  /** One item of a string list, bytes. */
  itemBytes: 4_096,
  /** Items of a string list. */
  listItems: 256,
  /** `limit` of the list reads (the original's 1..100, default 10). */
  limit: { min: 1, max: 100, default: 10 },
  /** awr_work_graph: `limit` on the closure's size (the original's 1..1000, default 100). */
  graphLimit: { min: 1, max: 1000, default: 100 },
  /** awr_work_graph: roots in one call (the original refuses more than 100). */
  graphRoots: 100,
  /** Context budget in tokens (the original's 1..100 000, default 5000). */
  budget: { min: 1, max: 100_000, default: 5_000 },
  /** Claim lifetime: the original's minimum 1 ms; at most 30 days. */
  ttlMs: { min: 1, max: 30 * 24 * 60 * 60 * 1000 },
  /** `max_bytes` of the explicit full reads (the original's 1..16 MiB, default 64 KiB). */
  readBytes: { min: 1, max: 16_777_216, default: 65_536 },
  /** Revisions are stored as 32-bit integers (PostgreSQL INTEGER): 2 147 483 647 writes. */
  revisionMax: 2_147_483_647,
  /** request_id (the original's 1..256). */
  requestIdBytes: 256,
  /** event_type (the original's 1..128, `^[A-Za-z0-9_.:-]+$`). */
  eventTypeBytes: 128,
  /** event summary (the original's 1..8192 bytes). */
  eventSummaryBytes: 8_192,
  /** A free-form event payload as JSON, and its larger text fields (the original's 1 MiB). */
  eventPayloadBytes: 1024 * 1024,
  /** All of one call's arguments as JSON (the original's 1 MiB). */
  argumentsBytes: 1024 * 1024,
  /** Nesting depth of one call's arguments (objects and arrays). */
  argumentsDepth: 32,
  /** A `--input` / `--payload` file of the CLI (the original's 1 MiB; completion maps 64 KiB). */
  inputFileBytes: 1024 * 1024,
  completionFileBytes: 64 * 1024,

  // Bounds the ledger meets inside an operation, below the catalog's schemas.
  /** awr_search's text in characters (the original's 1..500). */
  searchTextCharacters: 500,
  /** Search by key: a longer query is no key (characters); at most this many keys match. */
  searchKey: { characters: 256, matches: 50 },
  /** Default `limit` of a history page and of the operation list. */
  historyLimitDefault: 20,
  operationLimitDefault: 20,
  /** `awr branch list`: offset and page size. */
  branchList: { offsetMax: 1_000_000_000, max: 1000, default: 50 },
  /** A branch write's actor (bytes) and reason (bytes); a Git ref to observe (bytes). */
  branchActorBytes: 256,
  branchReasonBytes: 4096,
  gitRefBytes: 4096,
  /** A branch close report: its texts (bytes), loop dispositions, references per resolved loop. */
  branchCloseTextBytes: 65_536,
  branchCloseLoops: 1000,
  branchCloseReferences: 100,
  /** A merge report file named by a branch close (bytes). */
  mergeReportBytes: 1024 * 1024,
  /** Default token budget of `context bootstrap` (L0); `context compile` uses budget.default. */
  bootstrapBudgetDefault: 1000,
  /** Changed entities `context delta` lists per source change (the original's 1..200, default 24). */
  entityLimit: { min: 1, max: 200, default: 24 },
  /** Events `context delta` lists of each kind (the original's default 12; our list bounds). */
  deltaEventLimit: { min: 1, max: 100, default: 12 },
  /** Events of the work item and of the project a context packet gathers, each. */
  contextEvents: 20,
  /** Other active items of the milestone a context packet names, and completed ones it lists. */
  milestoneSiblings: 12,
  milestoneDone: 25,
  /** Work items the dependency closure of a context packet follows. */
  dependencyClosure: 5000,
  /** Predecessor sessions continuity walks back through. */
  predecessors: 32,
  /** awr_session_get: the waits it lists, and how far back predecessors are followed for them. */
  sessionWaitsShown: 20,
  sessionLineageDepth: 20,
  /** A checkpoint's delta: session events and source observations listed. */
  checkpointEvents: 100,
  checkpointSourceObservations: 50,
  /** An event summary a checkpoint's delta keeps, characters. */
  checkpointSummaryChars: 240,
  /** Lapsed claims shown: per work item by awr_work_get, in all by awr_work_ready. */
  expiredClaimsPerWork: 5,
  expiredClaimsShown: 100,
  /** A question or digest as an event summary: its first this many UTF-16 units. */
  summaryExcerpt: 200,
  /** `awr doctor --max-bytes` (1 B..1 GiB, default 16 MiB). */
  doctorReadBytes: { max: 1024 * 1024 * 1024, default: 16 * 1024 * 1024 },
  /** The project manifest (.awr/project.toml), bytes. */
  manifestBytes: 64 * 1024,
  /** awr_workstream's args (bytes): free text; checkpoint, status and session; object kind. */
  workstreamTextBytes: 4096,
  workstreamNameBytes: 128,
  workstreamKindBytes: 64,
  /** A wait's question (bytes). */
  questionBytes: 8_192,
  /** `awr doctor`'s other inputs: a database path and a repair's reason (bytes). */
  doctorPathBytes: 4096,
  doctorReasonBytes: 4096,
  /** awr_work_manage: an observation's note and the request_key (the original's bounds, bytes). */
  managementNoteBytes: 4096,
  managementRequestKeyBytes: 512,
  /** A management receipt's payload as JSON (the original's 64 KiB). */
  managementReceiptBytes: 64 * 1024,
  /** Observation counts and durations (ours: u32 counts, milliseconds within a safe integer). */
  managementCountMax: 4_294_967_295,
  managementElapsedMsMax: Number.MAX_SAFE_INTEGER,
  /** What asks for a re-evaluation (the original's thresholds): 30 minutes active, 3 rework cycles. */
  managementReevaluateElapsedMs: 30 * 60 * 1000,
  managementReevaluateReworkCycles: 3,
  /** awr_completion_prepare: the report it reads (the original's 1 MiB) and evidence_key (bytes). */
  completionReportBytes: 1024 * 1024,
  evidenceKeyBytes: 4096,
  /**
   * awr_work_prepare's action view: its guidance card (when, basis, next_action, recheck) as
   * JSON is at most this many bytes (the original's 1024).
   */
  actionGuidanceBytes: 1024,
  /**
   * awr_project_status view=action: entries shown per queue (the original's five), work keys a
   * scope may name (the original's 100), and our own bound on the whole answer in o200k tokens
   * (queues give up entries, counted as omitted, until the answer fits).
   */
  statusQueueShown: 5,
  statusScopeWork: 100,
  statusActionTokens: 2_000,
  /** `awr status --queue Q`: one queue read page by page (ours: offset and page size). */
  statusPage: { offsetMax: 1_000_000_000, max: 100, default: 20 },
  /**
   * The byte-exact ledger editor (sources/ledger-text-edit.ts): edits in one call (the
   * original's 1..100 batch operations), a work key (the original's 512 bytes), a new item's
   * title (the original's 1..4096 bytes), all of one edit's fields as JSON (the original's
   * 64 KiB), and how deep a ledger's YAML may nest before it is refused (the original's 128).
   */
  ledgerEdit: {
    edits: 100,
    keyBytes: 512,
    titleBytes: 4096,
    fieldsBytes: 64 * 1024,
    depth: 128,
  },
  /** A reviewed batch: distinct task targets (operations) of one change (the original's 100). */
  changeBatchTargets: 100,
  /** Reviewed source changes: `request_id` (the original's 1..256 bytes, no control characters). */
  changeRequestIdBytes: 256,
  /** Reviewed source changes: `reason` (the original's 1..4096 bytes). */
  changeReasonBytes: 4096,
  /** Reviewed source changes: fields one edit may set (ours). */
  changeFields: 32,
  /** Reviewed source changes: one field value, bytes (ours; a single-line text value). */
  changeFieldValueBytes: 4096,
  /**
   * Compaction continuity (awr_compaction_*): the original's bounds on one observation
   * (compaction_id, model and source in bytes; every token count at most 1e9), its default
   * post-compaction threshold (50 %, a policy argument the host may change per observation,
   * 1..100), how many of a session's observations one assessment compares (latest and
   * previous), and the `session compaction observe --input` file (the original's 64 KiB).
   */
  compaction: {
    inputFileBytes: 64 * 1024,
    idBytes: 256,
    modelBytes: 128,
    sourceBytes: 512,
    tokensMax: 1_000_000_000,
    thresholdPercent: { min: 1, max: 100, default: 50 },
    compared: 2,
  },
  /**
   * The CLI's version-1 host envelopes (`host preview|save`, `batch change`): the actor's host and
   * subject with their separator (the original's 256 bytes). The file itself is an --input file
   * (inputFileBytes); `work create --input` keeps the original's 64 KiB (workCreateFileBytes).
   */
  hostActorBytes: 256,
  workCreateFileBytes: 64 * 1024,
  /**
   * `awr inspector`, the local read-only web board (ours, except the default port and the page
   * sizes, which are the original inspector's 7381 and 1..100 default 10): a request body, the API
   * requests answered at once (more wait for none: 503 with Retry-After), the live streams open
   * at once, how often a live stream looks at the project revision, its keep-alive comment, the
   * largest answer, the sessions a live message summarises, the free text of a search or an intent
   * (characters), and how long stopping waits for open connections before it drops them.
   */
  inspector: {
    defaultPort: 7381,
    requestBodyBytes: 16 * 1024,
    concurrent: 4,
    retryAfterSeconds: 1,
    liveClients: 16,
    livePollMs: 400,
    liveKeepAliveMs: 15_000,
    answerBytes: 8 * 1024 * 1024,
    page: { min: 1, max: 100, default: 10 },
    listDefault: 20,
    liveSessions: 20,
    searchChars: 200,
    intentChars: 500,
    stopMs: 2_000,
  },
} as const;
