/**
 * Limits of `findOperations` (search.ts), apart from it so the tool's argument checks on the main thread quote them
 * without compiling the search (issue 20): `limit` defaults to 3 and may be 1..10; queries are cut at 2,000 characters.
 */
export const SEARCH_LIMITS = { defaultLimit: 3, maxLimit: 10, maxQueryChars: 2000 } as const;
