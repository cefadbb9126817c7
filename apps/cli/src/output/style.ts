import pc from "picocolors";

export type Colors = ReturnType<typeof pc.createColors>;

/** A writable the CLI prints to: process.stdout in the binary, a collecting stream in tests. */
export interface OutputStream {
  write(chunk: string): unknown;
  readonly isTTY?: boolean;
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
  if (noColorFlag || (env["NO_COLOR"] !== undefined && env["NO_COLOR"] !== "")) {
    return pc.createColors(false);
  }
  const forced = env["FORCE_COLOR"];
  if (forced !== undefined && forced !== "" && forced !== "0") return pc.createColors(true);
  return pc.createColors(stream.isTTY === true);
}
