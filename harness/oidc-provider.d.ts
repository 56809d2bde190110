// oidc-provider ships no types; the harness uses its constructor and `callback()` only.
declare module 'oidc-provider';
