import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { missingServerPath, repeatedPrefixHint, trimSlash } from './url-path.ts';

describe('missingServerPath', () => {
  it('names the server path a base without a path lacks, and nothing for a base that ends in one', () => {
    assert.deepEqual(
      [
        missingServerPath('/', ['/v2']),
        missingServerPath('/api', ['/v2', '/v3']),
        missingServerPath('/v2/', ['/v2']),
        missingServerPath('/gateway/v2', ['/v2']),
        missingServerPath('/v3', ['/v2', '/v3']),
        missingServerPath('/', ['', '/v2']),
        missingServerPath('/', ['/']),
        missingServerPath('/', []),
      ],
      ['/v2', '/v2', undefined, undefined, undefined, undefined, undefined, undefined],
    );
  });

  it('trims trailing slashes without a quadratic pattern', () => {
    assert.deepEqual([trimSlash('/v2///'), trimSlash('/'), trimSlash('/'.repeat(100000)).length], ['/v2', '', 0]);
  });
});

describe('repeatedPrefixHint', () => {
  it('names the path without the prefix only when the path starts with the whole prefix segment', () => {
    assert.deepEqual(
      [
        repeatedPrefixHint('/v2', '/v2/meters'),
        repeatedPrefixHint('/v2', '/v2'),
        repeatedPrefixHint('/v2', '/v20/meters'),
        repeatedPrefixHint('', '/v2/meters'),
      ],
      [
        'API_BASE_URL already ends in /v2: give the path without it (/meters).',
        'API_BASE_URL already ends in /v2: give the path without it (/).',
        '',
        '',
      ],
    );
  });
});
