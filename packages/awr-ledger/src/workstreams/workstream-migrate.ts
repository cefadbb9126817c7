import { createHash } from "node:crypto";
import { chmodSync, readFileSync, renameSync, rmSync, statSync, writeFileSync } from "node:fs";
import { join, resolve } from "node:path";
import type { YAMLMap, YAMLSeq } from "yaml";
import { LedgerError } from "../errors.js";
import { yamlModule } from "../internal/lazy-dependencies.js";
import { isExternalKey } from "../sources/adapters/workstream-format.js";
import { loadManifest } from "../sources/read-sources.js";
import { EARLIER_DIR, readEarlierWorkstreams } from "./earlier-format.js";
import {
  enableWorkstreams,
  WORKSTREAM_ADAPTER,
  type WorkstreamListing,
} from "./workstream-enablement.js";
import type { WorkstreamLedger } from "./workstream-read.js";

const CROCKFORD = "0123456789ABCDEFGHJKMNPQRSTVWXYZ";

/**
 * A workstream id derived from the project and a name: the first 128 bits of
 * sha256("awr:workstream:v1:<project_id>:<name>") as a ULID. The same project and name always
 * give the same id, so a conversion run twice (or on two clones) agrees.
 */
export function derivedWorkstreamId(projectId: string, name: string): string {
  const digest = createHash("sha256").update(`awr:workstream:v1:${projectId}:${name}`).digest();
  let value = BigInt(`0x${digest.subarray(0, 16).toString("hex")}`);
  let out = "";
  for (let i = 0; i < 26; i++) {
    out = (CROCKFORD[Number(value & 31n)] as string) + out;
    value >>= 5n;
  }
  return out;
}

export interface WorkstreamMigration extends WorkstreamListing {
  /** The ledger the workstreams now live in. */
  ledger: string;
  /** Each earlier workstream's id and the id that replaces it in grants (same authority_version). */
  renamed: {
    earlier_id: string;
    workstream_id: string;
    external_key: string;
    authority_version: number;
  }[];
  /** Earlier objects and events, which the ledger format has no place for: left in their files. */
  not_converted: { file: string; objects: number; events: number }[];
}

/**
 * `awr workstream migrate`: converts the earlier per-file format (`workstreams/*.yaml`) into the
 * ledger format (a `workstreams:` block in the primary ledger, `workstream:` on every work item),
 * then enables it as `awr workstream enable` does. Each earlier workstream keeps its name as
 * external_key and its authority_version; its id becomes derivedWorkstreamId(project, name)
 * (`renamed` lists the grants to update, see the CLI's --registry). Work items already in the
 * ledger are given a `main` workstream (the ledger's legacy_default). The ledger is rewritten
 * through the yaml library (comments kept); if enabling fails it is put back byte for byte.
 * Earlier files stay as they were; only the earlier build's derived state in
 * `.awr/workstreams/` is removed.
 */
export async function migrateWorkstreams(
  ledger: WorkstreamLedger,
  options: { signal?: AbortSignal | undefined } = {},
): Promise<WorkstreamMigration> {
  const { projectId } = ledger;
  const { root } = ledger.context;
  const earlier = readEarlierWorkstreams(root);
  if (earlier.length === 0) {
    throw new LedgerError(
      "InvalidInput",
      `No earlier workstream files (${EARLIER_DIR}/*.yaml) in ${root}: nothing to convert.`,
    );
  }
  const { manifest } = loadManifest(root);
  if (manifest.sources.some((s) => s.adapter === WORKSTREAM_ADAPTER)) {
    throw new LedgerError(
      "InvalidInput",
      "This project's ledger is in the original's workstream format already; edit it directly.",
    );
  }
  const source = manifest.sources.find((s) => s.domain === "ledger" && s.role === "primary");
  if (source === undefined) {
    throw new LedgerError(
      "InvalidInput",
      'This project has no primary ledger source to hold the workstreams; add one (domain = "ledger", adapter = "yaml-ledger-v1") to .awr/project.toml first.',
    );
  }
  const file = resolve(root, source.path);
  let before: Buffer;
  try {
    before = readFileSync(file);
  } catch (error) {
    throw new LedgerError(
      "NotFound",
      `Cannot read the primary ledger ${source.path} (${(error as Error).message}); create it, then migrate again.`,
      undefined,
      { next: `Create ${source.path} (the manifest's primary work ledger), then migrate again.` },
    );
  }
  const { isMap, isSeq, parseDocument } = yamlModule();
  const doc = parseDocument(before.toString("utf8"));
  if (doc.errors.length > 0 || !(isMap(doc.contents) || doc.contents === null)) {
    throw new LedgerError(
      "InvalidInput",
      `${source.path} is not a readable YAML ledger; fix it first.`,
    );
  }
  if (doc.has("workstreams")) {
    throw new LedgerError(
      "InvalidInput",
      `${source.path} declares workstreams: already; run \`awr workstream enable\` instead.`,
    );
  }
  const items = (doc.get("work_items", true) ?? doc.createNode([])) as YAMLSeq | YAMLMap;
  if (!isSeq(items) && !isMap(items)) {
    throw new LedgerError("InvalidInput", `${source.path}: work_items must be a list or a map.`);
  }
  const entries = isSeq(items) ? items.items : items.items.map((pair) => pair.value);
  const existing = new Set(
    isSeq(items)
      ? entries.map((e) => (isMap(e) ? String(e.get("id") ?? e.get("external_key") ?? "") : ""))
      : items.items.map((pair) => String((pair.key as { value?: unknown })?.value ?? pair.key)),
  );

  const definitions: Record<string, unknown>[] = [];
  const renamed: WorkstreamMigration["renamed"] = [];
  let legacyDefault: string | undefined;
  if (entries.length > 0) {
    let key = "main";
    for (let n = 2; earlier.some((w) => w.workstream_id === key); n++) key = `main-${n}`;
    legacyDefault = derivedWorkstreamId(projectId, key);
    definitions.push(definition(legacyDefault, key, "Main", 1));
    for (const entry of entries)
      if (isMap(entry) && !entry.has("workstream")) entry.set("workstream", key);
  }
  for (const stream of earlier) {
    if (!isExternalKey(stream.workstream_id)) {
      throw new LedgerError(
        "InvalidInput",
        `${stream.file}: workstream_id ${stream.workstream_id} cannot be an external_key (start it with a letter or digit); rename it, update its grants, and migrate again.`,
      );
    }
    const id = derivedWorkstreamId(projectId, stream.workstream_id);
    definitions.push(definition(id, stream.workstream_id, stream.title, stream.authority_version));
    renamed.push({
      earlier_id: stream.workstream_id,
      workstream_id: id,
      external_key: stream.workstream_id,
      authority_version: stream.authority_version,
    });
    for (const item of stream.work_items) {
      const key = String(item["id"]);
      if (existing.has(key)) {
        throw new LedgerError(
          "InvalidInput",
          `${stream.file}: work item ${key} is also defined in ${source.path} or another workstream file; give one of them another id and migrate again. Nothing was changed.`,
        );
      }
      existing.add(key);
      const value = { ...item, workstream: stream.workstream_id };
      if (isSeq(items)) items.add(doc.createNode(value));
      else items.set(key, doc.createNode(value));
    }
  }
  if (!doc.has("work_items")) doc.set("work_items", items);
  doc.set("workstreams", {
    version: 1,
    ...(legacyDefault === undefined ? {} : { legacy_default: legacyDefault }),
    definitions,
  });
  write(file, doc.toString());
  let listing: WorkstreamListing;
  try {
    listing = await enableWorkstreams(ledger, options);
  } catch (error) {
    write(file, before);
    throw error;
  }
  rmSync(join(root, ".awr", "workstreams"), { recursive: true, force: true });
  return {
    ...listing,
    ledger: source.path,
    renamed,
    not_converted: earlier
      .filter((w) => w.objects > 0 || w.events > 0)
      .map((w) => ({ file: w.file, objects: w.objects, events: w.events })),
  };
}

function definition(id: string, key: string, title: string, version: number) {
  return {
    id,
    external_key: key,
    title,
    state: "active",
    authority_version: version,
    goal_keys: [],
    acceptance_contracts: [],
  };
}

function write(file: string, content: string | Buffer): void {
  const temp = `${file}.${process.pid}.tmp`;
  writeFileSync(temp, content);
  chmodSync(temp, statSync(file).mode & 0o7777);
  renameSync(temp, file);
}
