/**
 * Paths under a base URL: the base's path prefix and a request path after it. Pure functions over strings.
 */

/** A path prefix without its trailing slashes (`/v2/` -> `/v2`, `/` -> ``); a loop, since `/\/+$/` is quadratic on long runs of slashes. */
export function trimSlash(pathname: string): string {
  let end = pathname.length;
  while (end > 0 && pathname.charCodeAt(end - 1) === 0x2f) end--;
  return pathname.slice(0, end);
}

/**
 * The path of `url` after the base URL's path prefix, as the document's path templates read it: `/v2/meters/1`
 * under `https://api.example.com/v2/` is `/meters/1`; the prefix itself is `/`. The query is not included.
 * @param url A URL already known to lie under `base` (the URL policy checked it).
 */
export function pathAfterBase(url: URL, base: URL): string {
  return url.pathname.slice(trimSlash(base.pathname).length) || '/';
}

/**
 * The document's server path that a base URL lacks: when every server path of the document (`/v2`, from
 * `servers[].url` or 2.0 `basePath`) is missing from the end of the base's path, the first of them; the usual cause of
 * 404s whose path still matches an operation (`API_BASE_URL=https://api.example.com` for a document served at `/v2`).
 * @param basePathname The base URL's path (`/`, `/api`).
 * @param serverPaths The document's server paths; `''` and `/` stand for the root.
 * @returns The path to add (`/v2`), or `undefined` when the base ends in one of them or one of them is the root.
 */
export function missingServerPath(basePathname: string, serverPaths: readonly string[]): string | undefined {
  const prefix = trimSlash(basePathname);
  const paths = serverPaths.map(trimSlash);
  if (paths.length === 0 || paths.some((path) => path === '' || prefix.endsWith(path))) return undefined;
  return paths[0];
}

/**
 * The hint for a path that repeats the base URL's own prefix (`/v2` + `/v2/meters`, sent as `/v2/v2/meters`): the
 * usual reason such a path matches no operation.
 * @param basePrefix The base URL's path without trailing slashes (`/v2`, or `''`).
 * @param relativePath The path given after the base (`/v2/meters/mtr_1`).
 * @returns `API_BASE_URL already ends in /v2: give the path without it (/meters/mtr_1).`, or '' when the path does not
 *   start with the prefix.
 */
export function repeatedPrefixHint(basePrefix: string, relativePath: string): string {
  if (!basePrefix || (relativePath !== basePrefix && !relativePath.startsWith(`${basePrefix}/`))) return '';
  return `API_BASE_URL already ends in ${basePrefix}: give the path without it (${relativePath.slice(basePrefix.length) || '/'}).`;
}
