/**
 * Paths under a base URL: the base's path prefix and a request path after it. Pure functions over strings.
 */

/** A path prefix without its trailing slashes (`/v2/` -> `/v2`, `/` -> ``); a loop, since `/\/+$/` is quadratic on long runs of slashes. */
export function trimSlash(pathname: string): string {
  let end = pathname.length;
  while (end > 0 && pathname.charCodeAt(end - 1) === 0x2f) end--;
  return pathname.slice(0, end);
}
