/**
 * The server's name and version, as `initialize`, `--version` and the User-Agent give them.
 */
import { readFileSync } from 'node:fs';

// Set by the single-file build (esbuild `define`) from package.json; undeclared from source.
declare const PROBE_SERVER_VERSION: string | undefined;

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
