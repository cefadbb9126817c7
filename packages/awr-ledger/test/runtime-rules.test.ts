import { describe, expect, it } from "vitest";
import { DOMAIN_EVENT_TYPES, isReservedEventType } from "../src/core/event-types.js";
import { canonicalJson, requestFingerprint } from "../src/journal/fingerprint.js";
import { meetsEvidenceLevel } from "../src/work/evidence-levels.js";
import {
  plannedFieldChanges,
  transitionRefusal,
  WORK_ACTION_RULES,
} from "../src/work/work-actions.js";

describe("the work-action state machine", () => {
  it.each([
    ["progress", "planned", true],
    ["progress", "ready", true],
    ["progress", "claimed", true],
    ["progress", "in_progress", true],
    ["progress", "blocked", false],
    ["progress", "completed", false],
    ["block", "in_progress", true],
    ["block", "ready", false],
    ["unblock", "blocked", true],
    ["unblock", "in_progress", false],
    ["cancel", "draft", true],
    ["cancel", "blocked", true],
    ["cancel", "completed", false],
    ["cancel", "unknown", false],
    ["reopen", "completed", true],
    ["reopen", "cancelled", true],
    ["reopen", "in_progress", false],
    ["complete", "in_progress", true],
    ["complete", "ready", false],
  ] as const)("%s from %s is allowed: %s", (action, status, allowed) => {
    expect(transitionRefusal(action, status) === null).toBe(allowed);
  });

  it("moves each action to the documented status", () => {
    expect(
      Object.fromEntries(Object.entries(WORK_ACTION_RULES).map(([a, rule]) => [a, rule.to])),
    ).toEqual({
      progress: "in_progress",
      block: "blocked",
      unblock: "in_progress",
      cancel: "cancelled",
      reopen: "planned",
      complete: "completed",
    });
  });

  it("requires the claim for progress, block and complete, and dependencies for progress, unblock and complete", () => {
    const needsClaim = Object.entries(WORK_ACTION_RULES)
      .filter(([, rule]) => rule.needsClaim)
      .map(([action]) => action);
    const needsDeps = Object.entries(WORK_ACTION_RULES)
      .filter(([, rule]) => rule.needsDependencies)
      .map(([action]) => action);
    expect(needsClaim).toEqual(["progress", "block", "complete"]);
    expect(needsDeps).toEqual(["progress", "unblock", "complete"]);
  });

  it("sets the blocker on block, clears it when leaving blocked, and keeps next_action unless given", () => {
    expect(
      plannedFieldChanges("block", { status: "in_progress" }, { blocker: "waiting on API" }),
    ).toEqual({ status: "blocked", blocker: "waiting on API" });
    expect(plannedFieldChanges("unblock", { status: "blocked", blocker: "x" }, {})).toEqual({
      status: "in_progress",
      blocker: null,
    });
    expect(
      plannedFieldChanges("progress", { status: "ready" }, { next_action: "write tests" }),
    ).toEqual({ status: "in_progress", next_action: "write tests" });
  });
});

describe("reserved event types", () => {
  it("reserves every domain event type, the lifecycle list and the domain prefixes", () => {
    for (const type of Object.values(DOMAIN_EVENT_TYPES))
      expect(isReservedEventType(type)).toBe(true);
    for (const type of [
      "WORK.Completed",
      "session.interrupted",
      "work.handoff",
      "artifact.recorded",
      "checkpoint.q",
      "source.anything",
      "proposal.x",
      "branch.y",
      "client.z",
      "execution.w",
    ]) {
      expect(isReservedEventType(type)).toBe(true);
    }
  });

  it("leaves free-form types open, under work. and session. too", () => {
    for (const type of [
      "note.added",
      "build.failed",
      "worker.started",
      "work.observed",
      "session.note",
      "claim.discussed",
      "evidence.reviewed",
      "mcp.custom",
    ]) {
      expect(isReservedEventType(type)).toBe(false);
    }
  });
});

describe("evidence levels", () => {
  it("orders designed below released and never lets unknown satisfy a criterion", () => {
    expect(meetsEvidenceLevel("released", "locally_verified")).toBe(true);
    expect(meetsEvidenceLevel("locally_verified", "locally_verified")).toBe(true);
    expect(meetsEvidenceLevel("implemented", "locally_verified")).toBe(false);
    expect(meetsEvidenceLevel("unknown", "designed")).toBe(false);
  });
});

describe("the request fingerprint", () => {
  it("is canonical: key order and undefined members do not matter", () => {
    expect(canonicalJson({ b: 1, a: [{ d: 2, c: undefined }] })).toBe('{"a":[{"d":2}],"b":1}');
    expect(requestFingerprint("awr_session_start", { b: 1, a: "x" })).toBe(
      requestFingerprint("awr_session_start", { a: "x", b: 1, c: undefined }),
    );
  });

  it("ignores project but covers the tool name and every other argument", () => {
    const base = requestFingerprint("awr_event_append", { type: "note.x" });
    expect(requestFingerprint("awr_event_append", { type: "note.x", project: "billing" })).toBe(
      base,
    );
    expect(requestFingerprint("awr_evidence_record", { type: "note.x" })).not.toBe(base);
    expect(requestFingerprint("awr_event_append", { type: "note.y" })).not.toBe(base);
    expect(base).toMatch(/^[0-9a-f]{64}$/);
  });
});
