import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import type { SpawnOptionsWithoutStdio } from 'node:child_process';
import { BARE_NODE_LINE, benchEnvironment, startupSides, timeToFirstLine } from './startup-harness.ts';
import type { SpawnFunction } from './startup-harness.ts';

const PARENT = {
  PATH: '/usr/bin:/bin',
  HOME: '/home/someone',
  NODE_EXTRA_CA_CERTS: '/etc/ssl/extra.pem',
  NODE_OPTIONS: '--max-old-space-size=64',
  API_KEY: 'sk-live-from-the-shell',
};
const SETTINGS = { API_BASE_URL: 'http://127.0.0.1:9', OPENAPI_DOC: '/docs/api.json', PROBE_CACHE_DIR: '/tmp/cache' };

/** A spawn that records what each child was given, then starts a bare Node that writes one line. */
function recordingSpawn(): { spawnFunction: SpawnFunction; seen: { command: string; args: string[]; env: unknown }[] } {
  const seen: { command: string; args: string[]; env: unknown }[] = [];
  const spawnFunction: SpawnFunction = (command, args, options: SpawnOptionsWithoutStdio) => {
    seen.push({ command, args, env: options.env });
    return spawn(process.execPath, ['-e', BARE_NODE_LINE], { stdio: ['pipe', 'pipe', 'pipe'], env: {} });
  };
  return { spawnFunction, seen };
}

describe('bench start-up harness (issue 20)', () => {
  test('gives a child PATH and HOME from the parent and the row settings, nothing else', () => {
    assert.deepEqual(benchEnvironment(PARENT, SETTINGS), {
      PATH: '/usr/bin:/bin',
      HOME: '/home/someone',
      API_BASE_URL: 'http://127.0.0.1:9',
      OPENAPI_DOC: '/docs/api.json',
      PROBE_CACHE_DIR: '/tmp/cache',
    });
  });

  test('spawns both sides of a row with the same Node and identical environments', async () => {
    const sides = startupSides('/opt/node', ['dist/probe-server.mjs'], PARENT, SETTINGS);
    const { spawnFunction, seen } = recordingSpawn();
    await timeToFirstLine(sides.floor, spawnFunction);
    await timeToFirstLine(sides.ours, spawnFunction);
    assert.deepEqual(
      seen.map((side) => side.command),
      ['/opt/node', '/opt/node'],
    );
    assert.deepEqual(seen[0]!.env, seen[1]!.env);
    assert.deepEqual(seen[0]!.env, benchEnvironment(PARENT, SETTINGS));
    assert.deepEqual(
      seen.map((side) => side.args),
      [['-e', BARE_NODE_LINE], ['dist/probe-server.mjs']],
    );
  });

  test('times a real bare Node to its first line', async () => {
    const { floor } = startupSides(process.execPath, [], process.env, {});
    const took = await timeToFirstLine(floor);
    assert.equal(typeof took, 'number');
    assert.ok(Number.isFinite(took) && took > 0);
  });
});
