/**
 * Variables a spawned server inherits from this process when `inheritEnv` is not set: enough to
 * find executables, a home directory, the locale and a temp directory, and nothing else, so
 * secrets in the host's environment (tokens, keys) do not leak into every server it starts.
 */
export const DEFAULT_INHERITED_ENV_VARS: readonly string[] =
  process.platform === "win32"
    ? [
        "APPDATA",
        "HOMEDRIVE",
        "HOMEPATH",
        "LOCALAPPDATA",
        "PATH",
        "PATHEXT",
        "PROCESSOR_ARCHITECTURE",
        "PROGRAMFILES",
        "SYSTEMDRIVE",
        "SYSTEMROOT",
        "TEMP",
        "TMP",
        "USERNAME",
        "USERPROFILE",
        "WINDIR",
      ]
    : ["HOME", "LANG", "LC_ALL", "LC_CTYPE", "LOGNAME", "PATH", "SHELL", "TERM", "TMPDIR", "USER"];

/**
 * The inherited part of a server's environment: the named variables of `source` that are set.
 * Values that look like exported shell functions (`() {…`) are skipped, as a defence against
 * shellshock-style injection through the environment.
 */
export function getDefaultEnvironment(
  names: readonly string[] = DEFAULT_INHERITED_ENV_VARS,
  source: NodeJS.ProcessEnv = process.env,
): Record<string, string> {
  const env: Record<string, string> = {};
  for (const name of names) {
    const value = source[name];
    if (value === undefined || value.startsWith("()")) continue;
    env[name] = value;
  }
  return env;
}
