import pc from "picocolors";

/**
 * How human output is drawn: picocolors' functions (plain ones when colour is off) and the
 * width in columns that its lines are fitted to.
 */
export type Colors = ReturnType<typeof pc.createColors> & { readonly width: number };

/** A writable the CLI prints to: process.stdout in the binary, a collecting stream in tests. */
export interface OutputStream {
  write(chunk: string): unknown;
  readonly isTTY?: boolean;
  /** The terminal's width in columns (a TTY's; undefined for a pipe or a file). */
  readonly columns?: number;
}

/** The width when neither COLUMNS nor the terminal gives one (a pipe, a file). */
export const DEFAULT_WIDTH = 80;
/** Narrower than this, fitting would cut every value to nothing. */
const MIN_WIDTH = 40;

/**
 * The width output is fitted to: COLUMNS when it is a positive integer (the user's or a test's
 * explicit choice, as GNU tools take it), else the terminal's own width, else 80.
 */
export function screenWidth(
  stream: OutputStream,
  env: Readonly<Record<string, string | undefined>>,
): number {
  const fromEnv = Number(env["COLUMNS"]);
  const width =
    Number.isInteger(fromEnv) && fromEnv > 0
      ? fromEnv
      : typeof stream.columns === "number" && stream.columns > 0
        ? stream.columns
        : DEFAULT_WIDTH;
  return Math.max(MIN_WIDTH, width);
}

/**
 * Colour only for a person: the stream is a terminal, NO_COLOR is unset (any value disables,
 * see no-color.org) and `--no-color` was not given. FORCE_COLOR=1 forces it (for demos).
 */
export function colorsFor(
  stream: OutputStream,
  env: Readonly<Record<string, string | undefined>>,
  noColorFlag: boolean,
): Colors {
  const width = screenWidth(stream, env);
  if (noColorFlag || (env["NO_COLOR"] !== undefined && env["NO_COLOR"] !== "")) {
    return { ...pc.createColors(false), width };
  }
  const forced = env["FORCE_COLOR"];
  if (forced !== undefined && forced !== "" && forced !== "0") {
    return { ...pc.createColors(true), width };
  }
  return { ...pc.createColors(stream.isTTY === true), width };
}
