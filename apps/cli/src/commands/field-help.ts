/**
 * What each tool argument means, as the CLI's help says it (the tool descriptions stay short
 * for tools/list). Keyed by argument name; an argument without an entry shows its name.
 */
const HELP: Readonly<Record<string, string>> = {
  work: "work item id, e.g. W-1",
  session: "the session, by id",
  conversation: "the session bound to this conversation (the host's stable conversation id)",
  agent: "the agent's name",
  provider: "the model provider",
  model: "the model",
  claim: "also claim the work item (start) / the claim's id (release)",
  ttl_ms: "claim lifetime in milliseconds (omit for no expiry)",
  branch: "work branch name or id (default: the selected one; main = the baseline)",
  source_sha: "full source revision SHA (40 or 64 hex digits) to check evidence against",
  view: "how much to show",
  goal: "a goal key, e.g. goal#checkout (repeatable where it is a list)",
  goals: "a goal key of interest (repeatable)",
  milestone: "a milestone key",
  limit: "at most this many results, 1..100 (default 10)",
  detached: "compile without a session",
  paths: "a file path of interest (repeatable)",
  tags: "a tag of interest (repeatable)",
  intent: "what the agent is about to do",
  budget: "token budget, 1..100000 (default 5000)",
  checkpoint: "only what changed since this checkpoint id",
  after_revision: "only what changed after this revision",
  reason: "why (recorded on the event)",
  next_action: "the next concrete step (written back to the source)",
  summary: "a one-line account",
  blocker: "what the work waits on",
  completion: "a JSON file mapping every acceptance criterion to evidence (version 1)",
  event_type: "event type, e.g. note.decision or work.observed",
  importance: "low, normal (default), high or critical",
  payload: "a JSON file with the event's observations (relative to the project)",
  external_key: "a unique key for the evidence, e.g. ev-checkout-tests",
  evidence_type: "evidence type, e.g. test, review, report",
  level: "how far it proves the work",
  locator: "where to find it (URL, path, CI run)",
  sha256: "sha256 of the report it names",
  command: "the command that produced it (recorded, never run)",
  scope: "what it covers (repeatable)",
  verified_at: "when it was verified, in milliseconds since the epoch",
  text: "words to look for",
  kind: "only hits of this kind",
  reference: "a goal/plan/rule/work key or id, or a checkpoint id",
  event: "the event's id",
  full: "all of it, not the brief view",
  cached: "read the last recorded projection; no source check or refresh",
  entity_revision: "refuse (RevisionConflict) unless the object is at this revision",
  event_limit: "at most this many events",
  entity_limit: "at most this many changed entities per source change, 1..200 (default 24)",
  status: "only work in this status",
  before_revision: "page: sessions started before this revision",
  context_hash: "the context_hash of the packet the session last worked from",
  digest: "a short digest of where the session stands",
  open_loops: "an unfinished thread (repeatable)",
  changed_entities: "an entity changed since the last checkpoint (repeatable)",
  outcome: "how the session ended: ended (default), interrupted or incomplete",
  question: "the question for the user",
  wait: "the wait's id",
  reply: "the user's answer (or, with --cancel, why it is cancelled)",
  cancel: "cancel the question instead of answering it",
  request_id: "the request_id the write was sent with",
  database: "inspect this SQLite ledger file instead (relative to the working directory)",
  database_only: "check only the database and its schema",
  max_bytes: "artifact read cap in bytes, 1..1073741824 (default 16 MiB; no artifacts here)",
  id: "the claim, session, save attempt or branch the repair acts on",
};

/** Where one tool's argument means something else than the same name elsewhere. */
const TOOL_HELP: Readonly<Record<string, Readonly<Record<string, string>>>> = {
  awr_object_show: {
    kind: "what to show",
    max_bytes: "with --full, refuse more than this many bytes, 1..16777216 (default 65536)",
  },
  awr_event_show: {
    max_bytes:
      "with --full, refuse a payload of more than this many bytes, 1..16777216 (default 65536)",
  },
};

export function fieldHelp(field: string, choices?: readonly string[], tool?: string): string {
  const help =
    (tool === undefined ? undefined : TOOL_HELP[tool]?.[field]) ??
    HELP[field] ??
    field.replace(/_/g, " ");
  return choices === undefined || choices.length === 0 ? help : `${help} (${choices.join("|")})`;
}
