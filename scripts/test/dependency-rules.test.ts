import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";
import { checkDependencyRules, type PackageManifest, readWorkspace } from "../dependency-rules.js";

const root = fileURLToPath(new URL("../..", import.meta.url));

describe("the workspace follows its dependency direction", () => {
  it("has no violations", () => {
    const { manifests, sources } = readWorkspace(root);
    expect(manifests.map((m) => m.json.name)).toContain("@awr/jsonrpc-core");
    expect(checkDependencyRules(manifests, sources)).toEqual([]);
  });
});

describe("the check catches each kind of violation", () => {
  const base = (): PackageManifest[] => readWorkspace(root).manifests;
  const withChange = (name: string, change: (m: PackageManifest) => void) =>
    base().map((m) => {
      if (m.json.name === name) change(m);
      return m;
    });

  it("a runtime dependency in jsonrpc-core", () => {
    const manifests = withChange("@awr/jsonrpc-core", (m) => {
      m.json.dependencies = { zod: "4.0.0" };
    });
    expect(checkDependencyRules(manifests)).toEqual([
      expect.stringContaining("no runtime dependencies"),
    ]);
  });

  it("a transport depending on the client", () => {
    const manifests = withChange("@awr/transport-stdio", (m) => {
      m.json.dependencies = { ...m.json.dependencies, "@awr/mcp-client": "workspace:*" };
    });
    expect(checkDependencyRules(manifests)).toEqual([
      expect.stringContaining("may not depend on @awr/mcp-client"),
    ]);
  });

  it("the ledger depending on MCP", () => {
    const manifests = withChange("@awr/awr-ledger", (m) => {
      m.json.dependencies = { ...m.json.dependencies, "@modelcontextprotocol/sdk": "1.32.2" };
    });
    expect(checkDependencyRules(manifests)).toEqual([
      expect.stringContaining("must not depend on an MCP package"),
    ]);
  });

  it("a package depending on an app", () => {
    const manifests = withChange("@awr/awr-server", (m) => {
      m.json.devDependencies = { ...m.json.devDependencies, "@awr/cli": "workspace:*" };
    });
    expect(checkDependencyRules(manifests)).toEqual([
      expect.stringContaining("nothing may depend on an app"),
    ]);
  });

  it("a synthetic package the rules do not know", () => {
    const manifests = [...base(), { dir: "packages/rogue", json: { name: "@awr/rogue" } }];
    expect(checkDependencyRules(manifests)).toEqual([
      expect.stringContaining("not in the dependency rules"),
    ]);
  });

  it("deep imports of another package's src/ and node: imports in jsonrpc-core (not a package's own src/)", () => {
    const problems = checkDependencyRules(base(), [
      {
        path: "packages/mcp-client/src/x.ts",
        text: 'import { a } from "@awr/jsonrpc-core/src/parser.js";',
      },
      {
        path: "packages/mcp-client/src/y.ts",
        text: 'import { b } from "../../transport-http/src/index.js";',
      },
      {
        path: "packages/jsonrpc-core/src/z.ts",
        text: 'import { spawn } from "node:child_process";',
      },
      {
        path: "packages/awr-ledger/test/fixtures/own.ts",
        text: 'import { own } from "../../src/index.js";',
      },
    ]);
    expect(problems).toHaveLength(3);
  });

  it("an awr-server file importing the MCP SDK outside its one adapter folder", () => {
    const problems = checkDependencyRules(base(), [
      {
        path: "packages/awr-server/src/stdio/stdio-line-transport.ts",
        text: 'import type { Transport } from "@modelcontextprotocol/sdk/shared/transport.js";',
      },
      {
        path: "packages/awr-server/src/sdk/mcp-sdk.ts",
        text: 'export { Server } from "@modelcontextprotocol/sdk/server/index.js";',
      },
      {
        path: "packages/awr-server/test/client.test.ts",
        text: 'import { Client } from "@modelcontextprotocol/sdk/client/index.js";',
      },
    ]);
    expect(problems).toEqual([
      expect.stringContaining(
        "packages/awr-server/src/stdio/stdio-line-transport.ts imports @modelcontextprotocol/sdk/shared/transport.js: awr-server reaches the MCP SDK only through packages/awr-server/src/sdk/mcp-sdk.ts",
      ),
    ]);
  });

  it("a lower ledger layer importing a higher one (journal/ reaching into runtime/)", () => {
    const problems = checkDependencyRules(base(), [
      {
        path: "packages/awr-ledger/src/journal/run-write.ts",
        text: 'import type { X } from "../runtime/session-start.js";',
      },
      {
        path: "packages/awr-ledger/src/runtime/session-start.ts",
        text: 'import { y } from "../journal/run-write.js";',
      },
    ]);
    expect(problems).toEqual([
      expect.stringContaining("ledger layer journal/ may not import the higher layer runtime/"),
      expect.stringContaining("folder cycle in packages/awr-ledger/src: journal/ ↔ runtime/"),
      expect.stringContaining(
        "file cycle: packages/awr-ledger/src/journal/run-write.ts ↔ packages/awr-ledger/src/runtime/session-start.ts",
      ),
    ]);
  });

  it("a database choice outside the ledger's storage/ (choose(, dialect.name, a backend import)", () => {
    const problems = checkDependencyRules(base(), [
      {
        path: "packages/awr-ledger/src/read/search.ts",
        text: "const engine = dialect.choose({ sqlite: A, postgres: B });",
      },
      {
        path: "packages/awr-ledger/src/doctor/doctor-report.ts",
        text: 'if (ctx.store.dialect.name !== "sqlite") throw new Error("no");',
      },
      {
        path: "packages/awr-ledger/src/runtime/doctor-schema.ts",
        text: 'import { openSqliteDatabase } from "../storage/sqlite/open-sqlite.js";',
      },
      {
        path: "packages/awr-ledger/src/project/project-storage.ts",
        text: 'const m = await import("../storage/postgres/open-postgres.js");',
      },
      // Inside storage/ the choice is the dialect's own business; tests build per-database fixtures.
      {
        path: "packages/awr-ledger/src/storage/dialects.ts",
        text: 'import { SQLITE_DIALECT } from "./sqlite/sqlite-dialect.js";\ndialect.choose(x);',
      },
      {
        path: "packages/awr-ledger/test/helpers/backends.ts",
        text: "storageDialect(backend).choose({ sqlite: a, postgres: b });",
      },
    ]);
    expect(problems).toEqual([
      expect.stringContaining("src/read/search.ts calls choose( outside storage/"),
      expect.stringContaining("src/doctor/doctor-report.ts tests dialect.name outside storage/"),
      expect.stringContaining(
        "src/runtime/doctor-schema.ts imports the backend ../storage/sqlite/open-sqlite.js",
      ),
      expect.stringContaining(
        "src/project/project-storage.ts imports the backend ../storage/postgres/open-postgres.js",
      ),
    ]);
  });

  it("a ledger folder that is not placed among the layers", () => {
    const problems = checkDependencyRules(base(), [
      { path: "packages/awr-ledger/src/unplaced/change.ts", text: 'import "../errors.js";' },
    ]);
    expect(problems).toEqual([expect.stringContaining("unplaced/ is not in LEDGER_LAYERS")]);
  });

  it("a folder cycle in any package, through a file directly in src/", () => {
    const problems = checkDependencyRules(base(), [
      {
        path: "packages/mcp-client/src/internal/connection.ts",
        text: 'import { MCPClient } from "../mcp-client.js";',
      },
      {
        path: "packages/mcp-client/src/mcp-client.ts",
        text: 'import { helper } from "./internal/helper.js";',
      },
      { path: "packages/mcp-client/src/internal/helper.ts", text: "export const helper = 1;" },
    ]);
    expect(problems).toEqual([
      "folder cycle in packages/mcp-client/src: internal/ ↔ mcp-client.ts import each other; move what they share into a lower folder so imports point one way",
    ]);
  });

  it("a file cycle made only of type imports, inside one folder", () => {
    const problems = checkDependencyRules(base(), [
      {
        path: "packages/transport-http/src/a.ts",
        text: 'import type { B } from "./b.js";\nexport interface A { b: B }',
      },
      {
        path: "packages/transport-http/src/b.ts",
        text: 'import type {\n  A,\n} from "./a.js";\nexport interface B { a: A }',
      },
    ]);
    expect(problems).toEqual([
      expect.stringContaining("folder cycle in packages/transport-http/src: a.ts ↔ b.ts"),
      expect.stringContaining(
        "file cycle: packages/transport-http/src/a.ts ↔ packages/transport-http/src/b.ts",
      ),
    ]);
  });
});
