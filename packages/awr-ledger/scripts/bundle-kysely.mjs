// Build step: writes kysely's CommonJS build as one file beside the built ledger
// (dist/internal/kysely.cjs), which src/internal/kysely.ts loads instead of kysely's ~260 files:
// resolving, reading and compiling each of them one by one was the largest part of a cold `awr`
// read. The same code and version, bundled unchanged (names kept), so the same behaviour.
import { createRequire } from "node:module";
import { fileURLToPath } from "node:url";
import { build } from "esbuild";

const require = createRequire(import.meta.url);
await build({
  entryPoints: [require.resolve("kysely")],
  outfile: fileURLToPath(new URL("../dist/internal/kysely.cjs", import.meta.url)),
  bundle: true,
  platform: "node",
  format: "cjs",
  target: "node20",
  keepNames: true,
  legalComments: "inline",
  logLevel: "warning",
});
