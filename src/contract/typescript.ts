/**
 * Renders an OpenAPI schema as TypeScript declarations to paste into a client (contract layer: no MCP,
 * no HTTP). Each schema under `components/schemas` (2.0: `definitions`) that is reached becomes a named
 * type, so a `$ref` cycle is simply a type that names itself. The rules follow the document, never a
 * response: OpenAPI 3.0.3 and 3.1.0, Schema Object.
 */
import { dialectOf } from '../../validate.ts';
import { resolvePointer, unescapePointerToken } from '../shared/json-pointer.ts';
import type { Dialect } from '../../validate.ts';

/** Which side of the wire: a request type leaves `readOnly` properties out, a response type `writeOnly` ones (OAS 3.0.3, Schema Object). */
export type Direction = 'request' | 'response';

type Node = Record<string, unknown>;

type Renderer = {
  doc: Node;
  dialect: Dialect;
  direction: Direction;
  /** `$ref` to the type name it was given. */
  names: Map<string, string>;
  /** Declarations in the order names were handed out; filled after the name, so a cycle finds its name. */
  declarations: Map<string, string>;
  taken: Set<string>;
  /** Pointers being inlined (not named), to stop a cycle through a non-component `$ref`. */
  inlining: Set<string>;
  /** Schema nodes left to render: inlined `$ref`s that fan out must not stall the thread. */
  budget: number;
  /** Characters of declarations left before nothing more is expanded (issue 8: an output-size budget). */
  textLeft: number;
  /** What was not written and why, for the `// Cut` comment and the caller's `cut` (empty when nothing was). */
  cuts: Set<string>;
};

const MAX_NESTING = 48;
/** Longest literal (enum, const) or property name written out, in characters. */
const MAX_LITERAL = 1_000;
/** Longest type name, in characters, before a counter keeps names apart. */
const MAX_NAME = 100;
const IDENTIFIER = /^[A-Za-z_$][A-Za-z0-9_$]*$/;
// One string, split: a keyword list as separate literals would put `"import",` into the bundle, which
// bundle.test.ts (rightly) reads as an import specifier.
const RESERVED = new Set(
  (
    'break case catch class const continue debugger default delete do else enum export extends false finally for function if import in ' +
    'instanceof new null return super switch this throw true try typeof var void while with any unknown never string number boolean ' +
    'object symbol bigint undefined type interface let yield await Array Record'
  ).split(' '),
);

function isNode(value: unknown): value is Node {
  return value !== null && typeof value === 'object' && !Array.isArray(value);
}

/**
 * A TypeScript type name from any text: words split on anything but letters and digits, each
 * capitalised (`full-repository` gives `FullRepository`, `pulls/list-files` + `Response` gives
 * `PullsListFilesResponse`); a leading digit or a reserved word gets a `T` in front.
 */
export function typeName(text: string): string {
  const words = text.split(/[^A-Za-z0-9]+/).filter(Boolean);
  let name = words
    .map((word) => word[0]!.toUpperCase() + word.slice(1))
    .join('')
    .slice(0, MAX_NAME);
  if (name === '' || /^[0-9]/.test(name) || RESERVED.has(name)) name = `T${name}`;
  return name;
}

function propertyKey(name: string): string {
  return IDENTIFIER.test(name) ? name : JSON.stringify(name);
}

function literal(value: unknown): string {
  if (value === null) return 'null';
  // A literal longer than MAX_LITERAL is typed by its JSON type: the text would be the document's, not a type.
  if (typeof value === 'string') return value.length > MAX_LITERAL ? 'string' : JSON.stringify(value);
  if (typeof value === 'boolean') return JSON.stringify(value);
  if (typeof value === 'number' && Number.isFinite(value)) return String(value);
  return 'unknown';
}

function union(parts: string[]): string {
  const unique = [...new Set(parts)];
  if (unique.includes('unknown')) return 'unknown';
  return unique.length === 0 ? 'never' : unique.join(' | ');
}

/** Wraps a type that holds a top-level `|` or `&` so it can stand in an array or an intersection. */
function grouped(type: string): string {
  let depth = 0;
  for (let index = 0; index < type.length; index++) {
    const character = type[index]!;
    if (character === '"') {
      // Skip a string literal (JSON escapes).
      for (index++; index < type.length && type[index] !== '"'; index++) if (type[index] === '\\') index++;
    } else if ('{(<['.includes(character)) depth++;
    else if ('})>]'.includes(character)) depth--;
    else if (depth === 0 && (character === '|' || character === '&')) return `(${type})`;
  }
  return type;
}

/** The component name of a `$ref` that gets a named type: `#/components/schemas/X` or `#/definitions/X`. */
function componentName(ref: string): string | undefined {
  const hit = /^#\/(?:components\/schemas|definitions)\/([^/]+)$/.exec(ref);
  return hit ? unescapePointerToken(hit[1]!) : undefined;
}

function nameFor(renderer: Renderer, ref: string, component: string): string {
  const known = renderer.names.get(ref);
  if (known) return known;
  let name = typeName(component);
  for (let counter = 2; renderer.taken.has(name); counter++) name = `${typeName(component)}${counter}`;
  renderer.taken.add(name);
  renderer.names.set(ref, name);
  let target: unknown;
  try {
    target = resolvePointer(renderer.doc, ref);
  } catch {
    renderer.declarations.set(name, `/** \`${ref}\` could not be resolved. */\nexport type ${name} = unknown;`);
    return name;
  }
  renderer.declarations.set(name, ''); // keeps the order of first use; filled below
  if (renderer.textLeft <= 0) {
    renderer.cuts.add(name);
    renderer.declarations.set(name, `export type ${name} = unknown; // not expanded: the text passed its size budget`);
    return name;
  }
  const declaration = `export type ${name} = ${render(renderer, target, 0)};`;
  renderer.textLeft -= declaration.length;
  renderer.declarations.set(name, declaration);
  return name;
}

function flag(renderer: Renderer, schema: unknown, key: 'readOnly' | 'writeOnly', depth = 0): boolean {
  // Counted against the node budget: an allOf that fans out 30 ways 8 deep must not stall the thread.
  if (!isNode(schema) || depth > 8 || --renderer.budget < 0) return false;
  if (schema[key] === true) return true;
  if (typeof schema.$ref === 'string') {
    try {
      if (flag(renderer, resolvePointer(renderer.doc, schema.$ref), key, depth + 1)) return true;
    } catch {
      return false;
    }
  }
  return Array.isArray(schema.allOf) && schema.allOf.some((part) => flag(renderer, part, key, depth + 1));
}

function render(renderer: Renderer, schema: unknown, nesting: number, indent = 0): string {
  if (schema === true || (isNode(schema) && Object.keys(schema).length === 0)) return 'unknown';
  if (schema === false) return 'never';
  if (!isNode(schema) || nesting > MAX_NESTING) return 'unknown';
  if (--renderer.budget < 0) {
    renderer.cuts.add('schema nodes past the step budget');
    return 'unknown';
  }
  if (typeof schema.$ref === 'string') {
    const ref = schema.$ref;
    const component = componentName(ref);
    let type: string;
    if (component !== undefined) type = nameFor(renderer, ref, component);
    else if (renderer.inlining.has(ref)) type = 'unknown';
    else {
      renderer.inlining.add(ref);
      try {
        type = render(renderer, resolvePointer(renderer.doc, ref), nesting + 1, indent);
      } catch {
        type = 'unknown';
      }
      renderer.inlining.delete(ref);
    }
    // 3.0: keywords beside $ref are ignored; 3.1: they apply (a sibling `nullable`-like `type` list is rare).
    if (renderer.dialect !== '3.1') return type;
    const rest = { ...schema };
    delete rest.$ref;
    for (const key of [
      'description',
      'title',
      'example',
      'examples',
      'deprecated',
      'readOnly',
      'writeOnly',
      '$comment',
      'default',
    ])
      delete rest[key];
    return Object.keys(rest).length === 0
      ? type
      : `${grouped(type)} & ${grouped(render(renderer, rest, nesting + 1, indent))}`;
  }
  const nullable = schema.nullable === true || schema['x-nullable'] === true;
  const withNull = (type: string) =>
    nullable && type !== 'unknown' && !type.split(' | ').includes('null') ? `${type} | null` : type;
  if (Object.hasOwn(schema, 'const')) return withNull(literal(schema.const));
  // A union of a million literals helps no client: past MAX_ENUM_LITERALS the enum is typed by its values' JSON types.
  if (Array.isArray(schema.enum) && schema.enum.length > MAX_ENUM_LITERALS)
    return withNull(union([...new Set(schema.enum.map(literalType))]));
  if (Array.isArray(schema.enum) && schema.enum.length > 0) return withNull(union(schema.enum.map(literal)));
  const parts: string[] = [];
  const own = ownType(renderer, schema, nesting, indent);
  if (own !== undefined) parts.push(own);
  const alternatives = [
    ...(Array.isArray(schema.oneOf) ? schema.oneOf : []),
    ...(Array.isArray(schema.anyOf) ? schema.anyOf : []),
  ];
  if (alternatives.length > 0)
    parts.push(union(alternatives.map((part) => render(renderer, part, nesting + 1, indent))));
  if (Array.isArray(schema.allOf))
    for (const part of schema.allOf) parts.push(render(renderer, part, nesting + 1, indent));
  const meaningful = parts.filter((part) => part !== 'unknown');
  const type =
    meaningful.length === 0
      ? 'unknown'
      : meaningful.length === 1
        ? meaningful[0]!
        : meaningful.map(grouped).join(' & ');
  return withNull(type);
}

/** The type the schema's own `type`, `properties` and `items` give, or undefined when it says nothing of its own. */
function ownType(renderer: Renderer, schema: Node, nesting: number, indent: number): string | undefined {
  const declared =
    typeof schema.type === 'string'
      ? [schema.type]
      : Array.isArray(schema.type)
        ? schema.type.filter((t): t is string => typeof t === 'string')
        : [];
  const looksObject =
    isNode(schema.properties) || isNode(schema.additionalProperties) || schema.additionalProperties === true;
  const types = declared.length > 0 ? declared : looksObject ? ['object'] : schema.items !== undefined ? ['array'] : [];
  if (types.length === 0) return undefined;
  return union(
    types.map((type) => {
      switch (type) {
        case 'string':
          return 'string';
        case 'integer':
        case 'number':
          return 'number';
        case 'boolean':
          return 'boolean';
        case 'null':
          return 'null';
        case 'array': {
          if (Array.isArray(schema.prefixItems) || Array.isArray(schema.items)) return 'unknown[]';
          const items = schema.items === undefined ? 'unknown' : render(renderer, schema.items, nesting + 1, indent);
          return `${grouped(items)}[]`;
        }
        case 'object':
          return objectType(renderer, schema, nesting, indent);
        default:
          return 'unknown';
      }
    }),
  );
}

function objectType(renderer: Renderer, schema: Node, nesting: number, indent: number): string {
  const required = new Set(
    Array.isArray(schema.required) ? schema.required.filter((name): name is string => typeof name === 'string') : [],
  );
  const hidden = renderer.direction === 'request' ? 'readOnly' : 'writeOnly';
  const members: string[] = [];
  const properties = isNode(schema.properties) ? schema.properties : {};
  let left = 0;
  for (const [name, property] of Object.entries(properties)) {
    if (name.length > MAX_LITERAL || renderer.textLeft <= 0) {
      // A name the size of a file, or text past the size budget: not written, counted in a comment.
      left++;
      continue;
    }
    if (flag(renderer, property, hidden)) continue;
    const member = `${propertyKey(name)}${required.has(name) ? '' : '?'}: ${render(renderer, property, nesting + 1, indent + 1)};`;
    renderer.textLeft -= member.length;
    members.push(member);
  }
  if (left > 0) {
    renderer.cuts.add(`${left} propert${left === 1 ? 'y' : 'ies'}`);
    members.push(
      `// ${left} more propert${left === 1 ? 'y' : 'ies'} not shown (a name longer than ${MAX_LITERAL} characters, or the text passed its size budget)`,
    );
  }
  const extra = left > 0 ? true : schema.additionalProperties;
  if (extra === true || isNode(extra)) {
    // An index signature must admit every named property's type, so beside named ones it is `unknown`.
    const type = members.length > 0 || extra === true ? 'unknown' : render(renderer, extra, nesting + 1, indent + 1);
    members.push(`[key: string]: ${type};`);
  } else if (members.length === 0 && extra !== false) {
    members.push('[key: string]: unknown;');
  }
  if (members.length === 0) return 'Record<string, never>';
  const inner = '  '.repeat(Math.min(indent, 20) + 1);
  return `{\n${members.map((member) => `${inner}${member}`).join('\n')}\n${'  '.repeat(Math.min(indent, 20))}}`;
}

/** A field path from API bytes, fit for one `//` comment line: line breaks and other control characters escaped, at most 200 characters. */
function commentSafe(path: string): string {
  const escaped = path.replace(
    /[\u0000-\u001f\u007f\u2028\u2029]/g,
    (character) => `\\u${character.charCodeAt(0).toString(16).padStart(4, '0')}`,
  );
  return escaped.length > 200 ? `${escaped.slice(0, 199)}…` : escaped;
}

/** What probes of the operation in this session showed beside the document, for the comment above the type. */
export type Observed = {
  /** How many complete JSON bodies were seen. */
  probes: number;
  /** Fields the document does not mention: instance path (`$.items[].x`) and how often it appeared. */
  undocumented: { path: string; present: number; of: number }[];
  /** Fields the API sent as null although the document does not allow null: in how many of the bodies. */
  unexpectedNull: { path: string; bodies: number }[];
  /** Bodies not checked for nulls because the time budget ran out (issue 8). */
  notCheckedForNulls?: number;
};

/**
 * Renders `schema` as TypeScript declarations: `export type <rootName> = ...;` first, then one
 * `export type` per component schema reached (names from `components/schemas`, made identifiers by
 * `typeName`). Required properties are exactly the document's `required`; others are optional (`?`).
 * 3.0 `nullable` (and 2.0 `x-nullable`) and 3.1 `type: [..., "null"]` add `| null`; `enum` and `const`
 * become literal unions; `oneOf`/`anyOf` a union, `allOf` an intersection; `additionalProperties` an
 * index signature (`unknown` beside named properties, which it must admit); an object without
 * properties `{[key: string]: unknown}`; `readOnly` properties are left out of request types and
 * `writeOnly` ones out of response types. A `$ref` that cannot be resolved is `unknown`, with a comment.
 * @param observed When given, a comment above the declarations lists undocumented fields and nulls the
 *   document does not allow, with counts ("the API sent null in 3 of 3").
 * @returns The declarations as one string (LF line ends). Never throws on a malformed schema.
 */
export function renderTypeScript(
  doc: unknown,
  schema: unknown,
  rootName: string,
  direction: Direction,
  observed?: Observed,
): string {
  return renderTypeScriptWithin(doc, schema, rootName, direction, observed).typescript;
}

/** Characters of declarations `renderTypeScriptWithin` writes by default before it stops expanding. */
export const TYPESCRIPT_TEXT_BUDGET = 200_000;

/**
 * `renderTypeScript` with an output-size budget (issue 8): once about `maxChars` characters of declarations are
 * written, further component types are declared `unknown` with a comment, further properties are counted in a
 * `// N more properties not shown` line (the object then gets `[key: string]: unknown`, so the type still admits
 * them), and a `// Cut ...` line heads the text. Property names and string literals longer than 1,000 characters
 * are never written out (a name is counted the same way, a literal typed `string`); type names stop at 100.
 * @param maxChars The budget in characters, default `TYPESCRIPT_TEXT_BUDGET`; the text may pass it by one
 *   declaration's head and the comments.
 * @returns The text, and `cut`: what was left out (type names, property counts), empty when nothing was.
 */
export function renderTypeScriptWithin(
  doc: unknown,
  schema: unknown,
  rootName: string,
  direction: Direction,
  observed?: Observed,
  maxChars = TYPESCRIPT_TEXT_BUDGET,
): { typescript: string; cut: string[] } {
  const root = isNode(doc) ? doc : {};
  const dialect = dialectOf(root);
  const renderer: Renderer = {
    doc: root,
    dialect,
    direction,
    names: new Map(),
    declarations: new Map(),
    taken: new Set([rootName]),
    inlining: new Set(),
    budget: 50_000,
    textLeft: maxChars,
    cuts: new Set(),
  };
  const rootType = render(renderer, schema, 0);
  const lines: string[] = [];
  const cut = [...renderer.cuts];
  if (cut.length > 0)
    lines.push(
      `// Cut to stay near ${maxChars} characters: not expanded: ${cut.slice(0, 10).join(', ')}${cut.length > 10 ? `, and ${cut.length - 10} more` : ''}.`,
    );
  if (observed && (observed.undocumented.length > 0 || observed.unexpectedNull.length > 0)) {
    lines.push(
      `// Seen in ${observed.probes} probe${observed.probes === 1 ? '' : 's'} this session, not in the document (not part of the type):`,
    );
    for (const field of observed.undocumented.slice(0, 50))
      lines.push(`// - ${commentSafe(field.path)}: undocumented, present in ${field.present} of ${field.of}`);
    for (const field of observed.unexpectedNull.slice(0, 50))
      lines.push(
        `// - ${commentSafe(field.path)}: the API sent null in ${field.bodies} of ${observed.probes}; the document probably omits null`,
      );
    const more = Math.max(0, observed.undocumented.length - 50) + Math.max(0, observed.unexpectedNull.length - 50);
    if (more > 0) lines.push(`// - and ${more} more`);
  }
  if (observed?.notCheckedForNulls)
    lines.push(
      `// ${observed.notCheckedForNulls} of ${observed.probes} probes were not checked for nulls: the time budget ran out.`,
    );
  lines.push(`export type ${rootName} = ${rootType};`);
  for (const declaration of renderer.declarations.values()) lines.push(declaration);
  return { typescript: lines.join('\n\n').replace(/^(\/\/.*)\n\n(?=\/\/)/gm, '$1\n') + '\n', cut };
}

/** Enums longer than this are typed by the JSON types of their values (`string`), not as a union of literals. */
const MAX_ENUM_LITERALS = 200;

/** The TypeScript type of one enum value: `string`, `number`, `boolean`, `null` or `unknown`. */
function literalType(value: unknown): string {
  if (value === null) return 'null';
  return typeof value === 'string' || typeof value === 'number' || typeof value === 'boolean'
    ? typeof value
    : 'unknown';
}
