/**
 * What the main thread needs of the jobs without the code that runs them (issue 20: the single file's main thread
 * compiles none of the contract, the document or the pipeline on its way to `initialize`): the registries of
 * structured contents made and redacted in the worker, the limits the tools quote, and the example state the worker
 * reports.
 */
import type { Redactor } from '../redaction/redaction.ts';
import type { DocumentExamples } from '../document/demo-examples.ts';
import { DEMO_EXAMPLES, sameExamples } from '../document/demo-examples.ts';

/**
 * The JSON text (`JSON.stringify`) of structured contents whose text is made already, by object: `checkProbe`
 * registers each result's (made with the remembered body's text in place of the body, `stringifyWith`), the check
 * worker sends it along and registers it again on the server's thread, and the server's tool results and transport
 * use it instead of serializing the body once more. A registered object is never changed afterwards.
 */
export const structuredTexts = new WeakMap<object, string>();

/**
 * Structured contents redacted where they were made, with the text registered for them in `structuredTexts` made
 * from the redacted content and scanned once more as written (`redactedAnswer`): the transport's last pass reads
 * only what was added around them (src/mcp/wire.ts `encode`), so a large answer is never redacted again on the
 * thread that answers ping (issue 18). A registered object is never changed afterwards.
 */
export const redactedContents = new WeakSet<object>();

/**
 * An answer's structured content redacted once, where it is made (the check worker, for what the worker makes):
 * `redact.value` over its strings (a key split across strings found), then its JSON text made and scanned as written
 * (`redact.text`: a key across a member name and a value, which the first pass does not read, is caught there);
 * what the scan replaced is parsed back. The result is registered in `structuredTexts` and `redactedContents`.
 * @returns The redacted content and its JSON text, or `{withheld}` when the scan's replacement left text that is not
 *   JSON (a key spanning JSON syntax): the answer is then withheld, never written with the key.
 */
export function redactedAnswer(
  structured: Record<string, unknown>,
  redact: Redactor,
): { structured: Record<string, unknown>; text: string } | { withheld: string } {
  const cleaned = redact.value(structured);
  const made = cleaned === structured ? structuredTexts.get(structured) : undefined;
  const text = made ?? JSON.stringify(cleaned);
  const scanned = redact.text(text);
  let out = cleaned;
  if (scanned !== text) {
    try {
      out = JSON.parse(scanned) as Record<string, unknown>;
    } catch {
      return {
        withheld:
          'Not answered: the answer held the API key in a form that could not be cut out of it, so it is withheld. This is a bug in openapi-probe.',
      };
    }
  }
  structuredTexts.set(out, scanned);
  redactedContents.add(out);
  return { structured: out, text: scanned };
}

/** Bodies larger than this (bytes) are checked but not kept in session memory (see `MEMORY_LIMITS` for the whole). */
export const REMEMBER_MAX_BYTES = 1024 * 1024;

/**
 * Most characters of JSON a job's answer (its structured content) may have; a larger one is answered as a failure
 * naming this limit, so the main thread never redacts or writes tens of MB for one call (issue 8). 1 MiB.
 */
export const MAX_ANSWER = 1024 * 1024;

/** What `ContractService.examples` answers. */
export type ExampleState = { loaded: boolean; examples?: DocumentExamples };

/** The example state of one contract service (`exampleTracker`). */
export type ExampleTracker = {
  state: () => ExampleState;
  listen: (listener: () => void) => void;
  set: (examples: DocumentExamples | undefined) => void;
};

/**
 * The example state of one contract service and its listeners: `set` takes the examples of a newly loaded document
 * (jobs.ts `watchingExamples`, where the document is, or the check worker's message). Without a document, the state is the demo document's examples, loaded.
 */
export function exampleTracker(hasDocument: boolean): ExampleTracker {
  let current: ExampleState = hasDocument ? { loaded: false } : { loaded: true, examples: DEMO_EXAMPLES };
  const listeners: (() => void)[] = [];
  const set = (examples: DocumentExamples | undefined) => {
    const next: ExampleState = examples ? { loaded: true, examples } : { loaded: true };
    if (current.loaded && sameExamples(current.examples, next.examples)) return;
    current = next;
    for (const listener of listeners) listener();
  };
  return {
    state: () => current,
    listen: (listener) => void listeners.push(listener),
    set,
  };
}
