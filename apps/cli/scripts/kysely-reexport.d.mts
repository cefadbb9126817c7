/** The ledger's kysely module `text` (read from `path`) as `export { … } from "kysely"`. */
export function kyselyReexport(text: string, path: string): string;
