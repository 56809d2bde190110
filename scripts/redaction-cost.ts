/**
 * Prints what redaction costs (issue 8, "The key"): `Redactor.value` over an 8 MiB JSON body (with
 * object keys, as the check worker runs it), `text` and `tail` over the same body as text and over
 * 512 KiB of English, and `message` over a result whose structured content is 100 KB (the message
 * holds it twice: structured and as its text copy). Median and fastest of several runs, in ms;
 * asserts nothing. `node --import tsx scripts/redaction-cost.ts` (Node 20) or
 * `node scripts/redaction-cost.ts` (Node >= 22.18).
 */
import { redactor } from '../src/redaction/redaction.ts';

const KEY = 'sk-canary-3f9a2b7c41d8e6f0';
const redact = redactor(KEY);
const items: unknown[] = [];
let size = 0;
for (let index = 0; size < 8 * 1024 * 1024; index++) {
  const item = {
    id: `item-${index}`,
    name: `Widget number ${index} with a description`,
    price: index * 1.5,
    tags: ['alpha', 'beta', `t${index % 97}`],
    nested: { ok: true, note: 'Lorem ipsum dolor sit amet, consectetur adipiscing elit.' },
  };
  items.push(item);
  size += JSON.stringify(item).length + 1;
}
const bodyText = JSON.stringify(items);
const body = JSON.parse(bodyText);
const words =
  'The quick brown fox jumps over the lazy dog while the API returns ordinary English text with numbers 12345 and punctuation; ';
const english = words.repeat(Math.ceil((512 * 1024) / words.length)).slice(0, 512 * 1024);
const structured = {
  url: 'http://127.0.0.1/v2/items',
  status: 200,
  body: items.slice(0, Math.floor((items.length * 100_000) / bodyText.length)),
};
const message = {
  jsonrpc: '2.0',
  id: 1,
  result: { content: [{ type: 'text', text: JSON.stringify(structured) }], structuredContent: structured },
};

/** Runs `run` once to warm up, then `times` times; prints the median and the fastest run in ms. */
function time(name: string, run: () => unknown, times: number): void {
  run();
  const runs: number[] = [];
  for (let round = 0; round < times; round++) {
    const began = performance.now();
    run();
    runs.push(performance.now() - began);
  }
  runs.sort((left, right) => left - right);
  process.stdout.write(
    `${name}: median ${runs[Math.floor(times / 2)]!.toFixed(2)} ms, fastest ${runs[0]!.toFixed(2)} ms\n`,
  );
}

process.stdout.write(
  `key ${KEY}; body ${bodyText.length} bytes; structured content ${JSON.stringify(structured).length} bytes, message ${JSON.stringify(message).length} bytes\n`,
);
time('value(8 MiB JSON body, keys)', () => redact.value(body, true), 5);
time('text(8 MiB JSON text)', () => redact.text(bodyText), 5);
time('tail(8 MiB JSON text)', () => redact.tail(bodyText), 5);
time('text(512 KiB English)', () => redact.text(english), 21);
time('tail(512 KiB English)', () => redact.tail(english), 21);
time('message(100 KB structured content and its text copy)', () => redact.message(message), 201);
