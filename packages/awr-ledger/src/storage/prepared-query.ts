import type { Compilable, CompiledQuery, Kysely } from "kysely";
import type { LedgerSchema } from "./schema.js";
import { heldStatements } from "./sqlite/held-connection.js";

/** A placeholder for parameter `name`, as the builder receives it. */
export type Param<P> = <K extends keyof P & string>(name: K) => P[K];

/** One compilation: the query, and per parameter either a name of P or a fixed value. */
interface Compiled {
  query: CompiledQuery;
  slots: ReadonlyArray<{ name: string } | { value: unknown }>;
}

/** Marks a placeholder among the compiled parameters; no value a caller passes looks like it. */
const MARK = "\u0000awr-param\u0000";

/**
 * A query of the hot write path, built with kysely's typed builder once per SQL family and then
 * run with fresh values: building and compiling a query cost several times what SQLite needs to
 * run it, on every call. `build` must give one query whatever the values: it gets placeholders,
 * not values, so nothing in it may branch on them (a value inlined into the SQL is refused when
 * the query is first compiled). On a connection held by withHeldConnection (a SQLite write
 * transaction, the lease statements) the statement runs directly on that connection; on any
 * other handle (PostgreSQL, the root instance outside a transaction, a caller's own Kysely
 * instance) it goes through the handle's executor. A handle with plugins gets the query built
 * afresh each time, since a plugin may rewrite it per instance.
 */
export class PreparedQuery<P extends object, O> {
  readonly #build: (db: Kysely<LedgerSchema>, param: Param<P>) => Compilable<O>;
  /** By dialect adapter class: each SQL family compiles the query its own way. */
  readonly #compiled = new Map<unknown, Compiled>();

  constructor(build: (db: Kysely<LedgerSchema>, param: Param<P>) => Compilable<O>) {
    this.#build = build;
  }

  /** Every row the query returns (none for a statement without RETURNING). */
  async all(db: Kysely<LedgerSchema>, values: P): Promise<O[]> {
    const compiled = this.#compiledFor(db);
    if (compiled === undefined) {
      return (await db.executeQuery(this.#build(db, (name) => values[name]))).rows;
    }
    const parameters = compiled.slots.map((slot) =>
      "name" in slot ? values[slot.name as keyof P] : slot.value,
    );
    const statements = heldStatements(db);
    if (statements === undefined) {
      return (await db.executeQuery<O>({ ...compiled.query, parameters })).rows;
    }
    const statement = statements.prepare(compiled.query.sql);
    if (statement.reader) return statement.all(parameters) as O[];
    statement.run(parameters);
    return [];
  }

  /** The first row the query returns, or undefined. */
  async first(db: Kysely<LedgerSchema>, values: P): Promise<O | undefined> {
    return (await this.all(db, values))[0];
  }

  #compiledFor(db: Kysely<LedgerSchema>): Compiled | undefined {
    const executor = db.getExecutor();
    if (executor.plugins.length > 0) return undefined;
    const family = executor.adapter.constructor;
    const known = this.#compiled.get(family);
    if (known !== undefined) return known;
    const query = this.#build(db, (name) => `${MARK}${name}` as never).compile();
    if (query.sql.includes(MARK)) {
      throw new Error(`internal: a prepared query put a placeholder into its SQL: ${query.sql}`);
    }
    const slots = query.parameters.map((value) =>
      typeof value === "string" && value.startsWith(MARK)
        ? { name: value.slice(MARK.length) }
        : { value },
    );
    const compiled = { query, slots };
    this.#compiled.set(family, compiled);
    return compiled;
  }
}
