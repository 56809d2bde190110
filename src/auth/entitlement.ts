/**
 * Entitlement (issue 19): may this verified caller act on the tenant the request names? The tenants a subject may
 * act on come from a claim of its token, a file (re-read when its modification time or size changes, checked on each
 * use: no watcher to leak), or an HTTP source called with the subject (answers reused for a TTL). Only the
 * entitlement answers are cached; identity and ownership never are.
 */
import { stat, readFile } from 'node:fs/promises';
import { getJson } from './get-json.ts';
import { isPlainObject } from '../shared/values.ts';
import type { EntitlementSource } from './settings.ts';

/** A tenant name: 1 to 64 of `A-Z a-z 0-9 . _ -`, starting with a letter or digit. */
export const TENANT_NAME = /^[A-Za-z0-9][A-Za-z0-9._-]{0,63}$/;

/** The largest entitlements file read, in bytes. */
export const MAX_ENTITLEMENTS_FILE_BYTES = 4 * 1024 * 1024;

/** The largest answer of the entitlement URL read, in bytes. */
export const MAX_ENTITLEMENTS_ANSWER_BYTES = 64 * 1024;

/** The time limit of one request to the entitlement URL, in ms. */
export const ENTITLEMENTS_TIMEOUT_MS = 5_000;

/** The most subjects whose answers the URL source keeps at once; the oldest is dropped past it. */
export const MAX_CACHED_SUBJECTS = 10_000;

/** The tenants of one subject, or why they could not be read (the source is down or malformed: a 503, not a 403). */
export type Entitlements = { tenants: readonly string[] } | { unavailable: string };

/** The tenants of a subject, from one source (`createEntitlements`). */
export type EntitlementLookup = {
  /**
   * The tenants `subject` may act on. `claims` are the verified token's claims (read by the claim source).
   * Never throws: a broken source gives `unavailable`.
   */
  tenantsOf(subject: string, claims: Record<string, unknown>): Promise<Entitlements>;
};

/**
 * Creates the lookup for one source.
 * - `claim`: the claim holds an array of tenant names, or one string of names separated by spaces.
 * - `file`: a JSON object from subject to an array of tenant names, `{"alice": ["acme", "globex"]}`; at most
 *   `MAX_ENTITLEMENTS_FILE_BYTES`. A subject not in it has no tenants.
 * - `url`: GET `<url>?sub=<subject>` answering `{"tenants": [...]}` with 200 (404 means no tenants), within
 *   `ENTITLEMENTS_TIMEOUT_MS` and `MAX_ENTITLEMENTS_ANSWER_BYTES`; answers reused for `ttlMs` per subject, and
 *   lookups of one subject made while a question is open share it.
 * Names that are not `TENANT_NAME` are left out.
 * @param options.now The clock, in ms since the epoch (default `Date.now`); `fetch` injected for tests.
 */
export function createEntitlements(
  source: EntitlementSource,
  options: { ttlMs: number; now?: () => number; fetch?: typeof fetch },
): EntitlementLookup {
  const now = options.now ?? Date.now;
  if (source.kind === 'claim')
    return { tenantsOf: async (_subject, claims) => ({ tenants: tenantNames(claims[source.claim]) }) };
  if (source.kind === 'file') return fileEntitlements(source.path);
  const fetcher = options.fetch ?? fetch;
  const cache = new Map<string, { tenants: readonly string[]; at: number }>();
  // Requests of one subject that arrive together wait for one question, not one each (a burst of a new caller's
  // requests, or every request while the service is slow, would otherwise each call it).
  const asking = new Map<string, Promise<Entitlements>>();
  const ask = async (subject: string): Promise<Entitlements> => {
    const answer = await askUrl(source.url, subject, fetcher);
    if ('unavailable' in answer) return answer;
    cache.delete(subject);
    if (cache.size >= MAX_CACHED_SUBJECTS) cache.delete(cache.keys().next().value!);
    cache.set(subject, { tenants: answer.tenants, at: now() });
    return answer;
  };
  return {
    async tenantsOf(subject) {
      const hit = cache.get(subject);
      if (hit && now() - hit.at < options.ttlMs) return { tenants: hit.tenants };
      let pending = asking.get(subject);
      if (!pending) {
        pending = ask(subject).finally(() => asking.delete(subject));
        asking.set(subject, pending);
      }
      return pending;
    },
  };
}

/** The file source: the parsed file, re-read when its mtime or size changes. */
function fileEntitlements(path: string): EntitlementLookup {
  let loaded: { mtimeMs: number; size: number; bySubject: Map<string, readonly string[]> } | undefined;
  return {
    async tenantsOf(subject) {
      try {
        const info = await stat(path);
        if (!loaded || loaded.mtimeMs !== info.mtimeMs || loaded.size !== info.size) {
          if (info.size > MAX_ENTITLEMENTS_FILE_BYTES)
            return { unavailable: `the entitlements file is larger than ${MAX_ENTITLEMENTS_FILE_BYTES} bytes` };
          const parsed: unknown = JSON.parse(await readFile(path, 'utf8'));
          if (!isPlainObject(parsed))
            return { unavailable: 'the entitlements file is not a JSON object of subject to tenants' };
          const bySubject = new Map<string, readonly string[]>();
          for (const [name, tenants] of Object.entries(parsed)) bySubject.set(name, tenantNames(tenants));
          loaded = { mtimeMs: info.mtimeMs, size: info.size, bySubject };
        }
        return { tenants: loaded.bySubject.get(subject) ?? [] };
      } catch (error) {
        const code = (error as NodeJS.ErrnoException).code;
        return { unavailable: `the entitlements file cannot be read (${code ?? 'not JSON'})` };
      }
    },
  };
}

/** One question to the entitlement URL. */
async function askUrl(url: URL, subject: string, fetcher: typeof fetch): Promise<Entitlements> {
  const target = new URL(url);
  target.searchParams.set('sub', subject);
  let answer: { status: number; value?: unknown };
  try {
    answer = await getJson(fetcher, target, {
      maxBytes: MAX_ENTITLEMENTS_ANSWER_BYTES,
      timeoutMs: ENTITLEMENTS_TIMEOUT_MS,
    });
  } catch {
    // The reason names the URL, whose query holds the subject: said in general terms instead.
    return { unavailable: 'the entitlement service did not answer in time or sent no readable JSON' };
  }
  if (answer.status === 404) return { tenants: [] };
  if (answer.status !== 200) return { unavailable: `the entitlement service answered ${answer.status}` };
  if (isPlainObject(answer.value) && Array.isArray(answer.value.tenants))
    return { tenants: tenantNames(answer.value.tenants) };
  return { unavailable: 'the entitlement service did not answer {"tenants": [...]}' };
}

/** The tenant names of a claim or file entry: an array of names, or names separated by spaces; others dropped. */
function tenantNames(value: unknown): string[] {
  const items = typeof value === 'string' ? value.split(' ') : Array.isArray(value) ? value : [];
  return [...new Set(items.filter((item): item is string => typeof item === 'string' && TENANT_NAME.test(item)))];
}
