import { WORK_STATUSES } from "./work-status.js";

/**
 * yaml-ledger-v1's `[sources.options]` vocabulary: `field_map` names
 * the source key of a work field (`next_action = "next"` reads and writes `next:`), and
 * `status_map` maps a source's own status spelling to a work status (`done = "completed"`).
 * A canonical status cannot be redefined and a target must be a work status.
 */
export interface LedgerMapping {
  /** A work record with its mapped source keys renamed to the canonical field names. */
  rename(record: Record<string, unknown>): Record<string, unknown>;
  /** The source key of a canonical work field. */
  sourceField(field: string): string;
  /** The work status of a raw status text, or undefined when it is not known. */
  status(raw: string): string | undefined;
  /** The spelling to write for a work status: the source's own when it has exactly one. */
  spelling(status: string, current: string | null): string;
}

export function ledgerMapping(options: Record<string, unknown>): LedgerMapping {
  const fieldMap = (options["field_map"] ?? {}) as Record<string, string>;
  const statusMap = new Map<string, string>();
  const spellings = Object.entries((options["status_map"] ?? {}) as Record<string, string>);
  for (const [raw, target] of spellings) {
    const key = raw.trim().toLowerCase();
    if (!(WORK_STATUSES as readonly string[]).includes(target)) {
      throw new Error(
        `status_map maps "${raw}" to "${target}", which is not a work status (${WORK_STATUSES.join("|")})`,
      );
    }
    if ((WORK_STATUSES as readonly string[]).includes(key) && key !== target) {
      throw new Error(`status_map cannot redefine the work status "${raw}"`);
    }
    if (statusMap.has(key)) throw new Error(`status_map lists "${raw}" twice`);
    statusMap.set(key, target);
  }
  const renames = Object.entries(fieldMap).filter(([field, source]) => field !== source);
  return {
    rename(record) {
      if (renames.length === 0) return record;
      const out = { ...record };
      for (const [field, source] of renames) {
        if (source in out) {
          if (field in record) {
            throw new Error(
              `work field ${field} is written both as ${field} and as its mapped key ${source}; keep one`,
            );
          }
          out[field] = out[source];
          delete out[source];
        }
      }
      return out;
    },
    sourceField: (field) => fieldMap[field] ?? field,
    status(raw) {
      const key = raw.trim().toLowerCase();
      const mapped = statusMap.get(key) ?? key;
      return (WORK_STATUSES as readonly string[]).includes(mapped) ? mapped : undefined;
    },
    spelling(status, current) {
      if (current !== null && this.status(current) === status) return current;
      const own = spellings.filter(([, target]) => target === status);
      return own.length === 1 ? (own[0] as [string, string])[0] : status;
    },
  };
}
