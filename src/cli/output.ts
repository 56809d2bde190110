/**
 * What the command line's commands share: the report formats of `check`, the environment they read, and where their
 * output goes. Apart from check.ts, so the command line reads its flags without loading the commands (issue 20).
 */

/** The report formats of `check --format`. */
export const FORMATS = ['text', 'json', 'junit', 'markdown', 'sarif'] as const;

/** One of `FORMATS`. */
export type Format = (typeof FORMATS)[number];

/** The environment a command reads (`process.env`, or a test's). */
export type Environment = Record<string, string | undefined>;

/** Where output goes; tests pass collectors. `stderrIsTerminal` enables progress lines. */
export type Output = {
  out: (text: string) => void;
  err: (text: string) => void;
  stderrIsTerminal?: boolean;
  fetch?: typeof fetch;
};
