/**
 * The server's name and version, as `initialize`, `--version` and the User-Agent give them.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { lazyBuiltin } from '../shared/builtin.ts';

const crypto = lazyBuiltin('node:crypto');

// Set by the single-file build (esbuild `define`) from package.json and from the sources it was built from
// (`sourceDigest`); undeclared from source.
declare const PROBE_SERVER_VERSION: string | undefined;
declare const PROBE_SOURCE_SHA256: string | undefined;

/**
 * Server name and version: the single-file build's, written into it when it was built (so a copy on its own, and the
 * build's deferred part, which is a `data:` module with no folder, say the same), else the project's `package.json`.
 */
export const SERVER_INFO = readServerInfo();

function readServerInfo(): { name: string; version: string } {
  if (typeof PROBE_SERVER_VERSION === 'string') return { name: 'openapi-probe', version: PROBE_SERVER_VERSION };
  // Two folders up from the sources (src/runtime/), or one up from the single-file build in an installed package (dist/).
  for (const where of ['../../package.json', '../package.json']) {
    try {
      const pkg = JSON.parse(readFileSync(new URL(where, import.meta.url), 'utf8'));
      if (pkg.name === 'openapi-probe' && typeof pkg.version === 'string')
        return { name: pkg.name, version: pkg.version };
    } catch {
      // Copied as a single file: no package.json beside it.
    }
  }
  return { name: 'openapi-probe', version: '0.1.0' };
}

/**
 * The SHA-256 (hex) of the product's TypeScript sources under `root`: every `.ts` file of `src/` and of the top level,
 * by path in code-unit order, each path and its bytes. Two builds of one version with other code differ in it.
 * @throws What reading the folder throws (a missing `src/`).
 */
export function sourceDigest(root: string): string {
  const files = [
    ...readdirSync(root).filter((name) => name.endsWith('.ts')),
    ...(readdirSync(join(root, 'src'), { recursive: true }) as string[])
      .filter((name) => name.endsWith('.ts'))
      .map((name) => join('src', name)),
  ].sort();
  const hash = crypto().createHash('sha256');
  for (const file of files)
    hash
      .update(`${file}\0`)
      .update(readFileSync(join(root, file)))
      .update('\0');
  return hash.digest('hex');
}

let ownDigest: string | undefined;

/**
 * What identifies this build's code, for keys of what it derives and keeps (the document cache): the single-file
 * build's `sourceDigest`, written into it, else that of the sources it runs from (read once, at the first call), else
 * the version alone (sources that cannot be read).
 */
export function codeIdentity(): string {
  if (typeof PROBE_SOURCE_SHA256 === 'string') return `${SERVER_INFO.version}+${PROBE_SOURCE_SHA256}`;
  if (ownDigest === undefined) {
    try {
      ownDigest = `${SERVER_INFO.version}+${sourceDigest(fileURLToPath(new URL('../../', import.meta.url)))}`;
    } catch {
      ownDigest = SERVER_INFO.version;
    }
  }
  return ownDigest;
}
