/**
 * Paths under a base URL: the base's path prefix and a request path after it. Pure functions over strings.
 */

/** A path prefix without its trailing slashes (`/v2/` -> `/v2`, `/` -> ``). */
export function trimSlash(pathname: string): string {
  return pathname.replace(/\/+$/, '');
}
