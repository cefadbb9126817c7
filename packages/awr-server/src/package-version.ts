import { createRequire } from "node:module";

/**
 * This package's version, read from its package.json (one directory above both src/ and dist/),
 * so a version bump by changesets reaches what the package reports.
 */
export const PACKAGE_VERSION: string = (
  createRequire(import.meta.url)("../package.json") as { version: string }
).version;
