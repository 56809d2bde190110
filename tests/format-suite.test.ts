// The JSON Schema Test Suite's optional format tests (draft2020-12/optional/format/<format>.json) run through
// validate.ts `check`, for every format the checker knows (CHECKED_FORMATS, src/schema/formats.ts). The suite comes
// from Debian's libtest-json-schema-acceptance-perl; like the draft2020-12 pass it is the second tier (corpus.ts):
// `npm test` leaves it out, `npm run test:corpus` runs it, and it is skipped with a message when absent. The files
// of formats the checker does not know are listed as skipped, "not checked", never run as passes.
//
// Verdict: an instance is invalid when `check` reports a `format` finding (severity info: format is an annotation
// by default, JSON Schema 2020-12 Validation 7.2, and the product reports it without failing the body).
import { describe, it, after } from 'node:test';
import assert from 'node:assert/strict';
import { readdirSync, readFileSync } from 'node:fs';
import { check } from '../validate.ts';
import { CHECKED_FORMATS, isCheckedFormat } from '../src/schema/formats.ts';
import { corpusDecision, draft2020Path, DEBIAN_DRAFT_2020_12 } from '../harness/corpus.ts';

type SuiteCase = {
  description: string;
  schema: Record<string, unknown>;
  tests: { description: string; data: unknown; valid: boolean }[];
};

const FOLDER = `${DEBIAN_DRAFT_2020_12}/optional/format`;
const tallies = new Map<string, { ran: number; passed: number }>();
const failures: string[] = [];
const unchecked: string[] = [];

describe('JSON Schema Test Suite draft2020-12 optional/format (issue 15)', () => {
  const decision = corpusDecision(
    draft2020Path(),
    'JSON Schema Test Suite draft2020-12 optional/format pass',
    `${DEBIAN_DRAFT_2020_12} is absent; install it with: apt-get install -y libtest-json-schema-acceptance-perl`,
    false,
  );
  if (!decision.run) {
    it('runs the optional format tests', { skip: decision.why }, () => {});
    return;
  }
  const names = readdirSync(FOLDER)
    .filter((file) => file.endsWith('.json'))
    .map((file) => file.slice(0, -'.json'.length))
    .sort();
  it('has a file for every format the checker knows', () => {
    assert.deepStrictEqual(
      CHECKED_FORMATS.filter((format) => !names.includes(format)),
      [],
    );
  });
  for (const name of names) {
    const cases = JSON.parse(readFileSync(`${FOLDER}/${name}.json`, 'utf8')) as SuiteCase[];
    if (!isCheckedFormat(name)) {
      unchecked.push(name);
      it(`optional/format/${name}.json`, { skip: `format ${name} is not checked by validate.ts` }, () => {});
      continue;
    }
    const tally = { ran: 0, passed: 0 };
    tallies.set(name, tally);
    describe(`optional/format/${name}.json`, () => {
      cases.forEach((suiteCase, caseIndex) => {
        suiteCase.tests.forEach((test, testIndex) => {
          const id = `${name}.json#${caseIndex}/${testIndex}`;
          it(`${id} ${suiteCase.description}: ${test.description} (${test.valid ? 'valid' : 'invalid'})`, () => {
            tally.ran++;
            const doc = { openapi: '3.1.0', ...suiteCase.schema };
            const findings = check(doc, doc, test.data);
            const valid = !findings.some((finding) => finding.kind === 'format');
            if (valid === test.valid) tally.passed++;
            else failures.push(id);
            assert.equal(valid, test.valid, JSON.stringify(findings));
          });
        });
      });
    });
  }
});

after(() => {
  if (tallies.size === 0) return;
  console.log(
    [
      'JSON Schema Test Suite optional/format, by format:',
      ...[...tallies].map(
        ([name, t]) => `${name.padEnd(12)} ran ${String(t.ran).padStart(3)}  passed ${String(t.passed).padStart(3)}`,
      ),
      `not checked (skipped): ${unchecked.join(', ')}`,
      failures.length ? `failing: ${failures.join(' ')}` : 'failing: none',
    ].join('\n'),
  );
});
