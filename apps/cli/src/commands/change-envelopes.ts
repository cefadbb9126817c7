import { LIMITS } from "@awr/awr-ledger/catalog";
import { CliError } from "../cli-error.js";
import type { CommandContext } from "../context.js";
import { readJsonFile } from "./command-input.js";

/** The provenance origins of a host envelope; provenance, never authentication. */
export const HOST_ORIGINS = ["human", "ai_accepted", "delegated_agent"] as const;
export type HostOrigin = (typeof HOST_ORIGINS)[number];

export interface HostActor {
  host: string;
  subject: string;
  origin: HostOrigin;
}

/** A version-1 envelope of `host preview|save` and `batch change`. */
export interface HostEnvelope {
  request_key: string;
  actor: HostActor;
  reason: string;
  change: Record<string, unknown>;
}

/** A version-1 request of `work create --input`. */
export interface CreateRequest {
  request_key: string;
  title: string;
  source_id?: string;
  fields?: Record<string, unknown>;
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return value !== null && typeof value === "object" && !Array.isArray(value);
}

/** An InvalidInput about the envelope in `path` (exit 1: the file, not the line, is wrong). */
function badEnvelope(path: string, what: string, problem: string, field?: string): CliError {
  return new CliError("InvalidInput", `${path}: ${what} ${problem}. Nothing was read or written.`, {
    details: { path, ...(field === undefined ? {} : { field }) },
  });
}

function onlyMembers(
  value: Record<string, unknown>,
  allowed: readonly string[],
  path: string,
  what: string,
): void {
  const extra = Object.keys(value).filter((k) => !allowed.includes(k));
  if (extra.length > 0) {
    throw badEnvelope(
      path,
      what,
      `has members it does not define (${extra.join(", ")}); it holds ${allowed.join(", ")}`,
      extra[0],
    );
  }
}

function textMember(value: Record<string, unknown>, name: string, path: string, what: string) {
  const member = value[name];
  if (typeof member !== "string" || member === "") {
    throw badEnvelope(path, what, `needs ${name}: a non-empty string`, name);
  }
  return member;
}

function versionOne(value: Record<string, unknown>, path: string, what: string): void {
  if (value["version"] !== 1) {
    throw badEnvelope(path, what, "needs version 1 (the only version this AWR reads)", "version");
  }
}

/** The actor of an envelope: host and subject (together within their bound) and an origin. */
export function hostActor(value: unknown, path: string, what: string): HostActor {
  if (!isRecord(value)) {
    throw badEnvelope(path, what, "needs actor: {host, subject, origin}", "actor");
  }
  onlyMembers(value, ["host", "subject", "origin"], path, `${what}'s actor`);
  const host = textMember(value, "host", path, `${what}'s actor`);
  const subject = textMember(value, "subject", path, `${what}'s actor`);
  const origin = value["origin"];
  if (typeof origin !== "string" || !(HOST_ORIGINS as readonly string[]).includes(origin)) {
    throw badEnvelope(
      path,
      `${what}'s actor`,
      `needs origin: one of ${HOST_ORIGINS.join(", ")}`,
      "origin",
    );
  }
  checkActorBytes(host, subject, path);
  return { host, subject, origin: origin as HostOrigin };
}

/** Host and subject, joined by one separator byte, fit the actor bound. */
export function checkActorBytes(host: string, subject: string, path: string): void {
  if (host.trim() === "" || subject.trim() === "") {
    throw new CliError(
      "InvalidInput",
      `${path}: the actor needs a host and a subject that are not blank. Nothing was read or written.`,
      { details: { path, field: "actor" } },
    );
  }
  const bytes = Buffer.byteLength(host) + 1 + Buffer.byteLength(subject);
  if (bytes > LIMITS.hostActorBytes) {
    throw new CliError(
      "InvalidInput",
      `${path}: the actor's host and subject take ${bytes} bytes with their separator; the limit is ${LIMITS.hostActorBytes}. Nothing was read or written.`,
      { details: { path, field: "actor" } },
    );
  }
}

/**
 * Reads the JSON object of a version-1 request file (below the project, at most `maxBytes`),
 * refusing any other value, a member outside `members` and any version but 1.
 */
async function readVersionOne(
  context: CommandContext,
  path: string,
  what: string,
  file: { maxBytes: number; members: readonly string[] },
): Promise<Record<string, unknown>> {
  const value = await readJsonFile(context, path, { base: "project", maxBytes: file.maxBytes });
  if (!isRecord(value)) throw badEnvelope(path, what, "must be a JSON object");
  onlyMembers(value, file.members, path, what);
  versionOne(value, path, what);
  return value;
}

/** Reads and checks a version-1 host or batch envelope from `--input FILE`. */
export async function readHostEnvelope(
  context: CommandContext,
  path: string,
  what: string,
): Promise<HostEnvelope> {
  const value = await readVersionOne(context, path, what, {
    maxBytes: LIMITS.inputFileBytes,
    members: ["version", "request_key", "actor", "reason", "change"],
  });
  const request_key = textMember(value, "request_key", path, what);
  const actor = hostActor(value["actor"], path, what);
  const reason = textMember(value, "reason", path, what);
  const change = value["change"];
  if (!isRecord(change)) throw badEnvelope(path, what, "needs change: an object", "change");
  return { request_key, actor, reason, change };
}

/** Reads and checks a version-1 creation request from `work create --input FILE`. */
export async function readCreateRequest(
  context: CommandContext,
  path: string,
): Promise<CreateRequest> {
  const what = "The creation request";
  const value = await readVersionOne(context, path, what, {
    maxBytes: LIMITS.workCreateFileBytes,
    members: ["version", "request_key", "title", "source_id", "fields"],
  });
  const request: CreateRequest = {
    request_key: textMember(value, "request_key", path, what),
    title: textMember(value, "title", path, what),
  };
  const source = value["source_id"];
  if (source !== undefined && source !== null) {
    request.source_id = textMember(value, "source_id", path, what);
  }
  const fields = value["fields"];
  if (fields !== undefined) {
    if (!isRecord(fields)) throw badEnvelope(path, what, "has fields that are not an object");
    request.fields = fields;
  }
  return request;
}
