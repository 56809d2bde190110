/**
 * The command line of openapi-probe, beside the server: flags that set the configuration (`--base-url`,
 * `--doc`, `--max-bytes`, `--key-header`; the key only from API_KEY), `--help`, `--version`, and
 * `check`, which re-checks saved responses (fixtures) against the OpenAPI document offline with the
 * contract layer, and with `--live` compares each with what the API sends now.
 * With no command, `main` in probe-server.ts serves MCP on stdio with the environment returned here.
 */
import { redactor } from '../redaction/redaction.ts';
import { shownSetting } from '../runtime/config.ts';
import { SERVER_INFO } from '../runtime/server-info.ts';

import { FORMATS } from './output.ts';
import type { Environment, Format, Output } from './output.ts';
import { importDeferred } from '../runtime/deferred.ts';
/** The usage text `--help` prints, and an unknown flag prints to stderr. */
export const USAGE = `Usage:
  openapi-probe [flags]                  serve MCP on stdio (what an editor runs)
  openapi-probe serve --http HOST:PORT   serve MCP over Streamable HTTP at /mcp
  openapi-probe check --doc FILE [--format text|json|junit|markdown|sarif]
                      [--live] [--baseline FILE [--update-baseline]]
                      FIXTURE...         re-check saved responses against the document
  openapi-probe doctor [flags]           load the document, GET one of its operations,
                                         say what is wrong before an editor starts it
                                         (also: openapi-probe --check-config)
  openapi-probe --help | --version

Flags (each overrides its environment variable):
  --base-url URL     API_BASE_URL   the API's base URL, e.g. https://api.example.com/v2
  --doc PATH|URL     OPENAPI_DOC    the OpenAPI document (default ./openapi.json)
  --max-bytes N      PROBE_MAX_BYTES  body budget per probe in bytes (default 16384)
  --key-header NAME  API_KEY_HEADER send API_KEY in this header, not Authorization
  --http HOST:PORT   PROBE_HTTP_LISTEN  serve Streamable HTTP (loopback unless told)
The key itself is read only from the environment: API_KEY.

check: a FIXTURE is a JSON file {method, path, status, body, contentType?},
a folder of them, or a HAR file (its GET entries on the base URL's origin,
under its path; the rest are counted as left out). Exit 0 when every fixture
matches the document, 1 when any has an error finding or could not be
checked, 2 on bad input. --live also GETs each path (needs --base-url) and
reports drift between the fixture and the live response; a live GET that
fails is reported and exits 1. --baseline accepts the findings the file lists
(by operation, instance path and kind); --update-baseline writes this run's.
`;

const FLAG_VARIABLES = {
  '--base-url': 'API_BASE_URL',
  '--doc': 'OPENAPI_DOC',
  '--max-bytes': 'PROBE_MAX_BYTES',
  '--key-header': 'API_KEY_HEADER',
  '--http': 'PROBE_HTTP_LISTEN',
} as const;

/**
 * Reads the command line. Flags become environment variables (so `readConfig` checks them with one
 * set of messages); `--help` and `--version` print to stdout; `check` runs to its end.
 * @param args `process.argv.slice(2)`.
 * @returns `{env}` to serve MCP with, or `{exitCode}`: 0 after help, version or a passing check,
 *   1 for a failing check, 2 for an unknown flag, a missing value or bad input (usage on stderr).
 */
export async function commandLine(
  args: string[],
  env: Environment,
  output: Output = processOutput(),
): Promise<{ env: Environment } | { exitCode: number }> {
  const parsed = parseArguments(args, env);
  // A key typed where a flag or an operand goes is never repeated (issue 18). Built only to print a refusal: serving, the
  // entry builds its own, and a key's redactor takes milliseconds to build on the way to `initialize` (issue 20).
  const redact = { text: (text: string) => redactor(env.API_KEY?.trim() || undefined).text(text) };
  if ('problem' in parsed) {
    output.err(redact.text(`openapi-probe: ${parsed.problem}\n\n${USAGE}`));
    return { exitCode: 2 };
  }
  if (parsed.help) {
    output.out(USAGE);
    return { exitCode: 0 };
  }
  if (parsed.version) {
    output.out(`${SERVER_INFO.name} ${SERVER_INFO.version}\n`);
    return { exitCode: 0 };
  }
  if (parsed.command === 'doctor') {
    if (parsed.operands.length) {
      output.err(
        redact.text(`openapi-probe: doctor takes flags only, got ${shownSetting(parsed.operands[0]!)}\n\n${USAGE}`),
      );
      return { exitCode: 2 };
    }
    return { exitCode: await (await commands()).runDoctor(parsed.env, output) };
  }
  if (parsed.command === 'check')
    return {
      exitCode: await (
        await commands()
      ).runCheck(
        {
          env: parsed.env,
          format: parsed.format,
          live: parsed.live,
          fixtures: parsed.operands,
          ...(parsed.baseline !== undefined ? { baseline: parsed.baseline } : {}),
          updateBaseline: parsed.updateBaseline,
        },
        output,
      ),
    };
  if (parsed.operands.length) {
    output.err(redact.text(`openapi-probe: unknown command ${shownSetting(parsed.operands[0]!)}\n\n${USAGE}`));
    return { exitCode: 2 };
  }
  // `serve` alone would serve stdio, as no command does, and end with its input: say what it needs instead.
  if (parsed.command === 'serve' && !parsed.env.PROBE_HTTP_LISTEN?.trim()) {
    output.err(
      `openapi-probe: serve needs --http HOST:PORT (or PROBE_HTTP_LISTEN) to serve MCP over Streamable HTTP; without a command the server speaks MCP over stdio\n\n${USAGE}`,
    );
    return { exitCode: 2 };
  }
  return { env: parsed.env };
}

type Parsed = {
  command?: 'check' | 'doctor' | 'serve';
  help: boolean;
  version: boolean;
  live: boolean;
  format: Format;
  env: Environment;
  operands: string[];
  baseline?: string;
  updateBaseline: boolean;
};

function parseArguments(args: string[], env: Environment): Parsed | { problem: string } {
  const parsed: Parsed = {
    help: false,
    version: false,
    live: false,
    format: 'text',
    env: { ...env },
    operands: [],
    updateBaseline: false,
  };
  for (let index = 0; index < args.length; index++) {
    const arg = args[index]!;
    const equals = arg.startsWith('--') ? arg.indexOf('=') : -1;
    const name = equals > 0 ? arg.slice(0, equals) : arg;
    const inline = equals > 0 ? arg.slice(equals + 1) : undefined;
    const value = (): string | undefined => inline ?? (index + 1 < args.length ? args[++index] : undefined);
    if (name === '--help' || name === '-h') parsed.help = true;
    else if (name === '--version' || name === '-v') parsed.version = true;
    else if (name === '--live') parsed.live = true;
    else if (name === '--check-config' && parsed.command === undefined) parsed.command = 'doctor';
    else if (name === '--update-baseline') parsed.updateBaseline = true;
    else if (name === '--baseline') {
      const given = value();
      if (given === undefined || given === '') return { problem: '--baseline needs a value: the baseline file' };
      parsed.baseline = given;
    } else if (name === '--format') {
      const format = value();
      if (!FORMATS.includes(format as Format))
        return { problem: `--format must be one of ${FORMATS.join(', ')}, got ${shownSetting(format ?? '')}` };
      parsed.format = format as Format;
    } else if (Object.hasOwn(FLAG_VARIABLES, name)) {
      const given = value();
      if (given === undefined || given === '') return { problem: `${name} needs a value` };
      parsed.env[FLAG_VARIABLES[name as keyof typeof FLAG_VARIABLES]] = given;
    } else if (name === '--') {
      parsed.operands.push(...args.slice(index + 1));
      break;
    } else if (name.startsWith('-') && name !== '-')
      return { problem: `unknown flag ${/^--?[a-z][a-z-]{0,30}$/.test(name) ? `\`${name}\`` : shownSetting(name)}` };
    else if (
      parsed.command === undefined &&
      parsed.operands.length === 0 &&
      (arg === 'check' || arg === 'doctor' || arg === 'serve')
    )
      parsed.command = arg;
    else parsed.operands.push(arg);
  }
  if (parsed.updateBaseline && parsed.baseline === undefined)
    return { problem: '--update-baseline needs --baseline FILE: the file to write' };
  return parsed;
}

function processOutput(): Output {
  return {
    out: (text) => process.stdout.write(text),
    err: (text) => process.stderr.write(text),
    // Read when a command asks: touching process.stderr makes its stream, which serving does not need before it logs.
    get stderrIsTerminal() {
      return process.stderr.isTTY === true;
    },
  };
}

// ─────────────── formats ───────────────

/**
 * The `check` and `doctor` commands (deferred.ts), loaded when one runs: the server's start never compiles them, nor
 * the contract and document code they bring (issue 20; in the single-file build they are its deferred part).
 */
async function commands(): Promise<typeof import('./deferred.ts')> {
  return (await importDeferred(new URL('./deferred.ts', import.meta.url))) as typeof import('./deferred.ts');
}
