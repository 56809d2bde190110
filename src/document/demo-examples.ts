/**
 * What the texts an agent reads quote as examples (issue 17), and the demo document's: the values alone, so the main
 * thread can hold and compare them without the code that picks them from a loaded document (`examples.ts`, in the
 * check worker; issue 20).
 */
/**
 * What the texts quote. `operationId` and `template` name one GET operation (`getMeter`, `/meters/{meterId}`);
 * `key` is an operation on that template as `METHOD /template`, a write one when the template has one
 * (`PATCH /meters/{meterId}`); `paths` holds one or two concrete paths of the GET operation (`/meters/mtr_1`); `query`
 * a concrete path with a query, only when the document documents a value for a query parameter (`/meters?status=active`).
 */
export type DocumentExamples = {
  operationId: string;
  template: string;
  key: string;
  paths: readonly string[];
  query?: string;
};

/**
 * The demo document's examples (openapi.json, which the demo loads): what a text says when no document is at hand.
 * `documentExamples` of openapi.json gives these (a test says so).
 */
export const DEMO_EXAMPLES: DocumentExamples = {
  operationId: 'getMeter',
  template: '/meters/{meterId}',
  key: 'PATCH /meters/{meterId}',
  paths: ['/meters/mtr_1', '/meters/mtr_2'],
  query: '/meters?status=active',
};

/** Whether two sets of examples say the same (undefined: none). */
export function sameExamples(a: DocumentExamples | undefined, b: DocumentExamples | undefined): boolean {
  return JSON.stringify(a) === JSON.stringify(b);
}
