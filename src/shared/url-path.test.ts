import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { missingServerPath, trimSlash } from './url-path.ts';

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
