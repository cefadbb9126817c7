import { InvalidArgumentError } from "../internal/commander.js";

/** A commander argParser for an integer within [min, max]; anything else is a usage error. */
export function integer(min = Number.MIN_SAFE_INTEGER, max = Number.MAX_SAFE_INTEGER) {
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

/** Copies the defined values into a tool input object, skipping undefined ones. */
export function defined(entries: Record<string, unknown>): Record<string, unknown> {
  const input: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(entries)) if (value !== undefined) input[key] = value;
  return input;
}
