// The ledger's kysely module (packages/awr-ledger/src/internal/kysely.ts, and its built
// dist/internal/kysely.js) takes kysely's values from a CommonJS build it requires at run time,
// sparing an unbundled ledger kysely's many files. A bundler that bundles kysely's ES build
// instead (the published `awr`, scripts/bundle-cli.mjs; the test programs,
// scripts/test/build-programs.ts at the repository root) replaces that module with a re-export
// of the same names: the same version and code, keeping only what the ledger uses.

/**
 * The module `text` (read from `path`) as `export { … } from "kysely"`.
 * @param {string} text
 * @param {string} path
 * @returns {string}
 */
export function kyselyReexport(text, path) {
  const match = /export const \{([^}]+)\} = kysely;/.exec(text);
  if (match === null) {
    throw new Error(`${path} no longer has the kysely export its bundlers expect; update them`);
  }
  const names = /** @type {string} */ (match[1])
    .split(",")
    .map((part) => part.trim().replace(/\s*:\s*/, " as "));
  return `export { ${names.join(", ")} } from "kysely";\n`;
}
