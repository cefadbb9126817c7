/** One record of a list: its key, its value as data, and where it is. */
export interface LedgerRecord {
  key: string;
  value: Record<string, unknown>;
  line_start: number;
  line_end: number;
}
