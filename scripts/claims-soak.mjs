// The claims soak: `claimers` agents race to claim one work item, trial after trial, through
// separate awr-mcp processes that share one project ledger, and every claim the ledger ever
// granted is checked against every other. Used by apps/service/test/claims-soak.test.ts (a few
// trials) and by `pnpm bench --only claims` (1,000). Plain JavaScript with its own declarations
// (claims-soak.d.mts), so the test (from sources) and the benchmark (from dist/) share it: each
// hands in the modules and the awr-mcp program it runs against.
//
// The two shapes of a shared ledger:
// - sqlite: one `awr-mcp --project ROOT` (stdio) process per claimer, all on the project's
//   .awr/state.db; every other claimer journals its writes (request_id), the rest write directly.
// - postgres: two `awr-mcp --registry` HTTP services on one PostgreSQL schema; claimer i is a
//   registry client of its own, talking to service i % 2 (every write journaled, as HTTP needs).
//
// What counts as a double claim (the soak's figure, which must be 0):
// - a trial (all claimers sent at once, each retrying on RevisionConflict until it wins or gets
//   ClaimConflict) with more than one winner;
// - in the ledger's claims table, afterwards: a claim granted while an earlier one on the item
//   was still live (not yet released, or released later, or taken over before its expires_at).
// Kill trials: a holder claims with a short ttl_ms and its awr-mcp process (postgres: the service
// that granted the claim) is killed with SIGKILL, idle or in the middle of renewing the claim.
// The other claimers keep trying: every answer before the dead holder's expiry must be
// ClaimConflict, and exactly one must take the claim over once it has expired, never sooner.
import { spawn } from "node:child_process";
import { mkdir, writeFile } from "node:fs/promises";
import { join } from "node:path";

const WORK = "W-1";
const WORK_LEDGER = `milestones: []
work_items:
  - id: ${WORK}
    title: The item every claimer wants
    status: ready
    acceptance:
      - exactly one holder at a time
`;
/** A race trial's claims never lapse on their own: each ends when its winner releases it. */
const RACE_TTL_MS = 600_000;
/** Attempts per claimer and trial (RevisionConflict retries included) before the soak gives up. */
const MAX_ATTEMPTS = 200;
const CALL_TIMEOUT_MS = 60_000;
const PG_URL_ENV = "AWR_SOAK_DATABASE_URL";

/**
 * One racing agent: its MCP client once connected, and its session once started.
 * @typedef {object} Claimer
 * @property {string} name
 * @property {boolean} journaled
 * @property {number} [generation] stdio: the process's restarts, in its request ids
 * @property {number} [service] postgres: the index of the service it talks to
 * @property {string} [token] postgres: its bearer token
 * @property {any} [client]
 * @property {() => number | undefined} [pid] stdio: its awr-mcp process
 * @property {(name: string, args: Record<string, unknown>) => Promise<any>} [call]
 * @property {string} [session]
 */

/** @typedef {import("./claims-soak.d.mts").ClaimsSoakModules} Modules */
/** @typedef {import("./claims-soak.d.mts").ClaimsSoakReport} Report */
/** @typedef {import("./claims-soak.d.mts").KillTrialReport} KillTrialReport */

/**
 * How a race claims: awr_session_claim with the claimer's session, or awr_session_start in the
 * conversation of trial `trial`.
 * @typedef {{ tool: "claim" } | { tool: "start"; trial: number }} Via
 */

/**
 * One claimer's answer in a race: won (with the claim's session and the success body) or not
 * (with the error code), and the revision it last saw.
 * @typedef {object} Answer
 * @property {boolean} won
 * @property {Claimer} claimer
 * @property {string} [session]
 * @property {any} [body] the tool's structured result
 * @property {string} [code]
 * @property {number} answeredAt
 * @property {number} revision
 */

/**
 * A row of the ledger's claims table, as far as the soak reads it.
 * @typedef {object} ClaimRow
 * @property {string} id
 * @property {string} status
 * @property {number | string} acquired_revision
 * @property {number | string | null} ended_revision
 * @property {string} acquired_at
 * @property {number | string} expires_at
 */

/**
 * The claimers' processes (stdio) or services (postgres), and what the soak does to them.
 * @typedef {object} Fleet
 * @property {Modules} modules
 * @property {Claimer[]} claimers
 * @property {() => Promise<number>} startSessions
 * @property {(holder: Claimer) => Promise<Claimer[]>} kill
 * @property {(holder: Claimer) => Promise<void>} revive
 * @property {() => Promise<void>} close
 * @property {(name: string) => Promise<void>} [dropSchema]
 */

/**
 * A connected claimer, whose `call` is set.
 * @param {Claimer} claimer
 */
function calls(claimer) {
  if (claimer.call === undefined) throw new Error(`${claimer.name} is not connected`);
  return claimer.call;
}

/**
 * @param {import("./claims-soak.d.mts").ClaimsSoakOptions} options
 * @returns {Promise<import("./claims-soak.d.mts").ClaimsSoakReport>}
 */
export async function runClaimsSoak(options) {
  const {
    backend,
    dir,
    modules,
    awrMcp,
    trials,
    claimers: count = 16,
    killTrials = 1,
    ttlMs = 1500,
    onProgress = () => undefined,
  } = options;
  if (backend === "postgres" && !options.pgUrl) throw new Error("postgres needs pgUrl");
  if (count < 3) throw new Error("the soak needs at least 3 claimers");
  const started = performance.now();
  const schema = `awr_soak_${process.pid}_${Date.now().toString(36)}`;
  const env = backend === "postgres" ? { [PG_URL_ENV]: options.pgUrl } : {};
  const root = join(dir, "project");
  await mkdir(root, { recursive: true });
  await writeFile(join(root, "work-ledger.yaml"), WORK_LEDGER);
  let manifest;
  if (backend === "postgres") {
    manifest = join(dir, "project.toml");
    await writeFile(
      manifest,
      `[project]\nname = "soak"\nauthority_mode = "source_first"\n\n` +
        `[storage]\nbackend = "postgres"\nurl_env = "${PG_URL_ENV}"\nschema = "${schema}"\n\n` +
        `[[sources]]\ndomain = "work"\nrole = "primary"\npath = "work-ledger.yaml"\nadapter = "yaml-ledger-v1"\n`,
    );
  }
  const init = await modules.initProject({
    root,
    accept: true,
    manifest,
    env: { ...process.env, ...env },
  });
  const observer = await modules.openLedger({ root, env: { ...process.env, ...env } });

  /** @type {import("./claims-soak.d.mts").ClaimsSoakReport} */
  const report = {
    backend,
    claimers: count,
    trials: 0,
    double_claims: 0,
    trials_with_more_than_one_winner: 0,
    trials_without_winner: 0,
    history_overlaps: 0,
    claims_granted: 0,
    attempts: 0,
    revision_retries: 0,
    claim_conflicts: 0,
    kill_trials: [],
    unexpected: [],
    seconds: 0,
  };
  /** @type {Fleet} */
  const fleet =
    backend === "sqlite"
      ? await stdioFleet({ root, awrMcp, count, modules, dir })
      : await httpFleet({ root, projectId: init.project_id, awrMcp, count, modules, dir, env });
  try {
    let revision = await fleet.startSessions();
    for (let trial = 0; trial < trials; trial++) {
      // Every other trial races through awr_session_start {claim: true}: new sessions, ended after.
      /** @type {Via} */
      const via = trial % 2 === 0 ? { tool: "claim" } : { tool: "start", trial };
      const outcome = await race(fleet.claimers, revision, RACE_TTL_MS, report, via);
      report.trials++;
      if (outcome.winners.length === 0) report.trials_without_winner++;
      if (outcome.winners.length > 1) {
        report.trials_with_more_than_one_winner++;
        report.double_claims += outcome.winners.length - 1;
      }
      revision = outcome.revision;
      for (const winner of outcome.winners) revision = await release(winner, revision, report);
      if ((trial + 1) % 50 === 0) onProgress(`${backend}: ${trial + 1}/${trials} trials`);
    }
    for (let k = 0; k < killTrials; k++) {
      const mode = k % 2 === 0 ? "mid-renew" : "idle";
      const last = k === killTrials - 1;
      const kill = await killTrial(fleet, k, mode, ttlMs, revision, report, observer, !last);
      report.kill_trials.push(kill.result);
      revision = kill.revision;
    }
    const history = await claimHistory(modules, observer);
    report.claims_granted = history.length;
    report.history_overlaps = overlaps(history);
    report.double_claims += report.history_overlaps;
  } finally {
    await fleet.close();
    await observer.close();
    if (backend === "postgres") await fleet.dropSchema?.(schema);
  }
  report.seconds = (performance.now() - started) / 1000;
  return report;
}

/**
 * All `claimers` race: each sends its claim at `revision`, retries on RevisionConflict with the
 * revision the conflict names, and stops at its first success or ClaimConflict. `via.tool`
 * "claim": awr_session_claim acquire with the claimer's session; "start": awr_session_start
 * with `claim: true` in a new conversation (the winner's new session holds the claim).
 * @param {Claimer[]} claimers
 * @param {number} revision
 * @param {number} ttlMs
 * @param {Report} report
 * @param {Via} [via]
 * @returns {Promise<{ winners: Answer[]; answers: Answer[]; revision: number }>}
 */
async function race(claimers, revision, ttlMs, report, via = { tool: "claim" }) {
  const answers = await Promise.all(claimers.map((c) => attempt(c, revision, ttlMs, report, via)));
  const winners = answers.filter((a) => a.won);
  let latest = revision;
  for (const a of answers) latest = Math.max(latest, a.revision);
  return { winners, answers, revision: latest };
}

/**
 * One claimer's attempts in a race, until it wins, loses or gives up.
 * @param {Claimer} claimer
 * @param {number} revision
 * @param {number} ttlMs
 * @param {Report} report
 * @param {Via} [via]
 * @returns {Promise<Answer>}
 */
async function attempt(claimer, revision, ttlMs, report, via = { tool: "claim" }) {
  let expected = revision;
  for (let i = 0; i < MAX_ATTEMPTS; i++) {
    report.attempts++;
    const result =
      via.tool === "claim"
        ? await calls(claimer)("awr_session_claim", {
            session: claimer.session,
            action: "acquire",
            ttl_ms: ttlMs,
            expected_revision: expected,
          })
        : await calls(claimer)("awr_session_start", {
            work: WORK,
            conversation: `${claimer.name}-trial-${via.trial}`,
            ...AGENT,
            claim: true,
            ttl_ms: ttlMs,
            expected_revision: expected,
          });
    const answeredAt = Date.now();
    if (!result.isError) {
      const body = result.structuredContent;
      if (body.renewed || body.binding_reused) {
        unexpected(report, `${claimer.name} renewed a claim it should not hold`);
      }
      if (body.claim === null || body.claim === undefined) {
        unexpected(report, `${claimer.name}: ${via.tool} succeeded without a claim`);
      }
      const session = via.tool === "claim" ? claimer.session : body.session.id;
      return { won: true, claimer, session, body, answeredAt, revision: body.project_revision };
    }
    const error = result.structuredContent ?? {};
    if (error.code === "RevisionConflict" && typeof error.details?.actual === "number") {
      report.revision_retries++;
      expected = error.details.actual;
      continue;
    }
    if (error.code === "ClaimConflict") {
      report.claim_conflicts++;
      return { won: false, claimer, code: error.code, answeredAt, revision: expected };
    }
    if (error.details?.reason === "busy") {
      await new Promise((resolve) => setTimeout(resolve, 5 + Math.random() * 20));
      continue;
    }
    unexpected(report, `${claimer.name}: ${error.code}: ${error.message}`);
    return { won: false, claimer, code: error.code, answeredAt, revision: expected };
  }
  unexpected(report, `${claimer.name} neither won nor lost in ${MAX_ATTEMPTS} attempts`);
  return { won: false, claimer, code: "Exhausted", answeredAt: Date.now(), revision: expected };
}

/**
 * Ends the winner's claim: released through awr_session_claim, or (a session the race started)
 * by ending that session, which releases its claims.
 * @param {Answer} winner
 * @param {number} revision
 * @param {Report} report
 * @returns {Promise<number>}
 */
async function release(winner, revision, report) {
  let expected = revision;
  const ownSession = winner.session === winner.claimer.session;
  for (let i = 0; i < MAX_ATTEMPTS; i++) {
    const result = ownSession
      ? await calls(winner.claimer)("awr_session_claim", {
          session: winner.session,
          action: "release",
          expected_revision: expected,
        })
      : await calls(winner.claimer)("awr_session_end", {
          session: winner.session,
          outcome: "ended",
          expected_revision: expected,
        });
    if (!result.isError) return result.structuredContent.project_revision;
    const error = result.structuredContent ?? {};
    if (error.code !== "RevisionConflict") {
      // A winner whose claim is gone already (another took it): the soak goes on and reports it.
      unexpected(report, `release by ${winner.claimer.name}: ${error.code}: ${error.message}`);
      return expected;
    }
    expected = error.details.actual;
  }
  throw new Error(`release by ${winner.claimer.name} kept conflicting`);
}

/**
 * One holder claims with `ttlMs`, its process is killed with SIGKILL (idle, or a few
 * milliseconds into a renewal that may or may not commit), and the claimers that survive keep
 * racing for the item until one takes it over.
 * @param {Fleet} fleet
 * @param {number} index
 * @param {KillTrialReport["mode"]} mode
 * @param {number} ttlMs
 * @param {number} revision
 * @param {Report} report
 * @param {{ close(): Promise<void> }} observer
 * @param {boolean} revive
 * @returns {Promise<{ result: KillTrialReport; revision: number }>}
 */
async function killTrial(fleet, index, mode, ttlMs, revision, report, observer, revive) {
  // Holders 0, 1, 3, 4, 6, 7…: with the alternating modes, every pairing of mid-renew or idle
  // with a direct or journaled writer (SQLite), and with either service (PostgreSQL), comes up.
  const holder = /** @type {Claimer} */ (
    fleet.claimers[(index + Math.floor(index / 2)) % fleet.claimers.length]
  );
  const sentAt = Date.now();
  const held = await attempt(holder, revision, ttlMs, report);
  if (!held.won) throw new Error(`kill trial ${index}: the holder did not get the claim`);
  if (mode === "mid-renew") {
    void calls(holder)("awr_session_claim", {
      session: holder.session,
      action: "acquire",
      ttl_ms: ttlMs,
      expected_revision: held.revision,
    }).catch(() => undefined);
    await new Promise((resolve) => setTimeout(resolve, Math.random() * 4));
  }
  const survivors = await fleet.kill(holder);
  // The dead holder's claim as the ledger recorded it: a renewal that committed moved its expiry.
  const row = (await claimHistory(fleet.modules, observer)).find(
    (c) => c.id === held.body.claim.id,
  );
  const expiresAt = Number(row?.expires_at);
  /** @type {KillTrialReport} */
  const result = {
    mode,
    ttl_ms: ttlMs,
    attempts_before_expiry: 0,
    conflicts_before_expiry: 0,
    takeovers_before_expiry: 0,
    takeovers: 0,
    taken_over_after_ms: Number.NaN,
  };
  let latest = held.revision;
  const deadline = expiresAt + 20_000;
  while (result.takeovers === 0 && Date.now() < deadline) {
    const outcome = await race(survivors, latest, RACE_TTL_MS, report);
    latest = outcome.revision;
    for (const a of outcome.answers) {
      if (a.answeredAt < expiresAt) {
        result.attempts_before_expiry++;
        if (!a.won && a.code === "ClaimConflict") result.conflicts_before_expiry++;
      }
    }
    for (const w of outcome.winners) {
      // When the ledger granted it (its commit clock), and when the winner heard of it.
      const granted = (await claimHistory(fleet.modules, observer)).find(
        (c) => c.id === w.body.claim.id,
      );
      const grantedAt = Date.parse(granted?.acquired_at ?? "");
      if (!(grantedAt >= expiresAt) || w.answeredAt < sentAt + ttlMs) {
        result.takeovers_before_expiry++;
      }
      result.takeovers++;
      result.taken_over_after_ms = w.answeredAt - sentAt;
      latest = await release(w, latest, report);
    }
    if (result.takeovers > 1) report.double_claims += result.takeovers - 1;
    if (result.takeovers === 0) {
      const wait = Math.max(10, Math.min(ttlMs / 6, expiresAt - Date.now() + 5));
      await new Promise((resolve) => setTimeout(resolve, wait));
    }
  }
  if (result.takeovers === 0) unexpected(report, `kill trial ${index}: nobody took the claim over`);
  if (revive) await fleet.revive(holder);
  return { result, revision: latest };
}

/**
 * Records an answer the soak did not expect (the first 20).
 * @param {Report} report
 * @param {string} message
 */
function unexpected(report, message) {
  if (report.unexpected.length < 20) report.unexpected.push(message);
}

/**
 * Every claim the ledger granted on the item, in the order it granted them.
 * @param {Modules} modules
 * @param {{ close(): Promise<void> }} observer the ledger `modules.openLedger` opened
 * @returns {Promise<ClaimRow[]>}
 */
async function claimHistory(modules, observer) {
  const store = modules.ledgerStore(/** @type {never} */ (observer));
  /** @param {any} db the ledger's Kysely database */
  const read = (db) =>
    db
      .selectFrom("claims")
      .selectAll()
      .where("work", "=", WORK)
      .orderBy("acquired_revision")
      .orderBy("acquired_at")
      .execute();
  return /** @type {Promise<ClaimRow[]>} */ (store.read(/** @type {never} */ (read)));
}

/**
 * Claims granted while the one before was still live: not ended by the revision the next was
 * granted at, or, for a claim that lapsed, granted before its expires_at. More than one claim
 * still active at the end counts too.
 * @param {ClaimRow[]} history
 */
function overlaps(history) {
  let count = 0;
  for (let i = 1; i < history.length; i++) {
    const before = /** @type {ClaimRow} */ (history[i - 1]);
    const next = /** @type {ClaimRow} */ (history[i]);
    const acquired = Number(next.acquired_revision);
    if (before.ended_revision === null || Number(before.ended_revision) > acquired) count++;
    else if (
      before.status === "expired" &&
      Date.parse(next.acquired_at) < Number(before.expires_at)
    ) {
      count++;
    }
  }
  const active = history.filter((c) => c.status === "active").length;
  return count + Math.max(0, active - 1);
}

/**
 * A claimer's MCP client: its result for a call, whatever the transport.
 * @param {any} client the MCPClient
 * @param {(name: string, n: number) => Record<string, unknown>} extra the call's further arguments
 * @returns {NonNullable<Claimer["call"]>}
 */
function claimerCalls(client, extra) {
  let next = 0;
  return (name, args) =>
    client.callTool(name, { ...args, ...extra(name, next++) }, { timeout: CALL_TIMEOUT_MS });
}

const AGENT = { agent: "soak", provider: "local", model: "claimer" };

/**
 * Starts the claimer's session, retrying on RevisionConflict.
 * @param {Claimer} claimer
 * @param {number} revision
 * @param {number} generation
 * @returns {Promise<number>} the project revision after it
 */
async function startSession(claimer, revision, generation) {
  let expected = revision;
  for (let i = 0; i < MAX_ATTEMPTS; i++) {
    const result = await calls(claimer)("awr_session_start", {
      work: WORK,
      conversation: `${claimer.name}-${generation}`,
      ...AGENT,
      expected_revision: expected,
    });
    if (!result.isError) {
      claimer.session = result.structuredContent.session.id;
      return result.structuredContent.project_revision;
    }
    const error = result.structuredContent ?? {};
    if (error.code !== "RevisionConflict") {
      throw new Error(`${claimer.name}: session start failed: ${JSON.stringify(error)}`);
    }
    expected = error.details.actual;
  }
  throw new Error(`${claimer.name}: session start kept conflicting`);
}

/**
 * The parts of a fleet's setup both shapes take.
 * @typedef {object} FleetOptions
 * @property {string} root the project's root
 * @property {string} awrMcp
 * @property {number} count claimers
 * @property {Modules} modules
 * @property {string} dir
 */

/**
 * One stdio awr-mcp process per claimer, all on the project's SQLite ledger.
 * @param {FleetOptions} options
 * @returns {Promise<Fleet>}
 */
async function stdioFleet({ root, awrMcp, count, modules, dir }) {
  /** @param {Claimer} claimer */
  const connect = async (claimer) => {
    const transport = /** @type {{ pid?: number }} */ (
      modules.createTransport(
        /** @type {never} */ ({
          command: process.execPath,
          args: [awrMcp, "--project", root],
          cwd: dir,
        }),
        /** @type {never} */ ({ closeGraceMs: 500 }),
      )
    );
    /** @type {any} */
    const client = new modules.MCPClient(/** @type {never} */ (transport), {
      name: claimer.name,
      version: "1.0.0",
    });
    await client.connect();
    claimer.client = client;
    claimer.pid = () => transport.pid;
    claimer.call = claimerCalls(client, (_name, n) =>
      claimer.journaled ? { request_id: `${claimer.name}-${claimer.generation}-${n}` } : {},
    );
  };
  /** @type {Claimer[]} */
  const claimers = Array.from({ length: count }, (_, i) => ({
    name: `claimer-${i}`,
    journaled: i % 2 === 1,
    generation: 0,
  }));
  // A few at a time: sixteen Node processes starting at once only queue on the CPU.
  for (let i = 0; i < claimers.length; i += 4) {
    await Promise.all(claimers.slice(i, i + 4).map(connect));
  }
  return {
    modules,
    claimers,
    async startSessions() {
      let revision = 0;
      for (const claimer of claimers) revision = await startSession(claimer, revision, 0);
      return revision;
    },
    async kill(holder) {
      await sigkill(holder.pid?.());
      await holder.client.close().catch(() => undefined);
      return claimers.filter((c) => c !== holder);
    },
    // The holder's agent starts over: a new process, the same session (stdio is one client).
    async revive(holder) {
      holder.generation = (holder.generation ?? 0) + 1;
      await connect(holder);
    },
    async close() {
      await Promise.allSettled(claimers.map((c) => c.client.close()));
    },
  };
}

/**
 * Two awr-mcp HTTP services on one PostgreSQL schema; claimer i talks to service i % 2.
 * @param {FleetOptions & { projectId: string | null; env: Record<string, string | undefined> }} options
 * @returns {Promise<Fleet>}
 */
async function httpFleet({ root, projectId, awrMcp, count, modules, dir, env }) {
  /** @type {Record<string, string>} */
  const tokens = {};
  const lines = [
    "version = 1",
    "",
    "[[projects]]",
    'key = "soak"',
    `root = "${root}"`,
    `project_id = "${projectId}"`,
    "",
  ];
  for (let i = 0; i < count; i++) {
    const variable = `AWR_SOAK_TOKEN_${i}`;
    tokens[variable] = `soak-token-${i}-${"x".repeat(32)}`;
    lines.push(
      "[[clients]]",
      `id = "claimer-${i}"`,
      `token_env = "${variable}"`,
      'write = ["soak"]',
      "",
    );
  }
  const registry = join(dir, "service.toml");
  await writeFile(registry, lines.join("\n"), { mode: 0o600 });
  const serviceEnv = { ...process.env, ...env, ...tokens };
  const services = [await startService(awrMcp, registry, serviceEnv, dir)];
  services.push(await startService(awrMcp, registry, serviceEnv, dir));
  /** The service claimers of index `i % 2` talk to now (revive replaces it). @param {number} i */
  const serviceAt = (i) => /** @type {(typeof services)[number]} */ (services[i]);
  /** The service a claimer of this fleet talks to (every one has it). @param {Claimer} claimer */
  const serviceOf = (claimer) => /** @type {number} */ (claimer.service);
  /** @type {(Claimer & { service: number })[]} */
  const claimers = Array.from({ length: count }, (_, i) => ({
    name: `claimer-${i}`,
    service: i % 2,
    token: tokens[`AWR_SOAK_TOKEN_${i}`],
    journaled: true,
  }));
  /** @param {Claimer & { service: number }} claimer */
  const connect = async (claimer) => {
    const transport = modules.createTransport(
      /** @type {never} */ ({
        type: "http",
        url: serviceAt(claimer.service).url,
        headers: { Authorization: `Bearer ${claimer.token}` },
      }),
      // No standing GET stream, and a short close: a killed service answers no DELETE.
      /** @type {never} */ ({ listen: false, closeTimeoutMs: 1000 }),
    );
    /** @type {any} */
    const client = new modules.MCPClient(/** @type {never} */ (transport), {
      name: claimer.name,
      version: "1.0.0",
    });
    await client.connect();
    claimer.client = client;
    claimer.call = claimerCalls(client, (_name, n) => ({
      project: "soak",
      request_id: `${claimer.name}-${serviceAt(claimer.service).generation}-${n}`,
    }));
  };
  for (const claimer of claimers) await connect(claimer);
  return {
    modules,
    claimers,
    async startSessions() {
      let revision = 0;
      for (const claimer of claimers) revision = await startSession(claimer, revision, 0);
      return revision;
    },
    // The service that granted the holder's claim dies; its claimers are gone with it.
    async kill(holder) {
      const dead = serviceAt(serviceOf(holder));
      await sigkill(dead.child.pid);
      const lost = claimers.filter((c) => c.service === holder.service);
      await Promise.allSettled(lost.map((c) => c.client.close()));
      return claimers.filter((c) => c.service !== holder.service);
    },
    // Restarted on a new port; its claimers reconnect and keep their sessions.
    async revive(holder) {
      const generation = serviceAt(serviceOf(holder)).generation + 1;
      services[serviceOf(holder)] = await startService(
        awrMcp,
        registry,
        serviceEnv,
        dir,
        generation,
      );
      for (const c of claimers) if (c.service === holder.service) await connect(c);
    },
    async close() {
      await Promise.allSettled(claimers.map((c) => c.client.close()));
      await Promise.allSettled(services.map((s) => s.stop()));
    },
    async dropSchema(name) {
      const pg = /** @type {any} */ (modules.pg);
      if (pg === undefined) return;
      const admin = new pg.Client({ connectionString: env[PG_URL_ENV] });
      await admin.connect();
      try {
        await admin.query(`DROP SCHEMA IF EXISTS "${name}" CASCADE`);
      } finally {
        await admin.end();
      }
    },
  };
}

/**
 * Starts an awr-mcp HTTP service on a free loopback port.
 * @param {string} awrMcp
 * @param {string} registry the service registry's file
 * @param {NodeJS.ProcessEnv} env
 * @param {string} cwd
 * @param {number} [generation] its restarts, in the request ids of its claimers
 */
async function startService(awrMcp, registry, env, cwd, generation = 0) {
  const child = spawn(
    process.execPath,
    [awrMcp, "--registry", registry, "--listen", "127.0.0.1:0"],
    { env, cwd, stdio: ["ignore", "ignore", "pipe"] },
  );
  let stderr = "";
  const exited = new Promise((resolve) => child.once("exit", resolve));
  /** @type {string} */
  const url = await new Promise((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`awr-mcp did not start:\n${stderr}`)), 60_000);
    child.stderr.on("data", (chunk) => {
      stderr += chunk;
      const match = /listening on (http:\/\/\S+)/.exec(stderr);
      if (match) {
        clearTimeout(timer);
        resolve(/** @type {string} */ (match[1]));
      }
    });
    void exited.then((code) => {
      clearTimeout(timer);
      reject(new Error(`awr-mcp exited (${code}) before listening:\n${stderr}`));
    });
  });
  return {
    url,
    child,
    generation,
    async stop() {
      if (child.exitCode !== null || child.signalCode !== null) return;
      child.kill("SIGTERM");
      await exited;
    },
  };
}

/**
 * SIGKILL, then wait until the process is gone (reaped by its parent, this process).
 * @param {number | undefined} pid
 */
async function sigkill(pid) {
  if (pid === undefined) throw new Error("the process to kill has no pid");
  process.kill(pid, "SIGKILL");
  for (let i = 0; i < 500; i++) {
    try {
      process.kill(pid, 0);
    } catch {
      return;
    }
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
  throw new Error(`process ${pid} survived SIGKILL`);
}
