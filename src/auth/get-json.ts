/**
 * One GET of a JSON document from a service the auth layer depends on (the issuer's metadata and JWK Set, the
 * entitlement URL): a time limit, a size limit (the body is hostile input), no redirects followed.
 */
import { readCappedStream } from '../shared/capped-read.ts';

/**
 * GETs `url` and reads a 200 answer as JSON.
 * @param options.maxBytes The largest body read, in bytes; `timeoutMs` the limit for the whole request, in ms.
 * @returns `{status}` for an answer other than 200 (its body dropped unread), `{status: 200, value}` for JSON.
 * @throws Error whose message says what failed (unreachable, time limit, too large, not JSON), naming the URL.
 */
export async function getJson(
  fetcher: typeof fetch,
  url: URL,
  options: { maxBytes: number; timeoutMs: number },
): Promise<{ status: number; value?: unknown }> {
  let response: Response;
  try {
    response = await fetcher(url, {
      headers: { accept: 'application/json' },
      redirect: 'manual',
      signal: AbortSignal.timeout(options.timeoutMs),
    });
  } catch (error) {
    throw new Error(
      `${url.href} ${timedOut(error) ? `did not answer within ${options.timeoutMs} ms` : 'could not be reached'}`,
    );
  }
  if (response.status !== 200) {
    await response.body?.cancel().catch(() => {});
    return { status: response.status };
  }
  const read = await readCappedStream(response.body as AsyncIterable<Uint8Array> | null, options.maxBytes);
  if (read.truncated) throw new Error(`${url.href} sent more than ${options.maxBytes} bytes`);
  // The time limit covers the body too: one sent slowly is cut by it, not broken off by the service.
  if (read.failure !== undefined)
    throw new Error(
      `${url.href} ${timedOut(read.failure) ? `did not answer within ${options.timeoutMs} ms` : 'broke off its answer'}`,
    );
  try {
    return { status: 200, value: JSON.parse(read.all.toString('utf8')) };
  } catch {
    throw new Error(`${url.href} did not send JSON`);
  }
}

/** Whether `error` is the request's time limit firing (`AbortSignal.timeout`), before or after the answer began. */
function timedOut(error: unknown): boolean {
  return error instanceof Error && (error.name === 'TimeoutError' || error.name === 'AbortError');
}
