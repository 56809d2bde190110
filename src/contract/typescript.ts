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
  /** Applied to document text before it is cut or made a type name (`renderTypeScriptWithin`'s `clean`). */
  clean: (text: string) => string;
};

const MAX_NESTING = 48;
/** Longest literal (enum, const) or property name written out, in characters. */
const MAX_LITERAL = 1_000;
/** Most JSON values (items, members, leaves) one enum or const value is written out with; past it they are `unknown`. */
const MAX_LITERAL_NODES = 2_000;
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

/**
 * A JSON value as a literal type: arrays as tuples, objects as type literals (which, as any object type, admit more
 * fields from a variable). Past MAX_LITERAL characters, or nested deeper than 8, a value is typed by its JSON type.
 */
function literal(value: unknown, depth = 0, left = { nodes: MAX_LITERAL_NODES }): string {
  // Counted across the whole value: 50 keys nested 8 deep would otherwise be 50^8 nodes.
  if (--left.nodes < 0) return 'unknown';
  if (value === null) return 'null';
  // A literal longer than MAX_LITERAL is typed by its JSON type: the text would be the document's, not a type.
  if (typeof value === 'string') return value.length > MAX_LITERAL ? 'string' : JSON.stringify(value);
  if (typeof value === 'boolean') return JSON.stringify(value);
  if (typeof value === 'number' && Number.isFinite(value)) return String(Object.is(value, -0) ? 0 : value);
  if (Array.isArray(value))
    return value.length > 50 || depth > 8
      ? 'unknown[]'
      : `[${value.map((item) => literal(item, depth + 1, left)).join(', ')}]`;
  if (isNode(value)) {
    const entries = Object.entries(value);
    if (entries.length > 50 || depth > 8 || entries.some(([key]) => key.length > MAX_LITERAL))
      return '{ [key: string]: unknown }';
    return entries.length === 0
      ? '{ [key: string]: unknown }'
      : `{ ${entries.map(([key, item]) => `${propertyKey(key)}: ${literal(item, depth + 1, left)};`).join(' ')} }`;
  }
  return 'unknown';
}

function union(parts: string[]): string {
  // `never` adds nothing to a union (a `false` or `not: {}` branch).
  const unique = [...new Set(parts)].filter((part) => part !== 'never');
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
  // Request types name their components with a suffix, so a request type and a response type of one operation
  // (where `Tag` may differ by readOnly fields) can be pasted into one file; `taken` holds every component's name.
  // Cleaned before typeName cuts it: a key in the name leaves no prefix of itself in the type name (issue 18).
  const cleaned = renderer.clean(component);
  const base = renderer.direction === 'request' ? typeName(`${cleaned} Request`) : typeName(cleaned);
  let name = base;
  for (let counter = 2; renderer.taken.has(name); counter++) name = `${base}${counter}`;
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

/**
 * The schema as a TypeScript type. `context` is the JSON types (`type` names) the enclosing schemas already allow the
 * same instance (the `type` beside an anyOf, say), undefined when they say nothing; it decides what a branch without
 * `type` admits beside its shape (`branchTypes`).
 */
function render(renderer: Renderer, schema: unknown, nesting: number, indent = 0, context?: readonly string[]): string {
  if (schema === true || (isNode(schema) && Object.keys(schema).length === 0)) return 'unknown';
  if (schema === false) return 'never';
  if (!isNode(schema) || nesting > MAX_NESTING) return 'unknown';
  // `not` of a schema every value passes rejects every value (2020-12, 10.2.1.4); any other `not` no type can say.
  if (schema.not === true || (isNode(schema.not) && Object.keys(schema.not).length === 0)) return 'never';
  if (--renderer.budget < 0) {
    renderer.cuts.add('schema nodes past the step budget');
    return 'unknown';
  }
  if (typeof schema.$ref === 'string') {
    const ref = schema.$ref;
    // 3.0 and 2.0: keywords beside $ref are ignored (OAS 3.0.3, Reference Object); 3.1: they apply beside it, as
    // one more allOf branch would (JSON Schema 2020-12, 8.2.3.1), so `required` beside a `$ref` makes the field
    // required (case 64).
    if (renderer.dialect === '3.1') {
      const rest = { ...schema };
      delete rest.$ref;
      for (const key of ANNOTATIONS) delete rest[key];
      if (Object.keys(rest).length > 0)
        return render(
          renderer,
          { ...rest, allOf: [{ $ref: ref }, ...(Array.isArray(rest.allOf) ? rest.allOf : [])] },
          nesting + 1,
          indent,
          context,
        );
    }
    const type = refType(renderer, ref, nesting, indent);
    // The checker reads it so too, with a hint (validate.ts evalSchema): the document likely meant null here.
    return renderer.dialect !== '3.1' && schema.nullable === true
      ? `${type} /* nullable beside $ref is ignored (OAS 3.0.3) */`
      : type;
  }
  const parts: string[] = [];
  const notes: string[] = [];
  const types = typeList(renderer, schema);
  // What the schemas around this one, its own `type` and its allOf branches' allow the instance (2020-12, 10.2.1.1:
  // every branch applies): what its branches may add beside a shape, and what its enum and type list keep. TypeScript
  // cannot say it by intersecting alone: an array is an object to it, and `boolean & {b?: unknown}` admits `true`.
  const inner = intersectTypes(context, declaredTypes(renderer, schema, { left: MAX_DECLARED_STEPS }));
  if (inner !== undefined && inner.length === 0) return 'never';
  if (Object.hasOwn(schema, 'const') && inner !== undefined && !fitsTypes(inner, schema.const)) return 'never';
  if (
    types === undefined &&
    renderer.dialect !== '3.1' &&
    (schema.nullable === true || schema['x-nullable'] === true) &&
    !(Array.isArray(schema.enum) && schema.enum.includes(null))
  )
    // The checker reads it so (validate.ts typeList): `nullable` widens only a `type` in the same Schema Object.
    notes.push('nullable without type admits no null (OAS 3.0.3)');
  // The schema's own alternatives (its type list, or its enum or const); `OBJECT_IN_COMPOSITION` beside allOf.
  let own: string[] | undefined;
  if (Object.hasOwn(schema, 'const')) own = [literal(schema.const)];
  else if (Array.isArray(schema.enum)) {
    // enum is an assertion of its own: null passes only when the enum lists it, whatever `nullable` or the
    // type list say (OAS 3.0.3 Schema Object; JSON Schema 2020-12 6.1.2), and a value must also fit `type`.
    const values = inner === undefined ? schema.enum : schema.enum.filter((value) => fitsTypes(inner, value));
    if (types?.includes('null') && !values.includes(null)) notes.push('null is not in the enum, so it is rejected');
    // A union of a million literals helps no client: past MAX_ENUM_LITERALS the enum is typed by its values' JSON types.
    const left = { nodes: MAX_LITERAL_NODES };
    own =
      values.length > MAX_ENUM_LITERALS
        ? [...new Set(values.map(literalType))]
        : values.map((value) => literal(value, 0, left));
  } else own = ownType(renderer, schema, types && inner, nesting, indent);
  const alternatives = [
    ...(Array.isArray(schema.oneOf) ? schema.oneOf : []),
    ...(Array.isArray(schema.anyOf) ? schema.anyOf : []),
  ];
  if (Array.isArray(schema.allOf)) parts.push(...composition(renderer, schema, own, nesting, indent, inner));
  else if (own !== undefined) parts.push(union(own));
  if (alternatives.length > 0)
    parts.push(union(alternatives.flatMap((part) => branchTypes(renderer, part, nesting, indent, inner))));
  parts.push(...conditionals(renderer, schema, nesting, indent, inner));
  const meaningful = [...new Set(parts.filter((part) => part !== 'unknown'))];
  const type =
    meaningful.length === 0
      ? 'unknown'
      : meaningful.length === 1
        ? meaningful[0]!
        : meaningful.map(grouped).join(' & ');
  return notes.length > 0 ? `${type} /* ${notes.join('; ')} */` : type;
}

/**
 * Annotation keywords: beside a 3.1 `$ref` they leave it a plain reference (as validate.ts `isPureRef` reads them), and
 * beside `type` in an `if` they leave a condition on the JSON type alone.
 */
export const ANNOTATIONS: readonly string[] = [
  'description',
  'summary',
  'title',
  'example',
  'examples',
  'deprecated',
  'readOnly',
  'writeOnly',
  '$comment',
  'default',
];

/** Keywords an allOf branch may hold and still be merged into one object type with its neighbours. */
const MERGEABLE = new Set([
  ...ANNOTATIONS,
  'type',
  'properties',
  'required',
  'additionalProperties',
  'allOf',
  'nullable',
  'discriminator',
  'externalDocs',
  'xml',
]);

/**
 * `render` for a part of a union, an intersection or a conditional, counted against the text budget (members and
 * declarations are counted where they are written): past it the part is `unknown` and the cut says so.
 */
function renderPart(
  renderer: Renderer,
  schema: unknown,
  nesting: number,
  indent: number,
  context?: readonly string[],
): string {
  if (renderer.textLeft <= 0) {
    renderer.cuts.add('parts past the text budget');
    return 'unknown';
  }
  const type = render(renderer, schema, nesting + 1, indent, context);
  renderer.textLeft -= type.length;
  return type;
}

/** Each JSON type as the TypeScript type of all its values. */
const JSON_TYPES = {
  null: 'null',
  boolean: 'boolean',
  number: 'number',
  string: 'string',
  array: 'unknown[]',
  object: '{ [key: string]: unknown }',
} as const;

/**
 * An anyOf or oneOf branch as members of the union. A branch without `type` whose object keywords (`properties`,
 * `required`, `additionalProperties`) or array keywords (`items`, `prefixItems`) render as that shape also admits every
 * other JSON type the context allows: JSON Schema 2020-12, 10.3, applies each keyword to its own instance type only, so
 * `anyOf: [{required: ["a"]}]` accepts `"a"`, as the checker does. Beside `type: object` (the usual
 * "one of these required sets") the context adds nothing. A branch whose own keywords give the shape while its allOf,
 * anyOf, oneOf, not or if speak of the value too admits those other types where they pass the rest of the branch
 * (`others & rest`). Elsewhere (a property, an item, the root) such a schema still
 * reads as the shape the document describes, the oracle's known deviation.
 */
function branchTypes(
  renderer: Renderer,
  branch: unknown,
  nesting: number,
  indent: number,
  context: readonly string[] | undefined,
): string[] {
  const type = renderPart(renderer, branch, nesting, indent, context);
  const shape = impliedShape(renderer, branch);
  const own = shape === undefined ? ownShape(branch) : undefined;
  if ((shape === undefined && own === undefined) || shape === 'none' || type === 'unknown') return [type];
  const allowed = context ?? Object.keys(JSON_TYPES);
  const others = Object.entries(JSON_TYPES)
    .filter(
      ([name]) =>
        name !== (shape ?? own) && (allowed.includes(name) || (name === 'number' && allowed.includes('integer'))),
    )
    .map(([, typescript]) => typescript);
  if (shape !== undefined || others.length === 0) return [grouped(type), ...others];
  // The shape is the branch's own, but its allOf, anyOf, oneOf, not or if also speak of the value: another JSON type
  // passes the shape's keywords and must still pass those (`{properties: ..., allOf: [{enum: [{a: 1}, 1]}]}` admits 1).
  const rest: Node = {};
  for (const [key, value] of Object.entries(branch as Node)) if (!SHAPE_KEYWORDS.includes(key)) rest[key] = value;
  const otherTypes = others.length === 1 ? others[0]! : `(${others.join(' | ')})`;
  const restType = renderPart(renderer, rest, nesting, indent, context);
  return [grouped(type), restType === 'unknown' ? otherTypes : `${otherTypes} & ${grouped(restType)}`];
}

/** The keywords that give a schema without `type` an object or array shape (`ownShape`), and apply to that type only. */
const SHAPE_KEYWORDS: readonly string[] = [
  'properties',
  'required',
  'additionalProperties',
  'patternProperties',
  'unevaluatedProperties',
  'dependentRequired',
  'dependentSchemas',
  'items',
  'prefixItems',
  'unevaluatedItems',
];

/**
 * `object` or `array` when the schema itself has no `type`, `enum`, `const` or `$ref` and its own keywords give it
 * that shape (`ownType`: `properties`, `required`, `additionalProperties`; `items`, `prefixItems`), whatever its
 * allOf or other applicators say; undefined otherwise.
 */
function ownShape(schema: unknown): 'object' | 'array' | undefined {
  if (!isNode(schema) || ['type', 'enum', 'const', '$ref'].some((key) => Object.hasOwn(schema, key))) return undefined;
  if (looksObject(schema)) return 'object';
  return schema.items !== undefined || Array.isArray(schema.prefixItems) ? 'array' : undefined;
}

/**
 * `object` or `array` when the schema (or the target of its `$ref`) declares no type anywhere (no `type`, `enum`,
 * `const`, anyOf, oneOf, `not` or `if`, in it or in its allOf branches) and renders as an object or array type only
 * because of object or array keywords (`ownType`, `composition`); `none` when it declares no type and has no such
 * keywords; undefined when it declares a type.
 */
function impliedShape(renderer: Renderer, schema: unknown, depth = 0): 'object' | 'array' | 'none' | undefined {
  if (schema === true) return 'none';
  if (!isNode(schema) || depth > 8 || --renderer.budget < 0) return undefined;
  if (typeof schema.$ref === 'string') {
    if (renderer.dialect === '3.1' && Object.keys(schema).some((key) => key !== '$ref' && !ANNOTATIONS.includes(key)))
      return undefined;
    try {
      return impliedShape(renderer, resolvePointer(renderer.doc, schema.$ref), depth + 1);
    } catch {
      return undefined;
    }
  }
  if (['type', 'enum', 'const', 'anyOf', 'oneOf', 'not', 'if'].some((key) => Object.hasOwn(schema, key)))
    return undefined;
  const shapes = Array.isArray(schema.allOf)
    ? schema.allOf.map((branch) => impliedShape(renderer, branch, depth + 1))
    : [];
  if (shapes.includes(undefined)) return undefined;
  if (looksObject(schema) || shapes.includes('object')) return 'object';
  return schema.items !== undefined || Array.isArray(schema.prefixItems) || shapes.includes('array') ? 'array' : 'none';
}

/** A named type for a component `$ref`, or the target rendered in place (a cycle through it is `unknown`). */
function refType(renderer: Renderer, ref: string, nesting: number, indent: number): string {
  const component = componentName(ref);
  if (component !== undefined) return nameFor(renderer, ref, component);
  if (renderer.inlining.has(ref)) return 'unknown';
  renderer.inlining.add(ref);
  try {
    return render(renderer, resolvePointer(renderer.doc, ref), nesting + 1, indent);
  } catch {
    return 'unknown';
  } finally {
    renderer.inlining.delete(ref);
  }
}

/**
 * The schema's `type` as the checker reads it (validate.ts `typeList`): a name or a list; 3.0 `nullable` and 2.0
 * `x-nullable` add null only to a `type` in the same Schema Object; 3.1 has no `nullable`. Undefined: no `type`.
 */
function typeList(renderer: Renderer, schema: Node): string[] | undefined {
  const declared =
    typeof schema.type === 'string'
      ? [schema.type]
      : Array.isArray(schema.type)
        ? schema.type.filter((t): t is string => typeof t === 'string')
        : undefined;
  if (declared === undefined) return undefined;
  const widen =
    (renderer.dialect === '3.0' && schema.nullable === true) ||
    (renderer.dialect === '2.0' && schema['x-nullable'] === true);
  return widen && !declared.includes('null') ? [...declared, 'null'] : declared;
}

/** Schema nodes `declaredTypes` reads per schema rendered: an allOf that fans out must not multiply the walk. */
const MAX_DECLARED_STEPS = 200;

/**
 * The JSON types the schema's own `type` (with 3.0 `nullable`) and its allOf branches (through `$ref`, beside it in 3.1
 * only) all admit, as `type` names; undefined when none of them has a `type`.
 */
function declaredTypes(renderer: Renderer, schema: unknown, budget: { left: number }, depth = 0): string[] | undefined {
  if (!isNode(schema) || depth > 8 || --budget.left < 0) return undefined;
  let types: string[] | undefined;
  if (typeof schema.$ref === 'string') {
    try {
      types = declaredTypes(renderer, resolvePointer(renderer.doc, schema.$ref), budget, depth + 1);
    } catch {
      types = undefined;
    }
    // OAS 3.0.3, Reference Object: a 3.0 or 2.0 `$ref`'s siblings are ignored.
    if (renderer.dialect !== '3.1') return types;
  }
  types = intersectTypes(types, typeList(renderer, schema));
  if (Array.isArray(schema.allOf))
    for (const branch of schema.allOf)
      types = intersectTypes(types, declaredTypes(renderer, branch, budget, depth + 1));
  return types;
}

/** The `type` names both lists admit (`integer` from `number` and `integer`); either list undefined means "any". */
function intersectTypes(a: readonly string[] | undefined, b: readonly string[] | undefined): string[] | undefined {
  if (a === undefined) return b === undefined ? undefined : [...b];
  if (b === undefined) return [...a];
  const admits = (list: readonly string[], type: string) =>
    list.includes(type) || (type === 'integer' && list.includes('number'));
  return [...new Set([...a.filter((type) => admits(b, type)), ...b.filter((type) => admits(a, type))])];
}

/** Whether a JSON value has one of the JSON Schema types (`integer`: a whole number). */
function fitsTypes(types: readonly string[], value: unknown): boolean {
  return types.some((type) => {
    switch (type) {
      case 'null':
        return value === null;
      case 'boolean':
        return typeof value === 'boolean';
      case 'string':
        return typeof value === 'string';
      case 'number':
        return typeof value === 'number';
      case 'integer':
        return typeof value === 'number' && Number.isInteger(value);
      case 'array':
        return Array.isArray(value);
      case 'object':
        return isNode(value);
      default:
        return false;
    }
  });
}

/**
 * Whether the schema's own keywords describe an object: `properties`, `patternProperties`, `additionalProperties` (a
 * schema or true) or `required`.
 */
function looksObject(schema: Node): boolean {
  return (
    isNode(schema.properties) ||
    (isNode(schema.patternProperties) && Object.keys(schema.patternProperties).length > 0) ||
    isNode(schema.additionalProperties) ||
    schema.additionalProperties === true ||
    Array.isArray(schema.required)
  );
}

/** The type the schema's own `type`, `properties` and `items` give, or undefined when it says nothing of its own. */
function ownType(
  renderer: Renderer,
  written: Node,
  declared: string[] | undefined,
  nesting: number,
  indent: number,
): string[] | undefined {
  // Without `type`, unevaluated* make no shape of their own (the oracle's untyped reading knows only items and
  // additionalProperties); with one, they are read where they say what items and additionalProperties would.
  const schema = declared === undefined ? written : withUnevaluated(renderer, written);
  const types =
    declared !== undefined
      ? declared
      : looksObject(schema)
        ? ['object']
        : schema.items !== undefined || Array.isArray(schema.prefixItems)
          ? ['array']
          : [];
  if (types.length === 0) return undefined;
  // With allOf the object keywords are merged with the branches' (`composition`); the rest of the type stays here.
  const merged = Array.isArray(schema.allOf);
  const rendered = types
    .filter((type) => !(merged && type === 'object'))
    .map((type) => {
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
        case 'array':
          return arrayType(renderer, schema, nesting, indent);
        case 'object':
          return objectType(
            renderer,
            Object.entries(isNode(schema.properties) ? schema.properties : {}).map(([name, property]) => [
              name,
              [property],
            ]),
            requiredOf(schema),
            schema.additionalProperties,
            nesting,
            indent,
            false,
            isNode(schema.patternProperties) ? Object.entries(schema.patternProperties) : [],
            declared !== undefined,
          );
        default:
          return 'unknown';
      }
    });
  if (merged && types.includes('object')) rendered.push(OBJECT_IN_COMPOSITION);
  return rendered.length === 0 ? undefined : rendered;
}

/** Keywords that evaluate items or properties in place (2020-12, 10.2 and 11): beside them, unevaluated* depends on which branches pass. */
const IN_PLACE = [
  'allOf',
  'anyOf',
  'oneOf',
  'if',
  'then',
  'else',
  'dependentSchemas',
  '$ref',
  '$dynamicRef',
  'contains',
];

/**
 * The schema with `unevaluatedItems` read as `items` and `unevaluatedProperties` as `additionalProperties` where they
 * say the same (2020-12, 11.2 and 11.3): nothing beside them evaluates in place, and `items` or `additionalProperties`
 * is absent (with one, nothing is left unevaluated). Elsewhere they are not written: the type is then wider than the
 * schema, since which items or fields count as evaluated depends on which branches pass.
 */
function withUnevaluated(renderer: Renderer, schema: Node): Node {
  if (renderer.dialect !== '3.1' || IN_PLACE.some((key) => Object.hasOwn(schema, key))) return schema;
  const items = Object.hasOwn(schema, 'unevaluatedItems') && schema.items === undefined;
  const fields = Object.hasOwn(schema, 'unevaluatedProperties') && schema.additionalProperties === undefined;
  if (!items && !fields) return schema;
  return {
    ...schema,
    ...(items ? { items: schema.unevaluatedItems } : {}),
    ...(fields ? { additionalProperties: schema.unevaluatedProperties } : {}),
  };
}

/** Stands for "the merged object" in an own type beside allOf; `composition` puts the object type in its place. */
const OBJECT_IN_COMPOSITION = '__object__';

function requiredOf(schema: Node): Set<string> {
  return new Set(
    Array.isArray(schema.required) ? schema.required.filter((name): name is string => typeof name === 'string') : [],
  );
}

/**
 * An array type: `T[]` from `items`, or a tuple from `prefixItems` (2020-12) or an `items` list (draft 4), as the
 * checker reads them (validate.ts `checkArray`): elements past `minItems` are optional (a shorter array is valid),
 * and the rest are `items` (or `additionalItems` after an `items` list): absent is `...unknown[]`, `false` none.
 */
function arrayType(renderer: Renderer, schema: Node, nesting: number, indent: number): string {
  const prefix = Array.isArray(schema.prefixItems)
    ? { list: schema.prefixItems, rest: schema.items }
    : Array.isArray(schema.items)
      ? { list: schema.items, rest: schema.additionalItems }
      : undefined;
  if (prefix === undefined) {
    if (schema.items === false) return '[]';
    const items = schema.items === undefined ? 'unknown' : render(renderer, schema.items, nesting + 1, indent);
    return `${grouped(items)}[]`;
  }
  const least = typeof schema.minItems === 'number' ? schema.minItems : 0;
  const elements = prefix.list.slice(0, MAX_TUPLE).map((item, index) => {
    const element = render(renderer, item, nesting + 1, indent);
    return index < least ? element : `${grouped(element)}?`;
  });
  const rest =
    prefix.list.length > MAX_TUPLE || prefix.rest === undefined || prefix.rest === true
      ? '...unknown[]'
      : prefix.rest === false
        ? undefined
        : `...${grouped(render(renderer, prefix.rest, nesting + 1, indent))}[]`;
  return `[${[...elements, ...(rest ? [rest] : [])].join(', ')}]`;
}

/** Longest tuple written out; a longer `prefixItems` list ends in `...unknown[]`. */
const MAX_TUPLE = 50;

/** Whether an allOf branch is a plain object description that can be merged with its neighbours. */
function mergeable(branch: unknown): branch is Node {
  return (
    isNode(branch) &&
    branch.$ref === undefined &&
    (branch.type === undefined || branch.type === 'object') &&
    Object.keys(branch).every((key) => MERGEABLE.has(key) || key.startsWith('x-'))
  );
}

/**
 * allOf with everything beside it (JSON Schema 2020-12, 10.2.1.1: every branch applies): plain object branches and
 * the schema's own `properties` and `required` merge into one object type, so `required` in any branch or beside
 * allOf makes the field required (case 64); component branches stay named types (`Base & {id: string}`, the
 * field's type taken from the component), and other branches join the intersection.
 * @returns The parts of the intersection, the merged object last (or in place of `OBJECT_IN_COMPOSITION`).
 */
function composition(
  renderer: Renderer,
  schema: Node,
  own: string[] | undefined,
  nesting: number,
  indent: number,
  context: readonly string[] | undefined,
): string[] {
  const properties = new Map<string, unknown[]>();
  const required = new Set<string>();
  const additional: unknown[] = [];
  const patterns: [string, unknown][] = [];
  let closed = false;
  // A merged branch's `type: object` rejects what the own type list adds beside objects (null, say).
  let objectOnly = false;
  const parts: string[] = [];
  const named: string[] = [];
  // Whether anything merged speaks of objects: an allOf of empty schemas says nothing, not "an object".
  let objectish = false;
  // The same schema met again through another branch adds nothing (allOf: [S, S] is S): without this, branches
  // that fan out would be walked once per path.
  const absorbed = new Set<unknown>();
  const absorb = (node: Node, depth: number): void => {
    if (absorbed.has(node)) return;
    absorbed.add(node);
    if (looksObject(node) || node.type === 'object') objectish = true;
    if (depth > 0 && node.type === 'object' && (renderer.dialect === '3.1' || node.nullable !== true))
      objectOnly = true;
    if (isNode(node.properties))
      for (const [name, property] of Object.entries(node.properties)) {
        const list = properties.get(name) ?? [];
        list.push(property);
        properties.set(name, list);
      }
    for (const name of requiredOf(node)) required.add(name);
    if (isNode(node.patternProperties)) patterns.push(...Object.entries(node.patternProperties));
    if (node.additionalProperties === false) closed = true;
    else if (node.additionalProperties !== undefined) additional.push(node.additionalProperties);
    if (!Array.isArray(node.allOf)) return;
    for (const branch of node.allOf) {
      if (--renderer.budget < 0) {
        renderer.cuts.add('schema nodes past the step budget');
        return;
      }
      const pureRef =
        isNode(branch) &&
        typeof branch.$ref === 'string' &&
        (renderer.dialect !== '3.1' || Object.keys(branch).every((key) => key === '$ref' || ANNOTATIONS.includes(key)));
      if (pureRef && componentName(branch.$ref as string) !== undefined) {
        parts.push(refType(renderer, branch.$ref as string, nesting, indent));
        named.push(branch.$ref as string);
      } else if (pureRef && !renderer.inlining.has(branch.$ref as string) && depth < MAX_NESTING) {
        let target: unknown;
        try {
          target = resolvePointer(renderer.doc, branch.$ref as string);
        } catch {
          target = undefined;
        }
        if (mergeable(target)) {
          renderer.inlining.add(branch.$ref as string);
          absorb(target, depth + 1);
          renderer.inlining.delete(branch.$ref as string);
        } else parts.push(renderPart(renderer, branch, nesting, indent, context));
      } else if (mergeable(branch) && depth < MAX_NESTING) absorb(branch, depth + 1);
      else parts.push(renderPart(renderer, branch, nesting, indent, context));
    }
  };
  absorb(schema, 0);
  const hidden = renderer.direction === 'request' ? 'readOnly' : 'writeOnly';
  const entries = [...properties];
  // A name required here but declared only in a component branch: required unless that component requires it
  // already, its type read from the component's declaration (`unknown` when none declares it).
  for (const name of required) {
    if (properties.has(name)) continue;
    const declared = declarationsIn(renderer, named, name);
    if (declared.required) continue;
    if (declared.schema !== undefined && flag(renderer, declared.schema, hidden)) continue;
    entries.push([name, declared.schema === undefined ? [] : [declared.schema]]);
  }
  const extra = closed ? false : additional.length === 1 ? additional[0] : additional.length > 1 ? true : undefined;
  const object =
    entries.length > 0 ||
    extra !== undefined ||
    (patterns.length > 0 && own !== undefined && own.includes(OBJECT_IN_COMPOSITION)) ||
    (objectish && parts.length === 0 && (own === undefined || own.every((part) => part === OBJECT_IN_COMPOSITION))) ||
    (own !== undefined && own.includes(OBJECT_IN_COMPOSITION) && own.length > 1)
      ? // Nothing left to intersect with: the merged object type stands alone, and may be weak (`objectType`).
        objectType(renderer, entries, required, extra, nesting, indent, true, patterns, parts.length === 0)
      : undefined;
  if (own === undefined) return object === undefined ? parts : [...parts, object];
  if (!own.includes(OBJECT_IN_COMPOSITION)) return [union(own), ...parts, ...(object === undefined ? [] : [object])];
  // `type: object` (or a list with it) beside allOf: the merged object stands in its place.
  const replaced = own.filter(
    (part) =>
      (part !== OBJECT_IN_COMPOSITION || object !== undefined) && (!objectOnly || part === OBJECT_IN_COMPOSITION),
  );
  if (replaced.length === 0) return parts;
  return [...parts, union(replaced.map((part) => (part === OBJECT_IN_COMPOSITION ? object! : part)))];
}

/** Whether any of the component `$ref`s requires `name`, and the first property schema that declares it (through allOf and 3.1 `$ref`s). */
function declarationsIn(renderer: Renderer, refs: string[], name: string): { required: boolean; schema?: unknown } {
  let required = false;
  let schema: unknown;
  const seen = new Set<string>();
  const walk = (node: unknown, depth: number): void => {
    if (!isNode(node) || depth > 16 || --renderer.budget < 0) return;
    if (typeof node.$ref === 'string' && !seen.has(node.$ref)) {
      seen.add(node.$ref);
      try {
        walk(resolvePointer(renderer.doc, node.$ref), depth + 1);
      } catch {
        // an unresolvable $ref declares nothing
      }
      if (renderer.dialect !== '3.1') return;
    }
    if (requiredOf(node).has(name)) required = true;
    if (schema === undefined && isNode(node.properties) && Object.hasOwn(node.properties, name))
      schema = node.properties[name];
    if (Array.isArray(node.allOf)) for (const branch of node.allOf) walk(branch, depth + 1);
  };
  for (const ref of refs) walk({ $ref: ref }, 0);
  return { required, ...(schema !== undefined ? { schema } : {}) };
}

/**
 * `if`/`then`/`else`, `dependentSchemas` and `dependentRequired` as intersections of unions (JSON Schema 2020-12,
 * 10.2.2 and 6.5.4): `(If & Then) | Else` (a value the checker accepts is always in it; without `else` it says
 * nothing and is left out), and `{trigger?: undefined} | Dependent` per trigger, exact.
 */
function conditionals(
  renderer: Renderer,
  schema: Node,
  nesting: number,
  indent: number,
  context: readonly string[] | undefined,
): string[] {
  const parts: string[] = [];
  // A boolean `if` picks its branch outright.
  if (schema.if === true && Object.hasOwn(schema, 'then'))
    parts.push(union(branchTypes(renderer, schema.then, nesting, indent, context)));
  else if (schema.if === false && Object.hasOwn(schema, 'else'))
    parts.push(union(branchTypes(renderer, schema.else, nesting, indent, context)));
  else if (typeof schema.if !== 'boolean' && Object.hasOwn(schema, 'if')) {
    const complement = typeComplement(renderer, schema.if);
    if (Object.hasOwn(schema, 'else') || (complement !== undefined && Object.hasOwn(schema, 'then'))) {
      // The condition and its outcomes are read as a union branch is: without `type`, their object keywords do not turn
      // other values away.
      const condition = union(branchTypes(renderer, schema.if, nesting, indent, context));
      const then = Object.hasOwn(schema, 'then')
        ? union(branchTypes(renderer, schema.then, nesting, indent, context))
        : 'unknown';
      const otherwise = Object.hasOwn(schema, 'else')
        ? union(branchTypes(renderer, schema.else, nesting, indent, context))
        : 'unknown';
      const both = (a: string, b: string) =>
        a === 'unknown' ? b : b === 'unknown' ? a : `${grouped(a)} & ${grouped(b)}`;
      const failed = complement === undefined ? otherwise : both(union(complement), otherwise);
      const type = union([both(condition, then), failed].map(grouped));
      // Only a condition that tests the JSON type alone is exact; of any other, the type admits either outcome.
      if (type !== 'unknown')
        parts.push(complement === undefined ? `${type} /* if/then/else: either outcome is admitted */` : type);
    }
  }
  // dependentSchemas and dependentRequired apply to objects only (2020-12, 10.2.2.4 and 6.5.4): every other JSON type
  // the context allows passes them, and the dependent schema is read as a branch on an object instance.
  const others = Object.entries(JSON_TYPES)
    .filter(([name]) => name !== 'object' && (context === undefined || intersectTypes(context, [name])!.length > 0))
    .map(([, typescript]) => typescript);
  const absent = (name: string) =>
    [`{ ${propertyKey(name)}?: undefined; [key: string]: unknown }`, ...others].join(' | ');
  if (isNode(schema.dependentSchemas))
    for (const [trigger, dependent] of Object.entries(schema.dependentSchemas)) {
      if (trigger.length > MAX_LITERAL) continue;
      const type = union(branchTypes(renderer, dependent, nesting, indent, ['object']));
      if (type !== 'unknown') parts.push(type === 'never' ? absent(trigger) : `${absent(trigger)} | ${grouped(type)}`);
    }
  if (isNode(schema.dependentRequired))
    for (const [trigger, names] of Object.entries(schema.dependentRequired)) {
      if (trigger.length > MAX_LITERAL || !Array.isArray(names)) continue;
      const listed = [
        trigger,
        ...names.filter((name): name is string => typeof name === 'string' && name.length <= MAX_LITERAL),
      ];
      parts.push(
        `${absent(trigger)} | { ${[...new Set(listed)].map((name) => `${propertyKey(name)}: unknown;`).join(' ')} }`,
      );
    }
  return parts;
}

/** Most patternProperties patterns read per object; past it the rest are typed by the index signature. */
const MAX_PATTERNS = 50;
/** Characters a patternProperties prefix or suffix may hold to become a template literal type: none a regular expression or a template literal gives a meaning. */
const PATTERN_LITERAL = /^(?:[^\\^$.|?*+()[\]{}`\u0000-\u001f\u007f\u2028\u2029]|\\[./]){1,100}$/u;

/**
 * The template literal type a patternProperties pattern (ECMA-262 with the `u` flag, JSON Schema 2020-12, 6.3.3 and
 * 10.3.2.2) comes to when it says only "starts with" or "ends with" a literal text: `^a` gives `a${string}`, `-id$`
 * gives `${string}-id`; `\.` and `\/` in the text are the characters themselves.
 * @returns The type's text and the name test it stands for, or undefined for any other pattern (a class, an
 *   alternation, a quantifier, both anchors). Never throws.
 */
export function patternKeyType(pattern: string): { type: string; matches: (name: string) => boolean } | undefined {
  const prefix = pattern.startsWith('^');
  const suffix = pattern.endsWith('$') && !pattern.endsWith('\\$');
  if (prefix === suffix) return undefined;
  const written = prefix ? pattern.slice(1) : pattern.slice(0, -1);
  if (!PATTERN_LITERAL.test(written)) return undefined;
  const text = written.replace(/\\([./])/g, '$1');
  return prefix
    ? { type: `\`${text}\${string}\``, matches: (name) => name.startsWith(text) }
    : { type: `\`\${string}${text}\``, matches: (name) => name.endsWith(text) };
}

/**
 * The JSON types a condition that tests only `type` turns away, as TypeScript types (`if: {type: number}` gives
 * string, boolean, null, arrays and objects), or undefined when the condition tests anything else. `integer` leaves
 * `number` in: a fraction fails it.
 */
function typeComplement(renderer: Renderer, condition: unknown): string[] | undefined {
  if (!isNode(condition) || !Object.keys(condition).every((key) => key === 'type' || ANNOTATIONS.includes(key)))
    return undefined;
  const types = typeList(renderer, condition);
  if (types === undefined) return undefined;
  return Object.entries(JSON_TYPES)
    .filter(([name]) => !types.includes(name))
    .map(([, typescript]) => typescript);
}

/** Formats a note follows, and what it says: where the type `number` or `string` loses what the format tells. */
function formatNote(schema: unknown): string | undefined {
  if (!isNode(schema) || typeof schema.format !== 'string' || !/^[A-Za-z0-9_.:+-]{1,40}$/.test(schema.format))
    return undefined;
  if (schema.format === 'int64')
    // JSON.parse reads past 2^53 with a double's precision (RFC 8259, 6); case 71.
    return 'int64: precision lost past 2^53';
  return schema.format;
}

/**
 * An object type from its properties (each with the schemas that declare it, intersected), `required` (a name no
 * property declares is `unknown`), `additionalProperties` and `patternProperties` (JSON Schema 2020-12, 10.3.2). The
 * type is closed as TypeScript object types are: an object literal gets the excess-property check, a value from a
 * variable may carry more fields, as an open object's undocumented fields are only a warning to the checker. A
 * pattern `patternKeyType` can say becomes an index signature on that template literal type (`[key: `a${string}`]`),
 * and a named property it matches takes its schema too; TypeScript holds a field to every index signature its name
 * matches. Any other pattern is not written (its fields are typed by the string index signature, wider than the
 * schema) and a comment says so; the string index signature, when there is one, admits every pattern's type.
 */
function objectType(
  renderer: Renderer,
  entries: [string, unknown[]][],
  required: Set<string>,
  extra: unknown,
  nesting: number,
  indent: number,
  inComposition = false,
  patterns: [string, unknown][] = [],
  guardWeak = !inComposition,
): string {
  const hidden = renderer.direction === 'request' ? 'readOnly' : 'writeOnly';
  const members: string[] = [];
  // The named members' types, for the index signature beside them.
  const named: string[] = [];
  let optional = false;
  let requiredWritten = false;
  const names = new Set(entries.map(([name]) => name));
  if (!inComposition) for (const name of required) if (!names.has(name)) entries = [...entries, [name, []]];
  const keyed = patterns.slice(0, MAX_PATTERNS).map(([pattern, schema]) => ({
    pattern,
    schema,
    key: patternKeyType(pattern),
    members: [] as string[],
    optional: false,
  }));
  const unsaid = keyed.filter((entry) => entry.key === undefined).length + Math.max(0, patterns.length - MAX_PATTERNS);
  const matching = (name: string) => keyed.filter((entry) => entry.key !== undefined && entry.key.matches(name));
  // A name no `properties` declares (a required one) is typed by the patterns it matches, else by additionalProperties
  // (2020-12, 10.3.2.3): `false` there makes it `never`, since the checker rejects it wherever it is.
  entries = entries.map(([name, schemas]) => {
    const patterned = matching(name).map((entry) => entry.schema);
    const other =
      schemas.length === 0 && patterned.length === 0 && unsaid === 0 && (isNode(extra) || extra === false)
        ? [extra]
        : [];
    return [name, [...schemas, ...patterned, ...other]];
  });
  let left = 0;
  for (const [name, schemas] of entries) {
    if (name.length > MAX_LITERAL || renderer.textLeft <= 0) {
      // A name the size of a file, or text past the size budget: not written, counted in a comment.
      left++;
      continue;
    }
    if (schemas.some((property) => flag(renderer, property, hidden))) continue;
    const types = [...new Set(schemas.map((property) => render(renderer, property, nesting + 1, indent + 1)))].filter(
      (type) => type !== 'unknown',
    );
    const type = types.length === 0 ? 'unknown' : types.length === 1 ? types[0]! : types.map(grouped).join(' & ');
    named.push(type);
    if (!required.has(name)) optional = true;
    else requiredWritten = true;
    for (const entry of matching(name)) {
      entry.members.push(type);
      if (!required.has(name)) entry.optional = true;
    }
    const note = schemas.map(formatNote).find((found) => found !== undefined);
    const member = `${propertyKey(name)}${required.has(name) ? '' : '?'}: ${type};${note ? ` // ${note}` : ''}`;
    renderer.textLeft -= member.length;
    members.push(member);
  }
  if (left > 0) {
    renderer.cuts.add(`${left} propert${left === 1 ? 'y' : 'ies'}`);
    members.push(
      `// ${left} more propert${left === 1 ? 'y' : 'ies'} not shown (a name longer than ${MAX_LITERAL} characters, or the text passed its size budget)`,
    );
  }
  // Every pattern's type, rendered once: a template literal signature of its own, and a member of the string one.
  const patternTypes = keyed.map((entry) => render(renderer, entry.schema, nesting + 1, indent + 1));
  keyed.forEach((entry, at) => {
    if (entry.key === undefined) return;
    const type = union([patternTypes[at]!, ...entry.members, ...(entry.optional ? ['undefined'] : [])].map(grouped));
    members.push(`[key: ${entry.key.type}]: ${type};`);
  });
  if (unsaid > 0)
    members.push(
      `// ${unsaid} patternProperties pattern${unsaid === 1 ? '' : 's'} no template literal type can say: such fields are typed by the index signature`,
    );
  const open = left > 0 ? true : extra;
  if (open === true || isNode(open)) {
    // An index signature must admit every named property's type (and undefined, for an optional one) and every
    // pattern's, so beside them it is their union with the other fields' type.
    const other = open === true ? 'unknown' : render(renderer, open, nesting + 1, indent + 1);
    const type =
      other === 'unknown' || left > 0 || (named.length === 0 && patternTypes.length === 0)
        ? other
        : union([other, ...named, ...patternTypes, ...(optional ? ['undefined'] : [])].map(grouped));
    members.push(`[key: string]: ${type};`);
  } else if (open !== false && (members.length === 0 || unsaid > 0)) {
    members.push('[key: string]: unknown;');
  } else if (
    guardWeak &&
    open !== false &&
    named.length > 0 &&
    !requiredWritten &&
    !members.some((member) => member.startsWith('[key: '))
  ) {
    // TypeScript's weak-type check rejects a value that shares no property with a type whose properties are all
    // optional (TS2559, also inside a union), while the checker accepts an open object with other fields. Any index
    // signature turns the check off; a symbol key admits no JSON field, so object literals keep the excess-property
    // check and arrays stay out. Only for a schema whose `type` says object, and for an allOf composition merged
    // into this one object type with nothing to intersect: an intersection is not weak while a member is not, and
    // an object read from keywords without `type` meets the arrays and primitives the checker admits there.
    members.push('[key: symbol]: unknown;');
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
 * `typeName`; in a request type with a `Request` suffix, `TagRequest`, never a name a response type gives a
 * component, so both paste into one file). The type accepts what validate.ts `check` accepts, as far as a type
 * can (issue 15; `tests/typescript-oracle.test.ts` holds the two to each other with tsc):
 * - a property is required when any schema that applies lists it in `required`: the object itself, an allOf
 *   branch, the schema beside allOf, a 3.1 `$ref`'s siblings (JSON Schema 2020-12, 10.2.1.1 and 8.2.3.1); plain
 *   object branches merge into one object type, component branches stay named (`Base & {id: string}`);
 * - 3.0 `nullable` (2.0 `x-nullable`) adds `| null` only to a `type` in the same Schema Object, 3.1 reads
 *   `type: [..., "null"]` and has no `nullable`; an enum that lists no null admits none (OAS 3.0.3); where the
 *   document likely meant otherwise a comment says which reading was taken;
 * - `enum` and `const` are literal types (objects and arrays too); `oneOf`/`anyOf` a union; `prefixItems` (and a
 *   draft-4 `items` list) a tuple, elements past `minItems` optional; `if`/`then`/`else`, `dependentSchemas` and
 *   `dependentRequired` intersections of unions; a format is noted beside its property (`// date-time`; int64 with
 *   a precision note);
 * - `additionalProperties` an index signature (beside named properties the union with their types, which it
 *   must admit); an object without properties `{[key: string]: unknown}`; objects are otherwise closed as
 *   TypeScript types are (an undocumented field, a warning to the checker, passes from a variable but not in an
 *   object literal); `readOnly` properties are left out of request types, `writeOnly` ones out of response types.
 * What no type can say (integer, lengths, ranges, patterns, oneOf's "exactly one", additionalProperties: false) is
 * left to the checker. A `$ref` that cannot be resolved is `unknown`, with a comment.
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
 * @param maxSteps Schema nodes rendered before the rest is `unknown` (and named in `cut`), default 50,000.
 * @param clean Applied to the text this function cuts or reshapes, before it does (issue 18: a key in the document
 *   leaves no prefix of itself at a cut): component names before they become type names (cut at 100 characters),
 *   field paths before their comment is cut at 200. Names and literals written whole are left to the caller, who
 *   cleans the whole text (`describeTypeScript`); default: the text as it is.
 * @returns The text, and `cut`: what was left out (type names, property counts), empty when nothing was.
 */
export function renderTypeScriptWithin(
  doc: unknown,
  schema: unknown,
  rootName: string,
  direction: Direction,
  observed?: Observed,
  maxChars = TYPESCRIPT_TEXT_BUDGET,
  maxSteps = 50_000,
  clean: (text: string) => string = (text) => text,
): { typescript: string; cut: string[] } {
  const root = isNode(doc) ? doc : {};
  const dialect = dialectOf(root);
  const renderer: Renderer = {
    doc: root,
    dialect,
    direction,
    names: new Map(),
    declarations: new Map(),
    taken: new Set([rootName, ...(direction === 'request' ? componentNames(root, clean) : [])]),
    inlining: new Set(),
    budget: maxSteps,
    textLeft: maxChars,
    cuts: new Set(),
    clean,
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
      lines.push(`// - ${commentSafe(clean(field.path))}: undocumented, present in ${field.present} of ${field.of}`);
    for (const field of observed.unexpectedNull.slice(0, 50))
      lines.push(
        `// - ${commentSafe(clean(field.path))}: the API sent null in ${field.bodies} of ${observed.probes}; the document probably omits null`,
      );
    const more = Math.max(0, observed.undocumented.length - 50) + Math.max(0, observed.unexpectedNull.length - 50);
    if (more > 0) lines.push(`// - and ${more} more`);
  }
  if (observed?.notCheckedForNulls)
    lines.push(
      `// ${observed.notCheckedForNulls} of ${observed.probes} probes were not checked for nulls: the step budget ran out.`,
    );
  lines.push(`export type ${rootName} = ${rootType};`);
  for (const declaration of openAliasCycles(renderer.declarations).values()) lines.push(declaration);
  return { typescript: lines.join('\n\n').replace(/^(\/\/.*)\n\n(?=\/\/)/gm, '$1\n') + '\n', cut };
}

/**
 * Declarations with every cycle TypeScript refuses as an alias (TS2456) cut: a declaration that refers to itself,
 * directly or through other declarations, outside an object type or an array element (`type S = S`,
 * `type S = S & {...}`, `type A = B | null; type B = A`); a reference inside `{...}` or before `[]` is a recursion
 * TypeScript accepts. Such a schema reaches itself without entering a property or an item, which the checks cut
 * without a finding (a `$ref` cycle admits what its other keywords admit), so each such reference is written as
 * `unknown` (`type S = unknown & {...}`) and the declaration keeps its other keywords. Where the cycle runs through
 * more than one declaration the checks cut it at the one they reached it by, while every declaration on it is cut
 * here: the type may then admit more than the checks, never less.
 * @returns A new map in the same order, or the same map when there is no such cycle.
 */
function openAliasCycles(declarations: Map<string, string>): Map<string, string> {
  const names = new Set(declarations.keys());
  const references = new Map<string, { body: number; found: Reference[] }>();
  for (const [name, text] of declarations) {
    const at = text.indexOf(`export type ${name} = `);
    if (at === -1) continue;
    const body = at + `export type ${name} = `.length;
    references.set(name, { body, found: unguardedReferences(text.slice(body), names) });
  }
  // What each declaration reaches through such references; one walk per declaration, each visiting a declaration once.
  const reach = new Map<string, Set<string>>();
  for (const [start, { found }] of references) {
    const seen = new Set<string>();
    const stack = found.map((reference) => reference.name);
    while (stack.length) {
      const next = stack.pop()!;
      if (seen.has(next)) continue;
      seen.add(next);
      for (const reference of references.get(next)?.found ?? []) stack.push(reference.name);
    }
    reach.set(start, seen);
  }
  const cyclic = [...reach].filter(([name, seen]) => seen.has(name)).map(([name]) => name);
  if (cyclic.length === 0) return declarations;
  const out = new Map(declarations);
  for (const name of cyclic) {
    const { body, found } = references.get(name)!;
    const text = declarations.get(name)!;
    // A reference to a declaration that reaches back here is on the cycle; one to any other keeps its name.
    const onCycle = found.filter((reference) => reach.get(reference.name)?.has(name) === true);
    let written = text.slice(0, body);
    let from = body;
    for (const reference of onCycle) {
      written += `${text.slice(from, body + reference.start)}unknown /* ${reference.name}: its $refs lead back to it outside any property or item */`;
      from = body + reference.start + reference.name.length;
    }
    out.set(name, written + text.slice(from));
  }
  return out;
}

/** A declared name in a type text, where it starts (a character offset). */
type Reference = { name: string; start: number };

/**
 * The references to declared names a type text makes outside an object type and not as an array element, in text
 * order: what an alias may not reach itself through. Skips string literals and comments; a name, or a parenthesised
 * group holding it, followed by `[]` is an array element.
 */
function unguardedReferences(text: string, names: ReadonlySet<string>): Reference[] {
  const found: Reference[] = [];
  const closing = new Map<number, number>(); // an opening parenthesis at i closes at j
  const opened: number[] = [];
  const candidates: { name: string; end: number; parens: number[] }[] = [];
  let braces = 0;
  for (let i = 0; i < text.length; i++) {
    const c = text[i]!;
    if (c === '"' || c === "'" || c === '`') {
      for (i++; i < text.length && text[i] !== c; i++) if (text[i] === '\\') i++;
    } else if (c === '/' && text[i + 1] === '/') {
      while (i < text.length && text[i] !== '\n') i++;
    } else if (c === '/' && text[i + 1] === '*') {
      const close = text.indexOf('*/', i + 2);
      i = close === -1 ? text.length : close + 1;
    } else if (c === '{' || c === '[') braces++;
    else if (c === '}' || c === ']') braces--;
    else if (c === '(') opened.push(i);
    else if (c === ')') {
      const open = opened.pop();
      if (open !== undefined) closing.set(open, i);
    } else if (/[A-Za-z_$]/.test(c) && !/[\w$]/.test(text[i - 1] ?? '')) {
      let j = i;
      while (j < text.length && /[\w$]/.test(text[j]!)) j++;
      const word = text.slice(i, j);
      if (braces === 0 && names.has(word)) candidates.push({ name: word, end: j, parens: [...opened] });
      i = j - 1;
    }
  }
  // `S0[]`, also with a renderer's comment between the name and `[]` (`S0 /* nullable beside $ref ... */[]`).
  const beforeArray = (index: number) =>
    /^\s*(?:\/\*(?:(?!\*\/)[^])*\*\/\s*)*\[\]/.test(text.slice(index, index + 400));
  for (const candidate of candidates) {
    const element =
      beforeArray(candidate.end) ||
      candidate.parens.some((open) => closing.has(open) && beforeArray(closing.get(open)! + 1));
    if (!element) found.push({ name: candidate.name, start: candidate.end - candidate.name.length });
  }
  return found;
}

/** The type names response types give the document's components (at most 20,000), which request types must not reuse. */
function componentNames(doc: Node, clean: (text: string) => string): string[] {
  const schemas = isNode(doc.components) && isNode(doc.components.schemas) ? doc.components.schemas : doc.definitions;
  return isNode(schemas)
    ? Object.keys(schemas)
        .slice(0, 20_000)
        .map((name) => typeName(clean(name)))
    : [];
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
