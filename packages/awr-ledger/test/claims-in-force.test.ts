// The one rule for "is this claim in force?" (src/claims/claim-in-force.ts): the row predicates
// and the SQL conditions give the same answer on every database, including at the boundary
// where a claim's expiry is exactly now (lapsed, not in force).
import { migrateToLatest } from "@awr/awr-ledger/testing";
import { afterEach, describe, expect, it } from "vitest";
import {
  claimInForce,
  claimInForceSql,
  claimLapsed,
  claimLapsedSql,
  claimStatusAt,
} from "../src/claims/claim-in-force.js";
import { BACKENDS, freshDatabase, type TestDatabase } from "./helpers/backends.js";

const NOW = 1_700_000_000_000;

/** work key -> [status, expires_at]: one claim of each shape around NOW. */
const CLAIMS: Record<string, [string, number | null]> = {
  "W-NO-TTL": ["active", null],
  "W-BEFORE": ["active", NOW - 1],
  "W-AT-NOW": ["active", NOW],
  "W-AFTER": ["active", NOW + 1],
  "W-RELEASED": ["released", null],
  "W-EXPIRED": ["expired", NOW - 1],
};

describe.each(BACKENDS)("claims in force on %s", (backend) => {
  let t: TestDatabase | undefined;
  afterEach(async () => {
    await t?.close();
    t = undefined;
  });

  it("the row predicate and the SQL condition agree, and a claim expiring now has lapsed", async () => {
    t = await freshDatabase(backend);
    await migrateToLatest(t.db, t.dialect);
    await t.db
      .insertInto("claims")
      .values(
        Object.entries(CLAIMS).map(([work, [status, expires_at]]) => ({
          id: `C-${work}`,
          work,
          session: "S-1",
          client: "client",
          status,
          ttl_ms: expires_at === null ? null : 1000,
          expires_at,
          acquired_revision: 1,
          ended_revision: status === "active" ? null : 2,
          acquired_at: "2023-11-14T00:00:00.000Z",
          ended_at: status === "active" ? null : "2023-11-14T00:00:01.000Z",
          branch: null,
        })),
      )
      .execute();
    const rows = await t.db.selectFrom("claims").selectAll().orderBy("work").execute();
    const works = async (condition: typeof claimInForceSql) => {
      const plain = await t?.db
        .selectFrom("claims")
        .select("work")
        .where(condition(NOW))
        .orderBy("work")
        .execute();
      const aliased = await t?.db
        .selectFrom("claims as c")
        .select("c.work")
        .where(condition(NOW, "c"))
        .orderBy("c.work")
        .execute();
      expect(aliased).toEqual(plain);
      return (plain ?? []).map((r) => r.work);
    };

    const inForce = rows.filter((r) => claimInForce(r, NOW)).map((r) => r.work);
    expect(inForce).toEqual(["W-AFTER", "W-NO-TTL"]);
    expect(await works(claimInForceSql)).toEqual(inForce);

    const lapsed = rows.filter((r) => claimLapsed(r, NOW)).map((r) => r.work);
    expect(lapsed).toEqual(["W-AT-NOW", "W-BEFORE"]);
    expect(await works(claimLapsedSql)).toEqual(lapsed);

    expect(Object.fromEntries(rows.map((r) => [r.work, claimStatusAt(r, NOW)]))).toEqual({
      "W-AFTER": "active",
      "W-AT-NOW": "expired",
      "W-BEFORE": "expired",
      "W-EXPIRED": "expired",
      "W-NO-TTL": "active",
      "W-RELEASED": "released",
    });
    // A BIGINT handed over as text answers the same.
    expect(claimInForce({ status: "active", expires_at: String(NOW) }, NOW)).toBe(false);
    expect(claimInForce({ status: "active", expires_at: String(NOW + 1) }, NOW)).toBe(true);
  });
});
