/**
 * Node built-in modules loaded on first use rather than when the module that needs them is evaluated: a static
 * `import` of `node:http`, `node:zlib`, `node:v8` or `node:fs/promises` costs its load (3 to 8 ms of CPU each) before
 * the server can answer `initialize`, though only a probe or a document load needs them (issue 20). On Node 24 a static
 * `import` of `node:http` also loads undici (the ESM facade reads every export, `WebSocket` among them): about 60 ms of
 * a 120 ms start, against 8 ms through this getter; `node:crypto` costs 11 to 14 ms there.
 */
import { createRequire } from 'node:module';

type Builtins = {
  'node:http': typeof import('node:http');
  'node:https': typeof import('node:https');
  'node:stream': typeof import('node:stream');
  'node:zlib': typeof import('node:zlib');
  'node:v8': typeof import('node:v8');
  'node:fs/promises': typeof import('node:fs/promises');
  'node:crypto': typeof import('node:crypto');
  'node:worker_threads': typeof import('node:worker_threads');
  'node:os': typeof import('node:os');
};

// `process.getBuiltinModule` is Node >= 20.16 and 22.3; `require` through `createRequire` everywhere else.
const getBuiltin: (name: string) => unknown =
  (process as { getBuiltinModule?: (name: string) => unknown }).getBuiltinModule?.bind(process) ??
  // A `data:` module (the single-file build's deferred part, src/runtime/deferred.ts) is no base for `require`.
  createRequire(import.meta.url.startsWith('file:') ? import.meta.url : process.execPath);

/**
 * A getter of the built-in module `name`, which loads it the first time it is called and returns the same module
 * after that. Loading a built-in never fails on a supported Node, so neither does the getter.
 * @param name A `node:` module name, e.g. `node:zlib`.
 */
export function lazyBuiltin<Name extends keyof Builtins>(name: Name): () => Builtins[Name] {
  let module: Builtins[Name] | undefined;
  return () => (module ??= getBuiltin(name) as Builtins[Name]);
}
