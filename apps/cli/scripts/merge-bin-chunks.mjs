// Second step of the `awr` binary's build: esbuild splits the bundle at every dynamic import into
// chunks of the modules that the same set of entry points share, which leaves many chunks of a
// few hundred bytes; a cold read loaded 44 of them, and each ES module costs the loader a
// resolve, a read and a link of its own whatever its size. Rollup regroups esbuild's output: a
// chunk below MIN_CHUNK_BYTES that runs nothing when loaded (definitions only) joins a chunk
// loaded in similar conditions, so a command may parse a little code it does not call, but no
// code runs that did not run before (status then loads 30 files). The code is esbuild's; like
// it, no source maps are written (the package ships what runs).
import { isAbsolute } from "node:path";
import { rollup } from "rollup";

const MIN_CHUNK_BYTES = 40_000;

/**
 * Rewrites the bundle whose entry is `entry` (esbuild's output) into `outDir`: `main.js` and
 * its chunks under `chunksDir`. Everything that is not a relative or absolute path (node
 * built-ins, the packages left out of the bundle) stays an import.
 * @param {{ entry: string; outDir: string; chunksDir: string }} paths
 */
export async function mergeBinChunks({ entry, outDir, chunksDir }) {
  const bundle = await rollup({
    input: entry,
    external: (id) => !id.startsWith(".") && !isAbsolute(id),
    logLevel: "warn",
    onwarn(warning, warn) {
      // esbuild's chunks import one another both ways; the order is already esbuild's.
      if (warning.code !== "CIRCULAR_DEPENDENCY") warn(warning);
    },
  });
  try {
    await bundle.write({
      dir: outDir,
      format: "es",
      entryFileNames: "main.js",
      // esbuild's names already carry a content hash.
      chunkFileNames: `${chunksDir}/[name].js`,
      experimentalMinChunkSize: MIN_CHUNK_BYTES,
      sourcemap: false,
    });
  } finally {
    await bundle.close();
  }
}
