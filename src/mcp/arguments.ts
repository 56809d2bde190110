/**
 * Argument checks of a tool call against the tool's own `inputSchema`, linear in the size of the call and
 * stopping early, with failures in words the agent can act on (MCP 2025-11-25, Tools, Error Handling).
 */
import { check } from '../../validate.ts';
import { instancePath, lookupPointer } from '../shared/json-pointer.ts';
import type { Tool } from './tool.ts';
import { LARGE_ARGUMENTS } from './wire.ts';
import { codePoints } from '../shared/text.ts';
/**
 * The size of a tool call's arguments, in characters of JSON, past which the call is refused before its
 * arguments are checked: every argument but the recorded or drafted body (`LARGE_ARGUMENTS`), which only the
 * line limit (`MAX_LINE`) bounds. Paths, queries, selectors and headers are far smaller; the cap keeps what
 * the main thread checks and what a reply echoes small (issue 8: ping within 100 ms).
 */
export const MAX_ARGUMENTS = 64 * 1024;

/** The document the tools' inputSchemas are checked in: one object, so validate.ts's per-document caches serve every call. */
const ARGUMENT_SCHEMAS_DOCUMENT = {};

/** How many unknown argument names a failure lists; past that many the call is refused before any value is read. */
const LISTED_NAMES = 5;

/**
 * Checks a tool's arguments against that tool's own `inputSchema` with the schema checks of
 * `validate.ts` (JSON Schema 2020-12), so what `tools/list` declares and what is accepted cannot
 * disagree. Every inputSchema closes its object (`additionalProperties: false`), so unknown
 * names are caught by the same check. Bad arguments are tool failures (MCP 2025-11-25, Tools, Error Handling).
 *
 * Linear in the size of the call, and it stops early: unknown names are found in one pass (more than
 * `LISTED_NAMES` of them refuse the call at once, naming the first few and the count); an argument past its
 * schema's `maxItems`, `maxProperties` or `maxLength` is refused from its count, before its items are walked;
 * arguments other than `LARGE_ARGUMENTS` past `MAX_ARGUMENTS` characters of JSON are refused naming the limit.
 * @param args The call's `arguments`, already known to be an object.
 * @returns `undefined` when the arguments conform; else the failure text, in words: unknown names as
 *   `Unknown argument for probe: method. It takes: path, query.`, other problems after
 *   `Refused, nothing was sent:` one sentence each, naming the argument (`paths[0]`), what is wrong, and
 *   the first time an argument is named, its description from the schema (for a `pattern` or `propertyNames` refusal,
 *   else the tool's `hints` for it).
 */
export function argumentProblem(tool: Tool, args: Record<string, unknown>): string | undefined {
  const properties = (tool.inputSchema.properties ?? {}) as Record<
    string,
    { description?: string; maxItems?: number; maxProperties?: number; maxLength?: number }
  >;
  const names = Object.keys(args);
  // Unknown names in the order the client wrote them, the first few listed.
  const unknown: string[] = [];
  let unknownCount = 0;
  for (const name of names) {
    if (Object.hasOwn(properties, name)) continue;
    unknownCount++;
    if (unknown.length < LISTED_NAMES) unknown.push(name);
  }
  const more = unknownCount > unknown.length ? ` and ${unknownCount - unknown.length} more` : '';
  const unknownText = unknownCount
    ? `Unknown argument${unknownCount > 1 ? 's' : ''} for ${tool.name}: ${unknown.map((name) => name.slice(0, 80)).join(', ')}${more}. It takes: ${Object.keys(properties).join(', ')}.`
    : '';
  if (unknownCount > LISTED_NAMES) return unknownText;
  const refused = (sentence: string) => `Refused, nothing was sent: ${sentence}${unknownText ? ` ${unknownText}` : ''}`;
  // Counts first: an argument past its schema's natural size is refused before its items or keys are walked.
  for (const name of names) {
    const schema = Object.hasOwn(properties, name) ? properties[name]! : undefined;
    const over = schema ? sizeProblem(args[name], schema) : undefined;
    if (over)
      return refused(
        `\`${name}\` ${over}${schema!.description ? ` (${name}: ${schema!.description.replace(/\.$/, '')})` : ''}.`,
      );
  }
  const large = LARGE_ARGUMENTS[tool.name];
  // The JSON text of those members as an object: braces, `"name":value` each, commas between.
  let size = 1;
  for (const name of names)
    if (name !== large) size += JSON.stringify(name).length + 2 + (JSON.stringify(args[name])?.length ?? 0);
  if (size > MAX_ARGUMENTS) {
    return refused(
      `the arguments${large ? ` other than \`${large}\`` : ''} take ${size} characters of JSON, more than the limit of ${MAX_ARGUMENTS} (64 KiB); send a shorter path, query, selector or header values.`,
    );
  }
  const findings = check(ARGUMENT_SCHEMAS_DOCUMENT, tool.inputSchema, args).filter(
    (finding) => finding.severity === 'error',
  );
  if (findings.length === 0) return undefined;
  const unknownPaths = new Set(unknown.map((key) => instancePath([key])));
  const sentences: string[] = [];
  const described = new Set<string>();
  for (const finding of findings) {
    if (finding.kind === 'undocumented' && unknownPaths.has(finding.path)) continue;
    const shown = finding.path.startsWith('$.') ? finding.path.slice(2) : finding.path.slice(1);
    const top = /^[A-Za-z_][A-Za-z0-9_]*/.exec(shown)?.[0] ?? '';
    let sentence = `\`${shown}\` `;
    if (finding.kind === 'missing') sentence += 'is required';
    else if (finding.kind === 'wrongType')
      sentence += `must be ${expectedTypes(tool.inputSchema, finding.schemaPath) ?? withArticle(finding.expected ?? 'another type')}, got ${withArticle(finding.actual ?? 'another type')}`;
    else sentence += finding.message;
    // A pattern says what it must be only to a regex reader: its refusal quotes the tool's hint when there is no description.
    const hint = /\/(pattern|propertyNames)$/.test(finding.schemaPath) ? tool.hints?.[top] : undefined;
    const description = Object.hasOwn(properties, top) ? (properties[top]!.description ?? hint) : undefined;
    if (description && !described.has(top)) {
      described.add(top);
      sentence += ` (${top}: ${description.replace(/\.$/, '')})`;
    }
    sentences.push(`${sentence}.`);
  }
  if (sentences.length === 0) return unknownText;
  return `Refused, nothing was sent: ${[...sentences, unknownText].filter(Boolean).join(' ')}`;
}

/**
 * An argument past its schema's `maxItems`, `maxProperties` or `maxLength` (JSON Schema 2020-12, 6.3 and 6.4), found
 * from its length or key count without walking its items, in the words of validate.ts: `has 11 items, more than maxItems 10`.
 * @returns The clause, or `undefined` when the value is within those three (or of another type).
 */
function sizeProblem(
  value: unknown,
  schema: { maxItems?: number; maxProperties?: number; maxLength?: number },
): string | undefined {
  if (Array.isArray(value))
    return schema.maxItems !== undefined && value.length > schema.maxItems
      ? `has ${value.length} items, more than maxItems ${schema.maxItems}`
      : undefined;
  if (typeof value === 'string' && schema.maxLength !== undefined && value.length > schema.maxLength) {
    // maxLength counts characters (code points): a surrogate pair is one.
    const characters = codePoints(value);
    return characters > schema.maxLength
      ? `is ${characters} characters long, more than maxLength ${schema.maxLength}`
      : undefined;
  }
  if (value !== null && typeof value === 'object' && schema.maxProperties !== undefined) {
    const count = Object.keys(value).length;
    return count > schema.maxProperties
      ? `has ${count} properties, more than maxProperties ${schema.maxProperties}`
      : undefined;
  }
  return undefined;
}

/**
 * The types an `anyOf` of bare `{type}` branches allows, as one phrase (`a string, number or boolean`), when the
 * failed `type` at `schemaPath` (`#/properties/query/additionalProperties/anyOf/0/type`) is one of its branches: the
 * checker reports the closest branch, but the argument may be any of them.
 * @returns The phrase, or `undefined` when the type is not a branch of such an `anyOf`.
 */
function expectedTypes(schema: unknown, schemaPath: string): string | undefined {
  const branch = /^(#.*\/anyOf)\/[0-9]+\/type$/.exec(schemaPath);
  if (!branch) return undefined;
  const found = lookupPointer(schema, branch[1]!);
  if (!found.found || !Array.isArray(found.value)) return undefined;
  const types = found.value.map((entry) =>
    entry !== null && typeof entry === 'object' && Object.keys(entry).length === 1 ? entry.type : undefined,
  );
  if (types.length < 2 || !types.every((type) => typeof type === 'string')) return undefined;
  const [first, ...rest] = types as string[];
  const last = rest.pop();
  return `${withArticle(first!)}${rest.map((type) => `, ${type}`).join('')} or ${last}`;
}

/** `string` -> `a string`, `integer` -> `an integer`, `null` -> `null`; a JSON type name as a noun phrase. */
function withArticle(type: string): string {
  if (type === 'null') return 'null';
  return `${/^[aeiou]/.test(type) ? 'an' : 'a'} ${type}`;
}
