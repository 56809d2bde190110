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
