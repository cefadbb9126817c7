import { LIMITS } from "../core/limits.js";
import { LedgerError } from "../errors.js";

/**
 * One completed native compaction as the host's telemetry reports it. AWR measures nothing
 * itself: a value the host does not know is absent (stored as null) and stays unknown.
 */
export interface CompactionObservation {
  /** The host's own identity of the event, the same on every delivery retry. */
  compaction_id: string;
  /** Rises strictly within the native context bound to the session; gaps are allowed. */
  sequence: number;
  /** When the compaction completed, ms since the epoch; never in the future. */
  observed_at: number;
  trigger: "automatic" | "manual";
  model: string;
  /** The telemetry field or event locator the values come from (an attribution, no proof). */
  source: string;
  measurement_scope: "full_request" | "history_only" | "unknown";
  measurement_basis: "host_reported" | "estimated" | "unknown";
  before_tokens: number | null;
  after_tokens: number | null;
  /** The host's effective capacity for this model and request, not an advertised maximum. */
  context_window_tokens: number | null;
  duration_ms: number | null;
  usage: CompactionUsage | null;
}

export interface CompactionUsage {
  input_tokens: number | null;
  output_tokens: number | null;
  cached_input_tokens: number | null;
  /** What the host reports it charged for this compaction; never derived by AWR. */
  cost_usd: number | null;
}

/** The host's advice threshold; it travels with each observation and is stored with it. */
export interface CompactionPolicy {
  post_compaction_threshold_percent: number;
}

/** The observation as the tool received it: optional measurements may be absent. */
export type ObservationInput = Omit<
  CompactionObservation,
  "before_tokens" | "after_tokens" | "context_window_tokens" | "duration_ms" | "usage"
> & {
  before_tokens?: number | null | undefined;
  after_tokens?: number | null | undefined;
  context_window_tokens?: number | null | undefined;
  duration_ms?: number | null | undefined;
  usage?: Partial<CompactionUsage> | null | undefined;
};

const bounded = LIMITS.compaction;

const orNull = <T>(value: T | null | undefined): T | null => (value === undefined ? null : value);

/**
 * The observation in its stored shape (every field present, in one order), so an identical
 * retry compares equal to what was recorded, whichever optional fields it left out.
 */
export function normalizeObservation(input: ObservationInput): CompactionObservation {
  const usage = input.usage ?? null;
  return {
    compaction_id: input.compaction_id,
    sequence: input.sequence,
    observed_at: input.observed_at,
    trigger: input.trigger,
    model: input.model,
    source: input.source,
    measurement_scope: input.measurement_scope,
    measurement_basis: input.measurement_basis,
    before_tokens: orNull(input.before_tokens),
    after_tokens: orNull(input.after_tokens),
    context_window_tokens: orNull(input.context_window_tokens),
    duration_ms: orNull(input.duration_ms),
    usage:
      usage === null
        ? null
        : {
            input_tokens: orNull(usage.input_tokens),
            output_tokens: orNull(usage.output_tokens),
            cached_input_tokens: orNull(usage.cached_input_tokens),
            cost_usd: orNull(usage.cost_usd),
          },
  };
}

export function normalizePolicy(input: Partial<CompactionPolicy> | undefined): CompactionPolicy {
  return {
    post_compaction_threshold_percent:
      input?.post_compaction_threshold_percent ?? bounded.thresholdPercent.default,
  };
}

const invalid = (message: string, field: string) =>
  new LedgerError("InvalidInput", message, { field });

const byteLength = (text: string) => new TextEncoder().encode(text).length;

/**
 * The rules the schema cannot state: nonblank bounded names without control characters, a
 * positive sequence, a completion time that is not in the future, token counts within 1e9, a
 * cached input no larger than the input and a finite, nonnegative cost.
 */
export function validateObservation(
  observation: CompactionObservation,
  policy: CompactionPolicy,
  nowMs: number,
): void {
  const names: [keyof CompactionObservation, string, number][] = [
    ["compaction_id", observation.compaction_id, bounded.idBytes],
    ["model", observation.model, bounded.modelBytes],
    ["source", observation.source, bounded.sourceBytes],
  ];
  for (const [field, value, max] of names) {
    // biome-ignore lint/suspicious/noControlCharactersInRegex: control characters are refused.
    if (value.trim() === "" || byteLength(value) > max || /[\u0000-\u001f\u007f]/.test(value)) {
      throw invalid(
        `observation.${field} must be nonblank text of at most ${max} bytes without control characters`,
        `observation.${field}`,
      );
    }
  }
  if (!Number.isSafeInteger(observation.sequence) || observation.sequence < 1) {
    throw invalid("observation.sequence must be a positive integer", "observation.sequence");
  }
  if (observation.observed_at < 1 || observation.observed_at > nowMs) {
    throw invalid(
      "observation.observed_at must be a past time in ms since the epoch (not in the future)",
      "observation.observed_at",
    );
  }
  const counts: [string, number | null][] = [
    ["before_tokens", observation.before_tokens],
    ["after_tokens", observation.after_tokens],
    ["context_window_tokens", observation.context_window_tokens],
  ];
  for (const [field, value] of counts) {
    if (value !== null && value > bounded.tokensMax) {
      throw invalid(
        `observation.${field} is at most ${bounded.tokensMax} tokens; leave out a value the host does not know`,
        `observation.${field}`,
      );
    }
  }
  if (observation.context_window_tokens === 0) {
    throw invalid(
      "observation.context_window_tokens must be positive; leave it out when unknown",
      "observation.context_window_tokens",
    );
  }
  const usage = observation.usage;
  if (usage !== null) {
    if (usage.cost_usd !== null && (!Number.isFinite(usage.cost_usd) || usage.cost_usd < 0)) {
      throw invalid("observation.usage.cost_usd must be a finite, nonnegative amount", "usage");
    }
    if (
      usage.cached_input_tokens !== null &&
      usage.input_tokens !== null &&
      usage.cached_input_tokens > usage.input_tokens
    ) {
      throw invalid(
        "observation.usage.cached_input_tokens is part of input_tokens and cannot exceed it",
        "usage",
      );
    }
  }
  const percent = policy.post_compaction_threshold_percent;
  const range = bounded.thresholdPercent;
  if (!Number.isInteger(percent) || percent < range.min || percent > range.max) {
    throw invalid(
      `policy.post_compaction_threshold_percent must be ${range.min}..${range.max}`,
      "policy.post_compaction_threshold_percent",
    );
  }
}

/**
 * The post-compaction occupancy in percent, only from what it can honestly be computed from:
 * the host's own full-request measurement after the compaction, over its effective window.
 * Anything else (estimates, history-only counts, an unknown window) gives null.
 */
export function occupancyPercent(observation: CompactionObservation): number | null {
  if (
    observation.measurement_scope !== "full_request" ||
    observation.measurement_basis !== "host_reported"
  ) {
    return null;
  }
  const { after_tokens: after, context_window_tokens: window } = observation;
  if (after === null || window === null || window <= 0) return null;
  return (after * 100) / window;
}
