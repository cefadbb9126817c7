/**
 * `${VAR}` and `${VAR:-default}` expansion as Claude Code applies it to `.mcp.json`. A variable
 * that is unset (or empty, for the `:-` form) takes the default; an unset variable without a
 * default is reported in `missing` and expands to the empty string.
 */
export interface ExpansionResult {
  value: string;
  missing: string[];
}

const PATTERN = /\$\{([A-Za-z_][A-Za-z0-9_]*)(?::-([^}]*))?\}/g;

export function expandVariables(
  text: string,
  env: Readonly<Record<string, string | undefined>>,
): ExpansionResult {
  const missing: string[] = [];
  const value = text.replace(PATTERN, (_match, name: string, fallback: string | undefined) => {
    const current = env[name];
    if (fallback !== undefined) return current === undefined || current === "" ? fallback : current;
    if (current === undefined) {
      missing.push(name);
      return "";
    }
    return current;
  });
  return { value, missing };
}
