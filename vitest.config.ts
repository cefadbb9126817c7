import { fileURLToPath } from "node:url";
import { defaultServerConditions } from "vite";
import { defineConfig } from "vitest/config";

// Tests run straight from TypeScript sources: every package lists the "@awr/source" export
// condition first, pointing at src/index.ts, so no build is needed for `pnpm test`.
// CI asks for a machine-readable report too (it computes the final "N passed, N failed" line).
const jsonReport = process.env.AWR_TEST_JSON_REPORT;

const sourceConditions = ["@awr/source", ...defaultServerConditions];

// The repository root, wherever vitest starts: a package's own `pnpm test` runs this config from
// the package's directory with the package's folder as a filter (its package.json `test` script).
const root = fileURLToPath(new URL(".", import.meta.url));

export default defineConfig({
  root,
  resolve: { conditions: sourceConditions },
  ssr: { resolve: { conditions: sourceConditions } },
  test: {
    globalSetup: ["scripts/test/global-setup.ts"],
    include: [
      "packages/*/test/**/*.test.ts",
      "apps/*/test/**/*.test.ts",
      "scripts/test/**/*.test.ts",
    ],
    testTimeout: 30_000,
    hookTimeout: 60_000,
    pool: "forks",
    maxWorkers: 2,
    // Test files share their worker's module graph instead of importing every source again for
    // each file (that import was a fifth of the suite's time). A test's state lives in its own
    // temporary directories and database schemas; what one changes in the process itself
    // (environment variables, fake timers) it restores before it ends.
    isolate: false,
    ...(jsonReport ? { reporters: ["default", "json"], outputFile: { json: jsonReport } } : {}),
  },
});
