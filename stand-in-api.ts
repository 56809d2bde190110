/**
 * A stand-in for the Meter Readings API that `openapi.json` describes, with scripted drift,
 * for the walkthrough (`demo.ts`) and the end-to-end tests. Listens on 127.0.0.1 only.
 *
 * Scripted drift against `openapi.json`:
 * - every meter carries `firmwareVersion`, a field the document never mentions (undocumented);
 * - the optional `location` is present on mtr_1 and mtr_2, absent on mtr_3;
 * - mtr_3 has never reported, so its `lastReading` is null (the document allows it: nullable).
 */
import { createServer } from 'node:http';
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { realpathSync } from 'node:fs';
import { pathToFileURL } from 'node:url';

/** The three meters the stand-in serves, keyed by id. Fixed values so tests can assert exact bytes. */
export const METERS = {
  mtr_1: {
    id: 'mtr_1',
    serial: 'SN-0041-7781',
    status: 'active',
    installedAt: '2023-03-14T09:30:00Z',
    lastReading: { kwh: 18234.5, takenAt: '2026-11-29T23:45:00Z', source: 'smart' },
    location: { site: 'Harbour Road 12', floor: 0 },
    firmwareVersion: '4.2.1',
  },
  mtr_2: {
    id: 'mtr_2',
    serial: 'SN-0041-7782',
    status: 'active',
    installedAt: '2023-05-02T11:00:00Z',
    lastReading: { kwh: 904.25, takenAt: '2026-11-29T23:45:00Z', source: 'smart' },
    location: { site: 'Harbour Road 12', floor: 2 },
    firmwareVersion: '4.2.1',
  },
  mtr_3: {
    id: 'mtr_3',
    serial: 'SN-0057-0003',
    status: 'inactive',
    installedAt: '2026-11-20T08:15:00Z',
    lastReading: null,
    firmwareVersion: '4.3.0-rc1',
  },
} as const;

/** One request the stand-in received: method, path with query string, and whether the key was right. */
export type SeenRequest = { method: string; path: string; authorized: boolean };

export type StandIn = {
  /** Base URL including the path prefix, e.g. `http://127.0.0.1:40123/v2`. */
  url: string;
  /** Every request received, in order, including refused ones. */
  requests: SeenRequest[];
  /** Stops listening and drops keep-alive connections. */
  close(): Promise<void>;
};

/**
 * Starts the stand-in API.
 * @param options.port TCP port on 127.0.0.1; 0 (default) picks a free one.
 * @param options.key The API key expected as `Authorization: Bearer <key>`; default `demo-key`.
 * @param options.prefix Path prefix the API lives under; default `/v2`.
 * @returns The base URL, the request log and `close()`. Rejects when the port cannot be bound.
 *   Requests without the right key get 401; anything but GET gets 405; unknown paths 404;
 *   all error bodies are `{code, message}` JSON as the document's `Error` schema says.
 */
export async function start(options: { port?: number; key?: string; prefix?: string } = {}): Promise<StandIn> {
  const key = options.key ?? 'demo-key';
  const prefix = options.prefix ?? '/v2';
  const requests: SeenRequest[] = [];
  const server = createServer((req, res) => {
    const authorized = req.headers.authorization === `Bearer ${key}`;
    requests.push({ method: req.method ?? '', path: req.url ?? '', authorized });
    route(req, res, authorized, prefix);
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(options.port ?? 0, '127.0.0.1', () => resolve());
  });
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}${prefix}`,
    requests,
    close: () =>
      new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      }),
  };
}

function send(res: ServerResponse, status: number, body: unknown): void {
  const text = JSON.stringify(body);
  res.writeHead(status, {
    'content-type': 'application/json; charset=utf-8',
    'content-length': Buffer.byteLength(text),
  });
  res.end(text);
}

function route(req: IncomingMessage, res: ServerResponse, authorized: boolean, prefix: string): void {
  if (!authorized) return send(res, 401, { code: 'unauthorized', message: 'Missing or wrong API key.' });
  if (req.method !== 'GET')
    return send(res, 405, { code: 'method_not_allowed', message: 'The stand-in serves GET only.' });
  const url = new URL(req.url ?? '/', 'http://stand-in');
  if (!url.pathname.startsWith(prefix + '/'))
    return send(res, 404, { code: 'not_found', message: `No route ${url.pathname}.` });
  const segments = url.pathname.slice(prefix.length + 1).split('/');
  const meters = Object.values(METERS);
  if (segments.length === 1 && segments[0] === 'meters') {
    const status = url.searchParams.get('status');
    return send(res, 200, { meters: status ? meters.filter((m) => m.status === status) : meters, nextCursor: null });
  }
  const meter =
    segments[0] === 'meters' ? (METERS as Record<string, (typeof meters)[number]>)[segments[1] ?? ''] : undefined;
  if (segments.length === 2 && meter) return send(res, 200, meter);
  if (segments.length === 3 && meter && segments[2] === 'readings') {
    return send(res, 200, meter.lastReading ? [meter.lastReading] : []);
  }
  return send(res, 404, { code: 'not_found', message: `No route ${url.pathname}.` });
}

async function main(): Promise<void> {
  const port = Number(process.env.PORT ?? 0);
  const standIn = await start({ port, key: process.env.API_KEY ?? 'demo-key' });
  process.stderr.write(
    `stand-in API listening at ${standIn.url} (key from API_KEY, default demo-key); Ctrl-C stops it\n`,
  );
}

if (process.argv[1] && import.meta.url === pathToFileURL(realpathSync(process.argv[1])).href) main();
