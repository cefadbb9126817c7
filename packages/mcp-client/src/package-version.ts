import { createRequire } from "node:module";

/**
 * This package's name and version, read from its package.json (one directory above both src/
 * and dist/), so a version bump by changesets reaches the `clientInfo` sent in `initialize`.
 */
const manifest = createRequire(import.meta.url)("../package.json") as {
  name: string;
  version: string;
};

export const PACKAGE_NAME: string = manifest.name;
export const PACKAGE_VERSION: string = manifest.version;
