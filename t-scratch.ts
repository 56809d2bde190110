import { loadDocument } from './openapi-document.ts';
import { describeOperation, describeTypeScript } from './contract.ts';
import { githubDescriptionPath } from './fixture-documents.ts';
const g = await loadDocument(githubDescriptionPath());
let worst = { ms: 0, id: '' }, worstTs = { ms: 0, id: '' }, over = 0, cuts = 0, tsCuts = 0, errs = 0, maxTs = 0;
const t0 = performance.now();
for (const op of g.operations) {
  let s = performance.now();
  const d = describeOperation(g, op);
  let ms = performance.now() - s;
  if (ms > worst.ms) worst = { ms, id: op.operationId! };
  if (typeof d !== 'string') { if (JSON.stringify(d).length > 20000) over++; if (d.cut) cuts++; }
  s = performance.now();
  const t = describeTypeScript(g, op);
  ms = performance.now() - s;
  if (ms > worstTs.ms) worstTs = { ms, id: op.operationId! };
  if (typeof t === 'string') errs++; else { if (t.cut) tsCuts++; maxTs = Math.max(maxTs, (t.typescript as string).length); }
}
console.log({ total: Math.round(performance.now() - t0), worst, worstTs, over, cuts, tsCuts, errs, maxTs, n: g.operations.length });
