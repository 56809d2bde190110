/**
 * Reading a stream of bytes up to a budget, keeping at most one chunk past it: the probe's body and a document's
 * download share it. Never trusts a length header (RFC 9110, 8.6).
 */

/**
 * Reads an HTTP body (a web `ReadableStream` or a Node stream: any async iterable of bytes) up to `maxBytes` bytes as they arrive (after content decoding, so a gzip bomb
 * costs no more than the cap; Content-Length is never trusted, RFC 9110, 8.6): reading stops and the stream
 * is cancelled once more than `maxBytes` have arrived, so at most one network chunk past the cap is held.
 * Shared by the document download (which fails past the cap) and the probe (which keeps the cut body).
 * @returns `all` the bytes held, `bytes` received (exact unless `truncated`), `truncated` when the body was
 *   longer than `maxBytes`, and `failure` when the stream broke, with what arrived before it. Never throws.
 */
export async function readCappedStream(
  body: AsyncIterable<Uint8Array> | null,
  maxBytes: number,
): Promise<{ all: Buffer; bytes: number; truncated: boolean; failure?: unknown }> {
  const chunks: Uint8Array[] = [];
  let bytes = 0;
  let truncated = false;
  let failure: unknown;
  if (body) {
    try {
      for await (const value of body) {
        bytes += value.byteLength;
        chunks.push(value);
        if (bytes > maxBytes) {
          truncated = true;
          // Leaving the loop cancels a web stream and destroys a Node stream: the rest is never pulled off the socket.
          break;
        }
      }
    } catch (error) {
      failure = error;
    }
  }
  return { all: Buffer.concat(chunks), bytes, truncated, ...(failure === undefined ? {} : { failure }) };
}
