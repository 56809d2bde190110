/**
 * `node --import tsx scripts/compare-openapi-typescript.ts`: our response types against openapi-typescript's (a dev
 * dependency, 7.13.0) over GitHub's description (issue 15). For every operation with a 200 `application/json`
 * response, both tools' types are compiled in one TypeScript program, and the properties of the response object (of
 * its items, for an array) are compared: required or optional, and whether null is admitted. Each disagreement is
 * printed with who is right by the specification, read as validate.ts reads it (OAS 3.0.3 Schema Object):
 * `required` from any allOf branch applies (JSON Schema 2020-12, 10.2.1.1), `nullable` widens only a `type` in the
 * same Schema Object, and an enum that lists no null rejects null. Prints the counts, then one line per disagreement.
 * Exits 0; it reports, it does not judge.
 */
import { readFileSync } from 'node:fs';
import { pathToFileURL } from 'node:url';
import ts from 'typescript';
import openapiTS, { astToString } from 'openapi-typescript';
import { renderTypeScriptWithin } from '../src/contract/typescript.ts';
import { schemaFor } from '../validate.ts';
import { check } from '../validate.ts';
import { githubDescriptionPath } from '../harness/fixture-documents.ts';

type Node = Record<string, unknown>;
const isNode = (value: unknown): value is Node => value !== null && typeof value === 'object' && !Array.isArray(value);

/** One field's reading by one tool: optional or not, null admitted or not. */
type Reading = { optional: boolean; nullable: boolean };

/** The fields of the response type (of its element type, for an array), read by the TypeScript checker. */
function fieldsOf(checker: ts.TypeChecker, type: ts.Type): Map<string, Reading> | undefined {
  let target = checker.getNonNullableType(type);
  if (checker.isArrayType(target)) target = checker.getTypeArguments(target as ts.TypeReference)[0]!;
  if (target.flags & (ts.TypeFlags.Unknown | ts.TypeFlags.Any) || target.isUnion()) return undefined;
  const fields = new Map<string, Reading>();
  for (const property of checker.getPropertiesOfType(target)) {
    const declared = checker.getTypeOfSymbol(property);
    const nullable = declared.isUnion()
      ? declared.types.some((part) => part.flags & ts.TypeFlags.Null)
      : Boolean(declared.flags & ts.TypeFlags.Null);
    fields.set(property.name, { optional: Boolean(property.flags & ts.SymbolFlags.Optional), nullable });
  }
  return fields;
}

/**
 * Who is right on one field by the specification: asks validate.ts, which follows it, whether a body without the
 * field (for required) or with the field null (for nullable) passes, on the documented example when there is one.
 */
function verdictOf(
  doc: Node,
  target: { schema: unknown; schemaPath: string },
  example: unknown,
  field: string,
  what: 'required' | 'nullable',
): string {
  const list = Array.isArray(example);
  const item = list ? example[0] : example;
  if (!isNode(item)) return 'undecided (no documented example to ask the checker with)';
  const changed = { ...item };
  if (what === 'required') delete changed[field];
  else changed[field] = null;
  const at = list ? `$[0].${field}` : `$.${field}`;
  const errors = check(doc, target.schema, list ? [changed] : changed, { at: target.schemaPath }).filter(
    (finding) => finding.severity === 'error' && finding.path === at,
  );
  if (what === 'required') return errors.some((finding) => finding.kind === 'missing') ? 'required' : 'optional';
  return errors.some((finding) => finding.kind === 'wrongType' || finding.kind === 'enum')
    ? 'not nullable'
    : 'nullable';
}

/** The first documented example of a 200 application/json response (an array for a list), or undefined. */
function exampleOf(doc: Node, operation: Node): unknown {
  let response = isNode(operation.responses) ? operation.responses['200'] : undefined;
  for (let hops = 0; isNode(response) && typeof response.$ref === 'string' && hops < 5; hops++)
    response = resolve(doc, response.$ref);
  const media = isNode(response) && isNode(response.content) ? response.content['application/json'] : undefined;
  if (!isNode(media)) return undefined;
  if (Object.hasOwn(media, 'example')) return media.example;
  for (const entry of Object.values(isNode(media.examples) ? media.examples : {})) {
    let found: unknown = entry;
    if (isNode(found) && typeof found.$ref === 'string') found = resolve(doc, found.$ref);
    if (isNode(found) && Object.hasOwn(found, 'value')) return found.value;
  }
  return undefined;
}

/** The schemas that declare `field` in the response (its items, for an array), through `$ref`s and allOf. */
function declarations(doc: Node, schema: unknown, field: string): Node[] {
  const found: Node[] = [];
  const seen = new Set<unknown>();
  const walk = (node: unknown, depth: number, inside: boolean): void => {
    if (!isNode(node) || depth > 20 || seen.has(node)) return;
    seen.add(node);
    if (typeof node.$ref === 'string') walk(resolve(doc, node.$ref), depth + 1, inside);
    if (inside) found.push(node);
    if (inside) for (const branch of Array.isArray(node.allOf) ? node.allOf : []) walk(branch, depth + 1, true);
    if (inside) return;
    if (node.type === 'array') walk(node.items, depth + 1, false);
    if (isNode(node.properties) && Object.hasOwn(node.properties, field)) walk(node.properties[field], depth + 1, true);
    for (const branch of Array.isArray(node.allOf) ? node.allOf : []) walk(branch, depth + 1, false);
  };
  walk(schema, 0, false);
  return found;
}

/** Which rule of the specification the two readings differ on, from the field's schemas. */
function ruleOf(doc: Node, schema: unknown, field: string, what: 'required' | 'nullable'): string {
  const nodes = declarations(doc, schema, field);
  if (what === 'required' && nodes.some((node) => Object.hasOwn(node, 'default')))
    return "a `default` (openapi-typescript's defaultNonNullable makes such a field required; OAS 3.0.3: `default` is an annotation, and `required` does not list the field)";
  if (
    what === 'nullable' &&
    nodes.some((node) => Array.isArray(node.enum) && !node.enum.includes(null) && node.nullable === true)
  )
    return 'nullable beside an enum that lists no null (OAS 3.0.3 Schema Object, clarified in OAI/OpenAPI-Specification#1900: nullable does not extend enum)';
  if (what === 'nullable' && nodes.some((node) => node.nullable === true && node.type === undefined))
    return 'nullable without a type beside it (OAS 3.0.3 Schema Object: nullable widens only a `type` in the same Schema Object)';
  return 'other';
}

function resolve(doc: Node, ref: string): unknown {
  let node: unknown = doc;
  for (const token of ref.slice(2).split('/'))
    node = isNode(node) ? node[token.replace(/~1/g, '/').replace(/~0/g, '~')] : undefined;
  return node;
}

async function main(): Promise<void> {
  const path = githubDescriptionPath();
  const doc = JSON.parse(readFileSync(path, 'utf8')) as Node;
  const theirs = astToString(await openapiTS(pathToFileURL(path)));
  const targets: {
    key: string;
    operationId: string;
    schemaPath: string;
    schema: unknown;
    example: unknown;
    isArray: boolean;
  }[] = [];
  for (const [template, item] of Object.entries(doc.paths as Node)) {
    if (!isNode(item)) continue;
    for (const method of ['get', 'put', 'post', 'delete', 'patch']) {
      const operation = item[method];
      if (!isNode(operation) || typeof operation.operationId !== 'string') continue;
      const target = schemaFor(doc, method, template, 200, 'application/json');
      if (!target || target.statusKey !== '200') continue;
      const example = exampleOf(doc, operation);
      targets.push({
        key: operation.operationId,
        operationId: operation.operationId,
        schemaPath: target.schemaPath,
        schema: target.schema,
        example,
        isArray: false,
      });
    }
  }
  const root = {
    type: 'object',
    required: targets.map((target) => target.key),
    properties: Object.fromEntries(targets.map((target) => [target.key, { $ref: target.schemaPath }])),
  };
  const ours = renderTypeScriptWithin(doc, root, 'Root', 'response', undefined, 1e9, 1e8).typescript;
  const probe = targets
    .map(
      (target, index) =>
        `export type Theirs${index} = import('./theirs.ts').operations[${JSON.stringify(target.operationId)}]['responses'][200]['content']['application/json'];\nexport type Ours${index} = import('./ours.ts').Root[${JSON.stringify(target.key)}];`,
    )
    .join('\n');
  const files = new Map([
    ['theirs.ts', theirs],
    ['ours.ts', ours],
    ['probe.ts', probe],
  ]);
  const options: ts.CompilerOptions = {
    strict: true,
    noEmit: true,
    target: ts.ScriptTarget.ES2022,
    module: ts.ModuleKind.ESNext,
    types: [],
    skipLibCheck: true,
    allowImportingTsExtensions: true,
  };
  const host = ts.createCompilerHost(options);
  const original = host.getSourceFile.bind(host);
  host.getSourceFile = (name, version, onError, create) => {
    const text = files.get(name.replace(/^.*\//, ''));
    return text !== undefined ? ts.createSourceFile(name, text, version) : original(name, version, onError, create);
  };
  const exists = host.fileExists.bind(host);
  host.fileExists = (name) => files.has(name.replace(/^.*\//, '')) || exists(name);
  const program = ts.createProgram(['probe.ts'], options, host);
  const checker = program.getTypeChecker();
  const file = program.getSourceFile('probe.ts')!;
  const aliases = new Map<string, ts.Type>();
  for (const statement of file.statements)
    if (ts.isTypeAliasDeclaration(statement))
      aliases.set(statement.name.text, checker.getTypeAtLocation(statement.name));
  let compared = 0;
  let fields = 0;
  const lines: string[] = [];
  const rules = new Map<string, number>();
  const counts = { required: 0, nullable: 0, oursRight: 0, theirsRight: 0, undecided: 0 };
  targets.forEach((target, index) => {
    const a = aliases.get(`Theirs${index}`);
    const b = aliases.get(`Ours${index}`);
    if (!a || !b) return;
    const theirFields = fieldsOf(checker, a);
    const ourFields = fieldsOf(checker, b);
    if (!theirFields || !ourFields) return;
    compared++;
    for (const [name, their] of theirFields) {
      const our = ourFields.get(name);
      if (!our) continue;
      fields++;
      for (const what of ['required', 'nullable'] as const) {
        const differs = what === 'required' ? their.optional !== our.optional : their.nullable !== our.nullable;
        if (!differs) continue;
        counts[what]++;
        const verdict = verdictOf(doc, target, target.example, name, what);
        const ourSays =
          what === 'required' ? (our.optional ? 'optional' : 'required') : our.nullable ? 'nullable' : 'not nullable';
        const theirSays =
          what === 'required'
            ? their.optional
              ? 'optional'
              : 'required'
            : their.nullable
              ? 'nullable'
              : 'not nullable';
        const right = verdict === ourSays ? 'ours' : verdict === theirSays ? 'openapi-typescript' : 'undecided';
        if (right === 'ours') counts.oursRight++;
        else if (right === 'openapi-typescript') counts.theirsRight++;
        else counts.undecided++;
        const rule = ruleOf(doc, target.schema, name, what);
        rules.set(rule, (rules.get(rule) ?? 0) + 1);
        lines.push(
          `${target.operationId} $.${name}: ${what} (${rule.split(' (')[0]}): ours ${ourSays}, openapi-typescript ${theirSays}; the checker (the specification): ${verdict} -> ${right}`,
        );
      }
    }
  });
  console.log(
    `openapi-typescript 7.13.0 vs ours over GitHub's description: ${compared} operations' 200 responses compared, ${fields} fields; ${counts.required} disagree on required, ${counts.nullable} on nullable; right by the specification: ours ${counts.oursRight}, openapi-typescript ${counts.theirsRight}, undecided ${counts.undecided}`,
  );
  console.log('by the rule they differ on:');
  for (const [rule, count] of rules) console.log(`  ${count} x ${rule}`);
  console.log('each disagreement:');
  for (const line of lines) console.log(`  ${line}`);
}

if (process.argv[1] && import.meta.url === pathToFileURL(process.argv[1]).href) await main();
