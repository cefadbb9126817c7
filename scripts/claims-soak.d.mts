/** What the soak runs against: the same modules from sources (tests) or from dist/ (bench). */
export interface ClaimsSoakModules {
  initProject(options: {
    root: string;
    accept: true;
    manifest: string | undefined;
    env: NodeJS.ProcessEnv;
  }): Promise<{ project_id: string | null }>;
  openLedger(options: {
    root: string;
    env: NodeJS.ProcessEnv;
  }): Promise<{ close(): Promise<void> }>;
  /** The ledger's store, to read its claims table (the testing entry's ledgerStore). */
  ledgerStore(ledger: never): { read(fn: never): Promise<unknown> };
  MCPClient: new (transport: never, info: { name: string; version: string }) => unknown;
  createTransport(config: never, options?: never): unknown;
  /** node-postgres, to drop the soak's schema afterwards (postgres only; optional). */
  pg?: unknown;
}

export interface ClaimsSoakOptions {
  backend: "sqlite" | "postgres";
  /** An empty directory for the project (and the registry); the caller removes it. */
  dir: string;
  /** The PostgreSQL server's URL (postgres only): the soak works in a schema of its own. */
  pgUrl?: string | undefined;
  modules: ClaimsSoakModules;
  /** The awr-mcp program (a JavaScript file run with this Node). */
  awrMcp: string;
  /** Race trials: every claimer at once, one winner expected. */
  trials: number;
  /** Claimers racing (default 16). */
  claimers?: number | undefined;
  /** Kill trials after the races (default 1): mid-renew and idle kills alternate. */
  killTrials?: number | undefined;
  /** ttl_ms of a kill trial's claim (default 1500). */
  ttlMs?: number | undefined;
  onProgress?: ((line: string) => void) | undefined;
}

export interface KillTrialReport {
  mode: "idle" | "mid-renew";
  ttl_ms: number;
  /** Answers the other claimers got before the dead holder's claim expired. */
  attempts_before_expiry: number;
  conflicts_before_expiry: number;
  /** Must be 0: a takeover granted before the expiry, or heard of before the ttl had passed. */
  takeovers_before_expiry: number;
  /** Must be 1. */
  takeovers: number;
  /** From the holder's claim request to the takeover's answer. */
  taken_over_after_ms: number;
}

export interface ClaimsSoakReport {
  backend: "sqlite" | "postgres";
  claimers: number;
  trials: number;
  /** Must be 0: extra winners in a trial plus overlapping claims in the ledger's history. */
  double_claims: number;
  trials_with_more_than_one_winner: number;
  trials_without_winner: number;
  history_overlaps: number;
  claims_granted: number;
  attempts: number;
  revision_retries: number;
  claim_conflicts: number;
  kill_trials: KillTrialReport[];
  /** Answers the soak did not expect (none in a sound run). */
  unexpected: string[];
  seconds: number;
}

export function runClaimsSoak(options: ClaimsSoakOptions): Promise<ClaimsSoakReport>;
