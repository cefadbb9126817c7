/**
 * How an input's unknown names are reported, everywhere a caller's arguments or fields are
 * checked: counted at their position, never repeated. A name the caller made up can carry a
 * secret, and an error message travels into logs and an agent's context. The allowed names are
 * the schema's own, so they are listed.
 *
 * `path` is the position ("" for a tool's arguments themselves): "2 unknown arguments" there,
 * "1 unknown field" inside an argument.
 */
export function unknownNames(count: number, path: string, allowed: readonly string[]): string {
  const noun = path === "" ? "argument" : "field";
  return `${count} unknown ${noun}${count === 1 ? "" : "s"} (their names are not repeated; allowed: ${allowed.join(", ") || "none"})`;
}
