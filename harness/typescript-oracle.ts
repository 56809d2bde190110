/**
 * The TypeScript compiler as the oracle of `renderTypeScript` (issue 15): for a schema and a JSON value,
 * `const value: T = <the JSON>` must compile exactly when `check` finds no error-level finding. Dev-only: it reads
 * the `typescript` dev dependency; product files never import it.
 *
 * Each value is declared with its JSON as a literal type (`declare const x: {"id": 1, "tags": ["a"]}`) and assigned
 * from that variable (`const v: T = x`), so TypeScript judges the value's shape and literals, not the freshness of
 * an object literal: an undocumented field of an open object is only a warning to the checker, and TypeScript object
 * types admit more fields from a variable (its excess-property check applies to object literals alone). Many values
 * share one program (one file per group of declarations), strict mode, `exactOptionalPropertyTypes` off (JSON has
 * no `undefined`, so the option would change nothing a JSON value can show).
 */
import ts from 'typescript';
import { check } from '../validate.ts';
import type { Finding } from '../validate.ts';
import { ANNOTATIONS, patternKeyType } from '../src/contract/typescript.ts';
import { escapePointerToken, instancePath, resolvePointer } from '../src/shared/json-pointer.ts';

/** One file of the program: TypeScript declarations, and values each assigned to a type those declarations name. */
export type OracleGroup = { declarations: string; values: { type: string; value: unknown }[] };

/** What tsc said of one group: per value, whether it compiled (and the first diagnostic when not); errors in the declarations themselves. */
export type OracleResult = {
  accepted: { ok: boolean; diagnostic?: string; full?: string }[];
  declarationErrors: string[];
};

/**
 * A JSON value as a TypeScript literal type: strings, numbers, booleans and null as literal types, arrays as
 * tuples, objects as type literals with quoted keys. A number no literal can write (Infinity) is `number`.
 */
export function literalTypeOf(value: unknown): string {
  if (value === null) return 'null';
  if (typeof value === 'string') return JSON.stringify(value);
  if (typeof value === 'boolean') return String(value);
  if (typeof value === 'number') return Number.isFinite(value) ? String(Object.is(value, -0) ? 0 : value) : 'number';
  if (Array.isArray(value)) return `[${value.map(literalTypeOf).join(', ')}]`;
  if (typeof value === 'object')
    return `{ ${Object.entries(value as Record<string, unknown>)
      .map(([key, item]) => `${JSON.stringify(key)}: ${literalTypeOf(item)};`)
      .join(' ')} }`;
  return 'unknown';
}

const OPTIONS: ts.CompilerOptions = {
  strict: true,
  noEmit: true,
  target: ts.ScriptTarget.ES2022,
  module: ts.ModuleKind.ESNext,
  types: [],
  skipLibCheck: true,
};

/**
 * Compiles every group in one program and reads each value's verdict from where tsc puts its diagnostics.
 * @returns One result per group, in order. Throws only when tsc itself fails.
 */
export function compileGroups(groups: OracleGroup[]): OracleResult[] {
  const sources = new Map<string, { text: string; starts: number[]; head: number }>();
  groups.forEach((group, index) => {
    let text = `${group.declarations}\nexport {};\n`;
    const head = text.length;
    const starts: number[] = [];
    group.values.forEach((entry, at) => {
      starts.push(text.length);
      text += `declare const x${at}: ${literalTypeOf(entry.value)};\nexport const v${at}: ${entry.type} = x${at};\n`;
    });
    sources.set(`group${index}.ts`, { text, starts, head });
  });
  const host = ts.createCompilerHost(OPTIONS);
  const original = host.getSourceFile.bind(host);
  host.getSourceFile = (name, version, onError, create) => {
    const source = sources.get(name);
    return source ? ts.createSourceFile(name, source.text, version) : original(name, version, onError, create);
  };
  host.fileExists = (
    (exists) => (name: string) =>
      sources.has(name) || exists(name)
  )(host.fileExists.bind(host));
  const program = ts.createProgram([...sources.keys()], OPTIONS, host);
  return groups.map((group, index) => {
    const name = `group${index}.ts`;
    const source = sources.get(name)!;
    const file = program.getSourceFile(name)!;
    const result: OracleResult = {
      accepted: group.values.map(() => ({ ok: true })),
      declarationErrors: [],
    };
    for (const diagnostic of [...program.getSyntacticDiagnostics(file), ...program.getSemanticDiagnostics(file)]) {
      const message = ts.flattenDiagnosticMessageText(diagnostic.messageText, '\n');
      const start = diagnostic.start ?? 0;
      if (start < source.head) {
        result.declarationErrors.push(message);
        continue;
      }
      let at = 0;
      while (at + 1 < source.starts.length && source.starts[at + 1]! <= start) at++;
      const verdict = result.accepted[at]!;
      if (verdict.ok)
        result.accepted[at] = {
          ok: false,
          diagnostic: `TS${diagnostic.code}: ${message.split('\n')[0]}`,
          full: message,
        };
    }
    return result;
  });
}

/** The checker's verdict on a value: `accepted` when no finding is error-level; `undecided` when a part could not be checked. */
export function checkerVerdict(findings: Finding[]): 'accepted' | 'rejected' | 'undecided' {
  if (findings.some((finding) => finding.severity === 'error')) return 'rejected';
  if (findings.some((finding) => finding.kind === 'notChecked' || finding.kind === 'unresolvedRef')) return 'undecided';
  return 'accepted';
}

/**
 * Why no TypeScript type can say what the checker found, per error-level finding: the keyword a type cannot
 * express, or undefined when a type could have said it (then the disagreement is a defect of the type).
 */
export function inexpressible(finding: Finding): string | undefined {
  if (
    finding.kind === 'wrongType' &&
    finding.expected?.split(/, | or /).includes('integer') &&
    finding.actual === 'number'
  )
    return 'integer (TypeScript has one number type)';
  if (finding.kind === 'constraint' && finding.keyword)
    return finding.keyword === 'oneOf'
      ? 'oneOf with more than one branch matching (a union cannot exclude)'
      : `${finding.keyword} (no TypeScript type counts, measures or matches)`;
  if (finding.kind === 'missing' && PROTOTYPE_NAMES.has(finding.path.replace(/^.*[.[]'?|'?]$/g, '')))
    return 'a required name every object has in JavaScript (TypeScript finds it on Object.prototype)';
  const patterns = [...finding.schemaPath.matchAll(/\/patternProperties\/([^/]*)/g)].map((hit) =>
    hit[1]!.replace(/~1/g, '/').replace(/~0/g, '~'),
  );
  if (patterns.some((pattern) => patternKeyType(pattern) === undefined))
    return 'patternProperties with a pattern no template literal type says (the index signature types such a field)';
  if (/\/unevaluated(?:Items|Properties)(?:\/|$)/.test(finding.schemaPath))
    return 'unevaluatedItems or unevaluatedProperties beside keywords that evaluate in place (what counts as evaluated depends on which branches pass)';
  if (finding.kind === 'wrongType' && finding.schemaPath.includes('/additionalProperties/'))
    return 'additionalProperties beside properties of other types (an index signature must admit every named property)';
  if (
    finding.kind === 'enum' &&
    finding.allowed?.some((item) => item !== null && typeof item === 'object' && !Array.isArray(item))
  )
    return 'enum or const with an object value (a TypeScript object type admits more fields from a variable)';
  if (finding.kind === 'undocumented' && finding.severity === 'error')
    return 'additionalProperties: false (a TypeScript object type admits more fields from a variable)';
  return undefined;
}

const PROTOTYPE_NAMES = new Set(Object.getOwnPropertyNames(Object.prototype));

/** Per document: each anyOf or oneOf branch's label, as the checker names the closest branch, to the union's pointer and keyword. */
const unionsByLabel = new WeakMap<object, Map<string, { pointer: string; keyword: 'anyOf' | 'oneOf' }[]>>();

/** The anyOf and oneOf schemas of a document, by the labels the checker gives their branches (the branch's schema path, or its `$ref`). */
function unionsOf(doc: object): Map<string, { pointer: string; keyword: 'anyOf' | 'oneOf' }[]> {
  const known = unionsByLabel.get(doc);
  if (known) return known;
  const found = new Map<string, { pointer: string; keyword: 'anyOf' | 'oneOf' }[]>();
  let left = 200_000;
  const walk = (node: unknown, pointer: string): void => {
    if (--left < 0 || node === null || typeof node !== 'object') return;
    if (Array.isArray(node)) return node.forEach((item, at) => walk(item, `${pointer}/${at}`));
    const record = node as Record<string, unknown>;
    for (const keyword of ['anyOf', 'oneOf'] as const) {
      const branches = record[keyword];
      if (!Array.isArray(branches)) continue;
      branches.forEach((branch, at) => {
        const ref = (branch as Record<string, unknown> | null)?.$ref;
        for (const label of [`${pointer}/${keyword}/${at}`, ...(typeof ref === 'string' ? [ref] : [])])
          found.set(label, [...(found.get(label) ?? []), { pointer, keyword }]);
      });
    }
    for (const [key, item] of Object.entries(record)) walk(item, `${pointer}/${escapePointerToken(key)}`);
  };
  walk(doc, '#');
  unionsByLabel.set(doc, found);
  return found;
}

/**
 * The part of the value a finding is about: the node at its instance path, or for `missing` (whose path names the
 * absent field) the deepest node above it. Undefined when no node of the value has that path.
 */
function instanceOf(finding: Finding, value: unknown): { found: boolean; node?: unknown } {
  let best: { depth: number; node: unknown } | undefined;
  let left = 10_000;
  const walk = (node: unknown, segments: (string | number)[]): void => {
    if (--left < 0) return;
    const path = instancePath(segments);
    const exact = path === finding.path;
    if (finding.kind === 'missing' ? !exact && finding.path.startsWith(path) : exact)
      if (!best || segments.length > best.depth) best = { depth: segments.length, node };
    if (!finding.path.startsWith(path) || exact) return;
    if (Array.isArray(node)) node.forEach((item, at) => walk(item, [...segments, at]));
    else if (node !== null && typeof node === 'object')
      for (const [key, item] of Object.entries(node)) walk(item, [...segments, key]);
  };
  walk(value, []);
  return best ? { found: true, node: best.node } : { found: false };
}

/**
 * Why a type admits a value the checker rejects with this finding, when no type can say it: `inexpressible`, or, for a
 * finding of the closest anyOf or oneOf branch, a branch of that union whose only errors on the value are such
 * keywords (the union then admits what that branch's type admits; `not` and `pattern` branches render as `unknown`).
 */
export function excuse(
  doc: unknown,
  finding: Finding,
  value: unknown,
  direction: 'request' | 'response' = 'response',
  depth = 0,
): string | undefined {
  const direct = inexpressible(finding);
  if (direct !== undefined || depth > 4 || doc === null || typeof doc !== 'object') return direct;
  // A finding under `then` or `else` whose condition tests more than the JSON type: the type admits either outcome
  // (src/contract/typescript.ts `conditionals`; a condition on `type` alone it renders exactly).
  for (const hit of finding.schemaPath.matchAll(/\/(?:then|else)(?=\/|$)/g)) {
    let condition: unknown;
    try {
      condition = (resolvePointer(doc, finding.schemaPath.slice(0, hit.index)) as Record<string, unknown>).if;
    } catch {
      continue;
    }
    const typeOnly =
      condition !== null &&
      typeof condition === 'object' &&
      Object.keys(condition).every((key) => key === 'type' || ANNOTATIONS.includes(key));
    if (condition !== undefined && !typeOnly)
      return 'if/then/else (a type cannot test the condition, so it admits either outcome)';
  }
  const label = / \(closest of \d+ (?:anyOf|oneOf) branches: ([^)]*)\)$/.exec(finding.message)?.[1];
  if (label === undefined) return undefined;
  const instance = instanceOf(finding, value);
  if (!instance.found) return undefined;
  for (const union of unionsOf(doc).get(label) ?? []) {
    let branches: unknown;
    try {
      branches = (resolvePointer(doc, union.pointer) as Record<string, unknown>)[union.keyword];
    } catch {
      continue;
    }
    if (!Array.isArray(branches)) continue;
    for (let at = 0; at < branches.length; at++) {
      const errors = check(doc, branches[at], instance.node, {
        at: `${union.pointer}/${union.keyword}/${at}`,
        direction,
      }).filter((item) => item.severity === 'error');
      if (
        errors.length > 0 &&
        errors.every((item) => excuse(doc, item, instance.node, direction, depth + 1) !== undefined)
      )
        return `${union.keyword} with a branch that fails only on a keyword no type expresses (the union admits what that branch's type admits)`;
    }
  }
  return undefined;
}

const OBJECT_KEYWORDS = [
  'properties',
  'patternProperties',
  'required',
  'additionalProperties',
  'dependentSchemas',
  'dependentRequired',
];
const ARRAY_KEYWORDS = ['items', 'prefixItems'];

/**
 * Whether the type's reading of a schema without `type` decides the value: the type reads object keywords as an
 * object and array keywords as an array (what the document means by them), while the checker applies them only to
 * values of that type and accepts any other (JSON Schema 2020-12, 10.3: each keyword to its own instance type).
 * Looks at the value's location and, through `properties`, `patternProperties`, `items`, `allOf`, local `$ref`s and anyOf/oneOf branches, the
 * ones below it. An anyOf or oneOf branch itself is no such reading (`own` false there): the renderer widens a
 * branch without `type` with the other JSON types (src/contract/typescript.ts `branchTypes`).
 */
export function untypedReading(doc: unknown, schema: unknown, value: unknown, depth = 0, own = true): boolean {
  if (depth > 32 || schema === null || typeof schema !== 'object' || Array.isArray(schema)) return false;
  const node = schema as Record<string, unknown>;
  if (typeof node.$ref === 'string' && node.$ref.startsWith('#')) {
    let target: unknown = doc;
    for (const token of node.$ref.slice(1).split('/').slice(1))
      target = (target as Record<string, unknown> | undefined)?.[token.replace(/~1/g, '/').replace(/~0/g, '~')];
    if (untypedReading(doc, target, value, depth + 1, own)) return true;
  }
  const isObject = value !== null && typeof value === 'object' && !Array.isArray(value);
  if (own && node.type === undefined) {
    if (!isObject && OBJECT_KEYWORDS.some((keyword) => node[keyword] !== undefined)) return true;
    if (!Array.isArray(value) && ARRAY_KEYWORDS.some((keyword) => node[keyword] !== undefined)) return true;
  }
  if (Array.isArray(node.allOf) && node.allOf.some((branch) => untypedReading(doc, branch, value, depth + 1)))
    return true;
  for (const keyword of ['anyOf', 'oneOf'])
    if (
      Array.isArray(node[keyword]) &&
      (node[keyword] as unknown[]).some((branch) => untypedReading(doc, branch, value, depth + 1, false))
    )
      return true;
  if (isObject && node.properties !== null && typeof node.properties === 'object')
    for (const [name, property] of Object.entries(node.properties as Record<string, unknown>))
      if (
        Object.hasOwn(value, name) &&
        untypedReading(doc, property, (value as Record<string, unknown>)[name], depth + 1)
      )
        return true;
  if (isObject && node.patternProperties !== null && typeof node.patternProperties === 'object')
    for (const [pattern, property] of Object.entries(node.patternProperties as Record<string, unknown>)) {
      let matcher: RegExp;
      try {
        matcher = new RegExp(pattern, 'u');
      } catch {
        continue;
      }
      for (const [name, item] of Object.entries(value as Record<string, unknown>))
        if (matcher.test(name) && untypedReading(doc, property, item, depth + 1)) return true;
    }
  if (Array.isArray(value) && node.items !== null && typeof node.items === 'object' && !Array.isArray(node.items))
    return value.some((item) => untypedReading(doc, node.items, item, depth + 1));
  return false;
}

/** One value compared: the checker's verdict and tsc's, and why they differ. */
export type Comparison = {
  id: string;
  checker: 'accepted' | 'rejected' | 'undecided';
  compiles: boolean;
  /** Set when they differ: the inexpressible keyword (a known deviation) or what went wrong. */
  reason?: string;
  known?: boolean;
};

/** A value for the oracle: its id, the document, the schema (and its schema path) and the direction. */
export type OracleCase = {
  id: string;
  doc: unknown;
  schema: unknown;
  at?: string;
  value: unknown;
  direction?: 'request' | 'response';
};

/**
 * Compares the checker and tsc on each case. `typeOf(caseIndex)` names the type the case's value is assigned to,
 * inside the group's declarations.
 * @returns One comparison per case, in order; cases the checker could not decide are `undecided` and not compared.
 */
export function compare(
  cases: OracleCase[],
  groups: { declarations: string; members: { index: number; type: string }[] }[],
): Comparison[] {
  const results = compileGroups(
    groups.map((group) => ({
      declarations: group.declarations,
      values: group.members.map((member) => ({ type: member.type, value: cases[member.index]!.value })),
    })),
  );
  const out: Comparison[] = new Array(cases.length);
  groups.forEach((group, g) => {
    const result = results[g]!;
    group.members.forEach((member, m) => {
      const item = cases[member.index]!;
      const findings = check(item.doc, item.schema, item.value, {
        ...(item.at ? { at: item.at } : {}),
        direction: item.direction ?? 'response',
      });
      const checker = checkerVerdict(findings);
      const compiled = result.accepted[m]!;
      const comparison: Comparison = { id: item.id, checker, compiles: compiled.ok };
      if (result.declarationErrors.length > 0) {
        comparison.reason = `the declarations do not compile: ${result.declarationErrors[0]}`;
        comparison.known = false;
      } else if (checker === 'rejected' && compiled.ok) {
        const errors = findings.filter((finding) => finding.severity === 'error');
        const reasons = errors.map((finding) => excuse(item.doc, finding, item.value, item.direction ?? 'response'));
        const known = reasons.every((reason) => reason !== undefined);
        comparison.reason = known
          ? [...new Set(reasons)].join('; ')
          : `the type admits it, the checker found ${errors.find((_, i) => reasons[i] === undefined)!.path} ${errors.find((_, i) => reasons[i] === undefined)!.message}`;
        comparison.known = known;
      } else if (checker === 'accepted' && !compiled.ok) {
        const reason = untypedReading(item.doc, item.schema, item.value)
          ? 'no type beside object or array keywords (the type reads the object or array they describe; the checker accepts any other value)'
          : compiled.diagnostic?.startsWith('TS2559:') ||
              compiled.full?.includes('has no properties in common with type')
            ? "TypeScript's weak-type check (an all-optional object type rejects a value that shares none of its properties)"
            : [...PROTOTYPE_NAMES].some(
                  (name) => compiled.full?.includes(`'${name}'`) || compiled.full?.includes(`'${name}.`),
                )
              ? 'a property named as a member of Object.prototype (TypeScript reads the prototype member)'
              : undefined;
        comparison.reason = reason ?? `the type rejects it (${compiled.diagnostic}), the checker accepts it`;
        comparison.known = reason !== undefined;
      }
      out[member.index] = comparison;
    });
  });
  return out;
}

/** Counts and lines for a report: `N agree / M` (undecided left out), and each disagreement with its reason. */
export function summarize(name: string, comparisons: Comparison[]): { line: string; disagreements: Comparison[] } {
  const decided = comparisons.filter((comparison) => comparison.checker !== 'undecided');
  const agree = decided.filter((comparison) => comparison.reason === undefined).length;
  const known = decided.filter((comparison) => comparison.known === true).length;
  return {
    line: `${name}: ${agree} agree / ${decided.length} (${comparisons.length - decided.length} undecided by the checker left out; ${known} known deviations, ${decided.length - agree - known} unexplained)`,
    disagreements: decided.filter((comparison) => comparison.reason !== undefined),
  };
}
