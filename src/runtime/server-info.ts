/**
 * The server's name and version, as `initialize`, `--version` and the User-Agent give them.
 */
import { readFileSync } from 'node:fs';

/** Server name and version, from the project's `package.json` when there is one. */
export const SERVER_INFO = readServerInfo();

function readServerInfo(): { name: string; version: string } {
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
