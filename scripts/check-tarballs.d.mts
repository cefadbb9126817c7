/** The most a package's tarball may weigh, in bytes, by package name (`default` for the rest). */
export const PACKED_BOUNDS: Readonly<Record<string, number>> & { readonly default: number };

/** What `inspectPackage` found in a package's tarball. */
export interface TarballReport {
  name: string;
  /** The tarball's bytes. */
  packed: number;
  /** The bytes of the files in it. */
  unpacked: number;
  files: number;
  /** Every entry, as the tarball names it (`package/...`). */
  paths: string[];
  /**
   * Forbidden entries (maps, the testing subpath), required ones missing (the inspector's page
   * and demo project in @awr/cli) and a size over the bound, in words.
   */
  problems: string[];
}

/**
 * Packs the package in `dir` with `pnpm pack` and inspects the tarball; with `keepIn`, a copy of
 * the tarball is left in that directory, under the name pnpm gave it.
 */
export function inspectPackage(
  dir: string,
  bounds?: Readonly<Record<string, number>>,
  keepIn?: string,
): TarballReport;
