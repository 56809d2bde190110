/**
 * Media types (RFC 9110, 8.3.1): the essence of a Content-Type, whether it is JSON, and which `content` key of a
 * document fits it. Pure.
 */
import { isPlainObject } from './values.ts';

/** The essence of a media type: type/subtype in lower case, parameters dropped (RFC 9110, 8.3.1); '' for none. */
export function mediaTypeEssence(mediaType: string | null | undefined): string {
  return (mediaType ?? '').split(';')[0]!.trim().toLowerCase();
}

/** True for `application/json` and any `application/*+json` (RFC 6839, 3.1), parameters ignored. */
export function isJsonMediaType(mediaType: string | null | undefined): boolean {
  const type = mediaTypeEssence(mediaType);
  return type === 'application/json' || /^application\/[^/]+\+json$/.test(type);
}

/**
 * Picks the `content` key (OpenAPI 3.x Media Type map) for a Content-Type (RFC 9110 section 8.3.1: type
 * and subtype compare case-insensitively; parameters such as charset carry no meaning for JSON): the
 * exact key first, then keys with the same essence (one that declares a schema preferred), then
 * `type/*`, then `application/json` for any `+json` type, then `*\/*`. Without a Content-Type:
 * `application/json`, then any `application/*+json`, then `*\/*`.
 * @returns The key, or undefined when none fits. Never throws.
 */
export function pickMediaType(content: Record<string, unknown>, contentType: string | undefined): string | undefined {
  const keys = Object.keys(content);
  const hasSchema = (key: string): boolean =>
    isPlainObject(content[key]) && (content[key] as Record<string, unknown>).schema !== undefined;
  const byEssence = (essence: string): string | undefined => {
    const same = keys.filter((key) => mediaTypeEssence(key) === essence);
    return same.find(hasSchema) ?? same[0];
  };
  const normalized = (text: string): string => text.toLowerCase().replace(/\s+/g, '');
  if (contentType !== undefined && contentType.trim() !== '') {
    const want = mediaTypeEssence(contentType);
    const exact = keys.find((key) => normalized(key) === normalized(contentType) && hasSchema(key));
    const jsonFallback = /^application\/[^/]+\+json$/.test(want) ? byEssence('application/json') : undefined;
    return exact ?? byEssence(want) ?? byEssence(`${want.split('/')[0]}/*`) ?? jsonFallback ?? byEssence('*/*');
  }
  return (
    byEssence('application/json') ??
    keys.find((key) => /^application\/[^/]+\+json$/.test(mediaTypeEssence(key))) ??
    byEssence('*/*')
  );
}
