import { execFile } from "node:child_process";
import { appendFile, mkdir, readFile, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { promisify } from "node:util";
import { SECRET_DETECTION_CONDITIONS, SYNTHETIC_VALUE } from "@awr/ledger-fixtures";
import type { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { GOALS, makeProject, tempDir, WORK_LEDGER, writeRegistry } from "./support/projects.js";
import {
  awrCommand,
  httpClient,
  killAll,
  ok,
  type RunningService,
  SERVICE_DIR,
  startHttpService,
  stdioClient,
} from "./support/service-process.js";
import { TEST_STORAGES } from "./support/test-storage.js";

/**
 * The secret policy end to end (docs/design/secret-boundaries.md): the condition table through
 * awr-mcp over stdio and over HTTP (the official SDK client) and a representative subset
 * through the `awr` process, on SQLite and PostgreSQL. A positive case is refused with
 * RuleViolation and changes nothing; a negative case passes through; no answer, error or log
 * line repeats a value. Then the issue's sample: with the key in RULES.md, `awr search sk-proj`
 * and `awr context compile` (and the same tools over MCP) print no part of it.
 */

const SAMPLE_KEY = ["sk", "proj", "abcdefghijklmnopqrstuvwxyz0123456789ABCD"].join("-");
const SAMPLE = `Use OPENAI_API_KEY=${SAMPLE_KEY} and password: hunter2hunter2`;
const TOKEN = "s".repeat(48);
const run = promisify(execFile);
/** Tests that start `awr` processes (each a cold Node start). */
const PROCESS_TIMEOUT = 180_000;

const SECRET = SECRET_DETECTION_CONDITIONS.filter((c) => c.expect === "secret");
const CLEAN = SECRET_DETECTION_CONDITIONS.filter((c) => c.expect === "clean");
/** One positive condition per area and three negative ones: what the CLI processes run. */
const CLI_SUBSET = [...new Map(SECRET.map((c) => [c.area, c])).values(), ...CLEAN.slice(0, 3)].map(
  (c) => ({ id: c.id, expect: c.expect, case: c.cases[0] as { text: string; value?: string } }),
);

/** What must never appear again: the value, or the whole text when the value is a short word. */
function telltale({ text, value }: { text: string; value?: string | undefined }): string {
  const secret = value ?? SYNTHETIC_VALUE;
  return secret.length >= 8 ? secret : text;
}

/** Every 12-character piece of the sample key, and the sample password. */
const SAMPLE_PIECES = [
  ...Array.from({ length: SAMPLE_KEY.length - 11 }, (_, i) => SAMPLE_KEY.slice(i, i + 12)),
  "hunter2hunter2",
];

const RULES = `# Tests before merge {#tests severity=hard}

Every change ships with tests.
`;

describe.each(TEST_STORAGES)(
  "the secret policy over the CLI, MCP stdio and HTTP, $name",
  (storage) => {
    let dir: string;
    let cleanup: () => Promise<void>;
    let service: RunningService;
    const schemas: string[] = [];
    const clients: Client[] = [];
    const roots: Record<string, string> = {};
    const { env } = storage;
    let requests = 0;

    const manifest = (name: string): string => {
      const schema = `awr_secret_${name}_${process.pid}_${Date.now().toString(36)}`;
      schemas.push(schema);
      return `[project]\nname = "${name}"\n\n${storage.storageTable(schema)}\n[[sources]]\ndomain = "ledger"\nrole = "primary"\npath = "work-ledger.yaml"\nadapter = "yaml-ledger-v1"\n\n[[sources]]\ndomain = "goal"\nrole = "primary"\npath = "GOALS.md"\nadapter = "markdown-heading-v1"\n\n[[sources]]\ndomain = "rules"\nrole = "primary"\npath = "RULES.md"\nadapter = "markdown-rules-v1"\n`;
    };

    async function awr(root: string, args: string[]) {
      try {
        const awr = awrCommand(["--project", root, ...args]);
        const { stdout, stderr } = await run(awr.command, awr.args, {
          cwd: SERVICE_DIR,
          env: { ...process.env, ...env },
          timeout: 60_000,
        });
        return { code: 0, stdout, stderr };
      } catch (error) {
        const failed = error as { code?: number; stdout?: string; stderr?: string };
        return {
          code: failed.code ?? -1,
          stdout: failed.stdout ?? "",
          stderr: failed.stderr ?? "",
        };
      }
    }

    const revisionOf = async (client: Client, args: Record<string, unknown>) =>
      (await ok(client, "awr_project_status", args))["project_revision"] as number;

    beforeAll(async () => {
      ({ dir, cleanup } = await tempDir(`awr-secret-${storage.name}-`));
      const projects = [];
      for (const name of ["table", "sample"]) {
        const made = await makeProject(dir, name, {
          manifest: manifest(name),
          env: { ...process.env, ...env },
        });
        roots[name] = made.root;
        projects.push({ key: name, ...made });
      }
      const registry = await writeRegistry(dir, projects, [
        { id: "team", token: TOKEN, write: ["table", "sample"] },
      ]);
      service = await startHttpService(registry.file, { ...registry.env, ...env });
    });
    afterAll(async () => {
      await Promise.allSettled(clients.splice(0).map((c) => c.close()));
      await service?.stop();
      killAll();
      await cleanup?.();
      await storage.drop(schemas);
    });

    const transports: [
      string,
      () => Promise<{ client: Client; project: Record<string, string> }>,
    ][] = [
      [
        "stdio",
        async () => {
          const { client } = await stdioClient(roots["table"] as string, env);
          clients.push(client);
          return { client, project: {} };
        },
      ],
      [
        "HTTP",
        async () => {
          const client = await httpClient(service.url, TOKEN);
          clients.push(client);
          return { client, project: { project: "table" } };
        },
      ],
    ];

    it.each(transports)(
      "refuses every positive case over %s and lets every negative case through",
      async (_name, connect) => {
        const { client, project } = await connect();
        const before = await revisionOf(client, project);
        for (const condition of SECRET) {
          for (const one of condition.cases) {
            for (const args of [
              { summary: one.text },
              { summary: "Checked", payload: { body: one.text } },
            ]) {
              const answer = await client.callTool({
                name: "awr_event_append",
                arguments: {
                  ...project,
                  expected_revision: before,
                  event_type: "work.observed",
                  request_id: `secret-${++requests}`,
                  ...args,
                },
              });
              const where = `${condition.id}: ${JSON.stringify(one.text)}`;
              expect(answer.isError, where).toBe(true);
              expect((answer.structuredContent as { code: string }).code, where).toBe(
                "RuleViolation",
              );
              expect(JSON.stringify(answer), where).not.toContain(telltale(one));
            }
          }
        }
        expect(await revisionOf(client, project)).toBe(before);
        const lookup = await client.callTool({
          name: "awr_operation_get",
          arguments: { ...project, request_id: `secret-${requests}` },
        });
        expect((lookup.structuredContent as { code: string }).code).toBe("NotFound");
        for (const condition of CLEAN) {
          for (const { text } of condition.cases) {
            const answer = await ok(client, "awr_event_append", {
              ...project,
              expected_revision: await revisionOf(client, project),
              event_type: "work.observed",
              request_id: `clean-${++requests}`,
              summary: text === "" ? "empty" : text,
              payload: { body: text },
            });
            expect((answer["event"] as { payload: unknown }).payload).toEqual({ body: text });
          }
        }
      },
    );

    it(
      "refuses the subset over the awr process without echoing it",
      async () => {
        const root = roots["table"] as string;
        for (const row of CLI_SUBSET) {
          const result = await awr(root, [
            "event",
            "append",
            "--type",
            "work.observed",
            "--summary",
            row.case.text === "" ? "empty" : row.case.text,
          ]);
          const output = result.stdout + result.stderr;
          if (row.expect === "clean") {
            expect(result.code, `${row.id}: ${output}`).toBe(0);
            continue;
          }
          expect(result.code, row.id).not.toBe(0);
          expect(result.stdout, row.id).toBe("");
          expect(result.stderr, row.id).toContain("RuleViolation");
          expect(output, row.id).not.toContain(telltale(row.case));
        }
        // A value a usage error would quote is refused before the command line is parsed.
        const budget = await awr(root, ["context", "compile", "--budget", `sk-${"a".repeat(40)}`]);
        expect(budget.code).not.toBe(0);
        expect(budget.stderr).toContain("RuleViolation");
        expect(budget.stderr).not.toContain("sk-");
      },
      PROCESS_TIMEOUT,
    );

    it(
      "prints no part of the sample key from search and context, with the key in RULES.md",
      async () => {
        const root = roots["sample"] as string;
        await appendFile(join(root, "RULES.md"), `\n# Keys {#keys severity=hard}\n\n${SAMPLE}\n`);
        const bytes = await readFile(join(root, "RULES.md"));
        const outputs: string[] = [];
        for (const args of [
          ["search", "sk-proj"],
          ["--json", "search", "sk-proj"],
          ["context", "compile", "--work", "W-1"],
          ["--json", "context", "compile", "--work", "W-1"],
        ]) {
          const result = await awr(root, args);
          expect(result.code, args.join(" ")).not.toBe(0);
          expect(result.stderr).toMatch(/RULES\.md:7/);
          outputs.push(result.stdout, result.stderr);
        }
        const { client } = await stdioClient(root, env);
        clients.push(client);
        const http = await httpClient(service.url, TOKEN);
        clients.push(http);
        for (const [c, project] of [
          [client, {}],
          [http, { project: "sample" }],
        ] as const) {
          for (const [name, args] of [
            ["awr_search", { text: "sk-proj" }],
            ["awr_context_compile", { work: "W-1" }],
          ] as const) {
            const answer = await c.callTool({ name, arguments: { ...project, ...args } });
            expect(answer.isError).toBe(true);
            expect((answer.structuredContent as { code: string }).code).toBe("SourceStale");
            outputs.push(JSON.stringify(answer));
          }
        }
        const printed = outputs.join("\n");
        for (const piece of SAMPLE_PIECES) expect(printed).not.toContain(piece);
        expect(await readFile(join(root, "RULES.md"))).toEqual(bytes);
        // With the key gone the same commands answer again.
        await writeFile(join(root, "RULES.md"), RULES);
        expect((await awr(root, ["search", "tests"])).code).toBe(0);
        expect((await awr(root, ["context", "compile", "--work", "W-1"])).code).toBe(0);
      },
      PROCESS_TIMEOUT,
    );

    it(
      "initialises a project whose RULES.md holds the key, holding that source back",
      async () => {
        const root = join(dir, "fresh");
        await mkdir(root);
        await writeFile(join(root, "work-ledger.yaml"), WORK_LEDGER);
        await writeFile(join(root, "GOALS.md"), GOALS);
        await writeFile(join(root, "RULES.md"), `${RULES}\n# Keys {#keys}\n\n${SAMPLE}\n`);
        await writeFile(join(dir, "fresh.project.toml"), manifest("fresh"));
        const init = await awr(root, [
          "--json",
          "init",
          "--accept",
          "--manifest",
          join(dir, "fresh.project.toml"),
        ]);
        expect(init.code, init.stderr).toBe(0);
        const report = JSON.parse(init.stdout) as { issues: { path: string; code?: string }[] };
        expect(report.issues).toContainEqual(
          expect.objectContaining({ path: "RULES.md", code: "RuleViolation" }),
        );
        const outputs = [init.stdout, init.stderr];
        for (const args of [
          ["search", "sk-proj"],
          ["context", "compile", "--work", "W-1"],
        ]) {
          const result = await awr(root, args);
          expect(result.code).not.toBe(0);
          expect(result.stderr).toMatch(/RULES\.md:7/);
          outputs.push(result.stdout, result.stderr);
        }
        for (const piece of SAMPLE_PIECES) expect(outputs.join("\n")).not.toContain(piece);
      },
      PROCESS_TIMEOUT,
    );
  },
);
