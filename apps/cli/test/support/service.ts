import { writeFile } from "node:fs/promises";
import { join } from "node:path";
import { defaultBackend, type HttpService, loadRegistry, startHttpService } from "@awr/awr-server";
import { awr, tempDir } from "./cli-harness.js";

export const WRITER_TOKEN = "writer-token-0123456789-abcdefghijklmnop";
export const READER_TOKEN = "reader-token-0123456789-abcdefghijklmnop";
export const TOKEN_ENV = { AWR_TEST_WRITER: WRITER_TOKEN, AWR_TEST_READER: READER_TOKEN };

/**
 * A real shared AWR service (awr-server's HTTP service, as awr-mcp runs it) on 127.0.0.1 and an
 * ephemeral port, serving `root` as project "shop" to a writer and a read-only client.
 */
export async function startService(root: string): Promise<HttpService> {
  const projectId = (await awr(["--project", root, "--json", "status"])).json()[
    "project_id"
  ] as string;
  const file = join(await tempDir("awr-cli-registry-"), "service.toml");
  await writeFile(
    file,
    [
      "version = 1",
      "",
      "[[projects]]",
      'key = "shop"',
      `root = "${root}"`,
      `project_id = "${projectId}"`,
      "",
      "[[clients]]",
      'id = "writer"',
      'token_env = "AWR_TEST_WRITER"',
      'write = ["shop"]',
      "",
      "[[clients]]",
      'id = "reader"',
      'token_env = "AWR_TEST_READER"',
      'read = ["shop"]',
      "",
    ].join("\n"),
  );
  const registry = await loadRegistry(file, TOKEN_ENV);
  return startHttpService({ registry, backend: defaultBackend(), host: "127.0.0.1", port: 0 });
}

/** The global options of remote mode for one client. */
export function remote(service: HttpService, who: "writer" | "reader" = "writer"): string[] {
  return [
    "--url",
    service.url,
    "--token-env",
    who === "writer" ? "AWR_TEST_WRITER" : "AWR_TEST_READER",
    "--project-key",
    "shop",
  ];
}
