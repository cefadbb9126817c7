import { LIMITS } from "../core/limits.js";
import type { BriefRevisions } from "../read/work-brief.js";
import type { Item } from "./status-header.js";
import { queueItem } from "./status-queue-build.js";
import type { QueueEntry } from "./status-queue-choice.js";
import { STATUS_QUEUES, type StatusQueue } from "./status-queues.js";

/** One queue read page by page (the CLI's `--queue`, `--offset`, `--page-size`). */
export interface StatusPageRequest {
  queue: StatusQueue;
  offset?: number | undefined;
  page_size?: number | undefined;
}

/** A page request with its defaults filled in. */
export interface StatusPageWindow {
  queue: StatusQueue;
  offset: number;
  pageSize: number;
}

export function pageWindow(page: StatusPageRequest): StatusPageWindow {
  return {
    queue: page.queue,
    offset: page.offset ?? 0,
    pageSize: page.page_size ?? LIMITS.statusPage.default,
  };
}

/**
 * Each queue's listed entries: the paged queue its window, every other queue its first
 * `shown[queue]` entries.
 */
export function queueLists(
  queues: Record<StatusQueue, QueueEntry[]>,
  shown: Record<StatusQueue, number>,
  window: StatusPageWindow | undefined,
  revisions: BriefRevisions,
): Record<StatusQueue, Item[]> {
  const item = (entry: QueueEntry) => queueItem(entry, revisions);
  return Object.fromEntries(
    STATUS_QUEUES.map((q) => [
      q,
      window?.queue === q
        ? queues[q].slice(window.offset, window.offset + window.pageSize).map(item)
        : queues[q].slice(0, shown[q]).map(item),
    ]),
  ) as Record<StatusQueue, Item[]>;
}

/** The answer's `page`: where the window starts, what it returned and where the next starts. */
export function pageFields(window: StatusPageWindow, returned: number, total: number) {
  return {
    queue: window.queue,
    offset: window.offset,
    page_size: window.pageSize,
    returned,
    total,
    next_offset: window.offset + returned < total ? window.offset + returned : null,
  };
}
