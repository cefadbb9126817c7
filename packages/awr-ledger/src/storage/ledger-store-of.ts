import type { LedgerStore } from "./ledger-store.js";

/**
 * The store behind each open Ledger, kept out of Ledger's public type: the ledger's own modules
 * (and its tests, through the `./testing` subpath) reach the database; applications use the
 * Ledger's operations.
 */
const stores = new WeakMap<object, LedgerStore>();

export function rememberLedgerStore(ledger: object, store: LedgerStore): void {
  stores.set(ledger, store);
}

/**
 * The store of an open Ledger (made by openLedger), or of a ledger view that names its store
 * (the catalog's `{ store, projectId, context }`).
 */
export function ledgerStore(ledger: object & { store?: LedgerStore }): LedgerStore {
  const store = ledger.store ?? stores.get(ledger);
  if (store === undefined) throw new Error("not a Ledger made by openLedger");
  return store;
}
