/**
 * The single-file build (`npm run build`): `dist/probe-server.mjs`, one ES module that runs on plain Node >= 20 with
 * nothing beside it. Two esbuild bundles (bundle, platform node, format esm, target node20):
 * - the deferred part, `src/cli/deferred.ts`: the check worker's loop with the jobs, the contract and the document,
 *   and the `check` and `doctor` commands;
 * - the server, `probe-server.ts`, with the deferred part appended as base64 in a comment (src/runtime/deferred.ts
 *   `DEFERRED_MARK`), which the check worker and those commands read from the file and load as a `data:` module, so
 *   the main thread compiles only the server's own code on its way to `initialize` (issue 20).
 * Both get `PROBE_SERVER_VERSION`, package.json's version, so a copy on its own states it (src/runtime/server-info.ts);
 * the server gets `PROBE_DEFERRED_SHA256`, so it never loads the part of another build (a file replaced while it runs).
 */
import { createHash } from 'node:crypto';
import { appendFileSync, chmodSync, readFileSync } from 'node:fs';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { build } from 'esbuild';
import type { BuildOptions } from 'esbuild';
import { DEFERRED_MARK } from '../src/runtime/deferred.ts';
import { sourceDigest } from '../src/runtime/server-info.ts';

const ROOT = fileURLToPath(new URL('../', import.meta.url));

/**
 * Builds the single file at `outfile` (absolute, or relative to the working folder), executable.
 * @returns The sizes of the server's part and of the carried deferred part, in bytes of JavaScript text, and the
 *   source files in the server's part (paths from the project's root, as esbuild's metafile names them).
 * @throws What esbuild throws on a build error (its messages are printed unless `logLevel` says otherwise).
 */
export async function buildSingleFile(
  outfile: string,
  options: { logLevel?: BuildOptions['logLevel'] } = {},
): Promise<{ serverBytes: number; deferredBytes: number; serverInputs: string[] }> {
  const { version } = JSON.parse(readFileSync(`${ROOT}package.json`, 'utf8')) as { version: string };
  const common: BuildOptions = {
    absWorkingDir: ROOT,
    bundle: true,
    platform: 'node',
    format: 'esm',
    target: 'node20',
    logLevel: options.logLevel ?? 'warning',
    define: {
      PROBE_SERVER_VERSION: JSON.stringify(version),
      PROBE_SOURCE_SHA256: JSON.stringify(sourceDigest(ROOT)),
      PROBE_SINGLE_FILE: 'true',
    },
  };
  const deferred = await build({ ...common, entryPoints: [`${ROOT}src/cli/deferred.ts`], write: false });
  const text = deferred.outputFiles![0]!.text;
  const digest = createHash('sha256').update(text).digest('hex');
  const server = await build({
    ...common,
    entryPoints: [`${ROOT}probe-server.ts`],
    outfile,
    metafile: true,
    define: { ...common.define, PROBE_DEFERRED_SHA256: JSON.stringify(digest) },
  });
  appendFileSync(outfile, `\n${DEFERRED_MARK}${Buffer.from(text).toString('base64')} */\n`);
  chmodSync(outfile, 0o755);
  const output = Object.values(server.metafile!.outputs)[0]!;
  return {
    serverBytes: output.bytes,
    deferredBytes: Buffer.byteLength(text),
    serverInputs: Object.keys(output.inputs).sort(),
  };
}

if (process.argv[1] && import.meta.url === pathToFileURL(process.argv[1]).href) {
  const sizes = await buildSingleFile(`${ROOT}dist/probe-server.mjs`);
  console.error(
    `dist/probe-server.mjs: the server ${Math.round(sizes.serverBytes / 1024)} KB, its deferred part ${Math.round(sizes.deferredBytes / 1024)} KB`,
  );
}
