import type { Migration } from "../migration.js";
import { migration001Base } from "./001-base.js";
import { migration002Runtime } from "./002-runtime.js";

/** Every schema step this code knows, in order. Part 2 appends its 002 step here. */
export const MIGRATIONS: readonly Migration[] = [migration001Base, migration002Runtime];
