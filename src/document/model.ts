/**
 * What a loaded document is: its operations and parameters as the index states them, the document itself and
 * what was found wrong with it, and the error a document that cannot be used raises (file, pointer, reason).
 */

/**
 * A parameter of an operation after `$ref` resolution. `schema` is the Schema Object (3.x `schema`,
 * the first `content` entry's schema, or for Swagger 2.0 non-body parameters the inline keywords
 * gathered into one). `pointer` is where the resolved Parameter Object lives (RFC 6901 fragment).
 */
export type Parameter = {
  name: string;
  in: 'path' | 'query' | 'header' | 'cookie' | 'body' | 'formData';
  required: boolean;
  schema?: unknown;
  description?: string;
  pointer: string;
  /** How the value is serialized, as the document writes it (absent: the location's default; see parameter-style.ts). */
  style?: string;
  explode?: boolean;
  allowReserved?: boolean;
  /** Swagger 2.0 arrays: `csv` (the default), `ssv`, `tsv`, `pipes` or `multi`. */
  collectionFormat?: string;
  /** The media type of a parameter described by `content` (its one key). */
  contentType?: string;
};

/**
 * One method + path template of the document (OpenAPI 3.1.0, Operation Object). `method` is upper
 * case; `pathTemplate` the `paths` key as written; `pointer` the RFC 6901 fragment of the Operation
 * Object (`#/paths/~1pets~1{petId}/get`). `responses` maps status codes to Response Objects with
 * one `$ref` level resolved (Swagger 2.0 responses gain `content[<produces>].schema`).
 */
export type Operation = {
  method: string;
  pathTemplate: string;
  operationId?: string;
  summary?: string;
  description?: string;
  tags: string[];
  deprecated: boolean;
  parameters: Parameter[];
  requestBody?: unknown;
  responses: Record<string, unknown>;
  pointer: string;
};

/**
 * A loaded document. `doc` has sibling-file `$ref`s bundled under `x-bundled` (every followed
 * `$ref` is local); `basePaths` are path prefixes from the document's `servers[].url` (variables'
 * defaults substituted) or 2.0 `basePath` (`''` left out), for display: matchOperation reads every
 * value a server URL can take, and path- and operation-level `servers` too, from `doc`; `problems`
 * lists non-fatal issues such as remote `$ref`s that were not fetched.
 */
export type LoadedDocument = {
  source: string;
  doc: any;
  version: '2.0' | '3.0' | '3.1';
  title: string;
  infoVersion: string;
  loadedAt: string;
  basePaths: string[];
  operations: Operation[];
  problems: string[];
};

/**
 * Thrown when a document cannot be used: it cannot be read or parsed, it is not OpenAPI 3.x or
 * Swagger 2.0, or a local `$ref` points nowhere (RFC 6901 pointer that resolves to nothing).
 * `file` is the file path or URL, `pointer` the JSON Pointer in URI fragment form (`#/paths/~1pets/get`,
 * `#` for the whole document), `reason` what went wrong; the message names all three.
 */
export class DocumentError extends Error {
  file: string;
  pointer: string;
  reason: string;
  constructor(file: string, pointer: string, reason: string) {
    super(`Cannot load OpenAPI document ${file} at ${pointer}: ${reason}`);
    this.name = 'DocumentError';
    this.file = file;
    this.pointer = pointer;
    this.reason = reason;
  }
}

/** The HTTP methods an OpenAPI Path Item may hold an operation for (OpenAPI 3.x, Path Item Object). */
export const METHODS = ['get', 'put', 'post', 'delete', 'options', 'head', 'patch', 'trace'] as const;

/** The operation's key in session memory: `GET /meters/{meterId}`. */
export function operationKey(operation: Pick<Operation, 'method' | 'pathTemplate'>): string {
  return `${operation.method} ${operation.pathTemplate}`;
}
