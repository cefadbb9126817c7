import { InvalidArgumentError } from "../internal/commander.js";

/** A commander argParser for an integer within [min, max]; anything else is a usage error. */
export function integer(min: number, max = Number.MAX_SAFE_INTEGER) {
  return (value: string): number => {
    if (!/^-?\d+$/.test(value.trim()))
      throw new InvalidArgumentError(`"${value}" is not a whole number.`);
    const parsed = Number(value);
    if (parsed < min || parsed > max) {
      throw new InvalidArgumentError(`${parsed} is out of range; use ${min}..${max}.`);
    }
    return parsed;
  };
}

/** A repeatable option: every occurrence is appended (`--tag a --tag b`). */
export function collect(value: string, previous: string[] | undefined): string[] {
  return [...(previous ?? []), value];
}

/** A JSON object given on the command line (`--payload '{"a":1}'`). */
export function jsonObject(value: string): Record<string, unknown> {
  let parsed: unknown;
  try {
    parsed = JSON.parse(value);
  } catch {
    throw new InvalidArgumentError(`not valid JSON; quote it, e.g. '{"key": "value"}'.`);
  }
  if (parsed === null || typeof parsed !== "object" || Array.isArray(parsed)) {
    throw new InvalidArgumentError('must be a JSON object, e.g. \'{"key": "value"}\'.');
  }
  return parsed as Record<string, unknown>;
}

/**
 * One completion entry of `awr work complete`: `CRITERION=EVIDENCE[,EVIDENCE…]`. The criterion
 * (an acceptance id or its exact text) may itself contain `=`, so the last `=` splits.
 */
export function completionEntry(
  value: string,
  previous: { criterion: string; evidence: string[] }[] | undefined,
): { criterion: string; evidence: string[] }[] {
  const at = value.lastIndexOf("=");
  const criterion = at < 0 ? "" : value.slice(0, at).trim();
  const evidence =
    at < 0
      ? []
      : value
          .slice(at + 1)
          .split(",")
          .map((key) => key.trim())
          .filter(Boolean);
  if (criterion === "" || evidence.length === 0) {
    throw new InvalidArgumentError(
      `"${value}" is not CRITERION=EVIDENCE[,EVIDENCE…]; e.g. --criterion "AC-1=ev-tests,ev-review".`,
    );
  }
  return [...(previous ?? []), { criterion, evidence }];
}

/** Copies the defined values into a tool input object, skipping undefined ones. */
export function defined(entries: Record<string, unknown>): Record<string, unknown> {
  const input: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(entries)) if (value !== undefined) input[key] = value;
  return input;
}
