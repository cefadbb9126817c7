/** What one `awr` run answered. */
export interface CliAnswer {
  code: number;
  stdout: string;
  stderr: string;
}

/** Runs `awr --project ROOT ...args` (the built CLI in the bench, in-process in tests). */
export type RunCli = (root: string, args: string[]) => Promise<CliAnswer>;

/** One case's figures: calls, the recovery's answers, tokens, and which facts it carried. */
export interface CaseResult {
  id: string;
  setupCalls: number;
  recoveryCalls: number;
  /** Per recovery call: `complete`, `incomplete: <gap codes>`, or the error code. */
  recoveryCodes: string[];
  /** o200k tokens of the final L0 rendered_context. */
  bootstrapTokens: number;
  /** o200k tokens of the whole JSON answer of the final L0. */
  answerTokens: number;
  facts: { nextAction: boolean; openLoops: boolean; waits: boolean; claims: boolean };
  /** The compaction assessment the host's report got. */
  compactionState: string;
}

export const CASES: readonly {
  id: string;
  change: string;
  checkpoint: boolean;
  fault: string | null;
}[];

export function recoveryCases(options: {
  cli: RunCli;
  dir: string;
  countTokens: (text: string) => number;
}): Promise<CaseResult[]>;

export const title: string;
export function run(options: unknown): Promise<unknown>;
