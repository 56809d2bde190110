/**
 * The start-up rows of `npm run bench`, measured like with like (issue 20): both sides of a row are spawned the same
 * way (this Node, no flags, stdio pipes) with the same environment, the names in `BENCH_ENVIRONMENT` from the parent
 * plus the row's configuration. `bench/startup-harness.test.ts` checks that the two sides get identical environments.
 */
import { spawn } from 'node:child_process';
import type { ChildProcessWithoutNullStreams, SpawnOptionsWithoutStdio } from 'node:child_process';

/**
 * The parent's variables a bench child gets, and no others: an inherited `NODE_EXTRA_CA_CERTS` alone adds 80 to 90 ms
 * to every Node start (issue 20), and `NODE_OPTIONS` could add anything.
 */
export const BENCH_ENVIRONMENT = ['PATH', 'HOME'] as const;

/** How one side of a row is started: the command, its arguments and its whole environment. */
export type SpawnSpec = { command: string; args: string[]; env: Record<string, string> };

/** Starts a process; `node:child_process` `spawn` by default, a recorder in the harness test. */
export type SpawnFunction = (
  command: string,
  args: string[],
  options: SpawnOptionsWithoutStdio,
) => ChildProcessWithoutNullStreams;

/**
 * The environment of a bench child: `BENCH_ENVIRONMENT` read from `parent` (a missing one as ''), then `settings`.
 * @returns A new object; `parent` is not changed.
 */
export function benchEnvironment(
  parent: Record<string, string | undefined>,
  settings: Record<string, string> = {},
): Record<string, string> {
  const env: Record<string, string> = {};
  for (const name of BENCH_ENVIRONMENT) env[name] = parent[name] ?? '';
  return { ...env, ...settings };
}

/** The program of the floor: a bare Node that writes one line and waits for stdin to close, as a server would. */
export const BARE_NODE_LINE = `process.stdout.write('ready\\n');process.stdin.resume();process.stdin.on('end',()=>process.exit(0))`;

/**
 * The two sides of one start-up row: the server (`serverArgs`, e.g. the single-file build) and a bare Node writing one
 * line, both with `benchEnvironment(parent, settings)`, so the server's configuration is in the floor's environment too.
 * @returns `{ours, floor}`, each a `SpawnSpec` with `command` the given Node binary.
 */
export function startupSides(
  node: string,
  serverArgs: string[],
  parent: Record<string, string | undefined>,
  settings: Record<string, string>,
): { ours: SpawnSpec; floor: SpawnSpec } {
  return {
    ours: { command: node, args: serverArgs, env: benchEnvironment(parent, settings) },
    floor: { command: node, args: ['-e', BARE_NODE_LINE], env: benchEnvironment(parent, settings) },
  };
}

/**
 * Spawns `spec` with stdio pipes through `spawnFunction`, and returns the child.
 */
export function spawnSide(spec: SpawnSpec, spawnFunction: SpawnFunction = spawn): ChildProcessWithoutNullStreams {
  return spawnFunction(spec.command, spec.args, { env: spec.env, stdio: ['pipe', 'pipe', 'pipe'] } as never);
}

/**
 * Time from spawn to the first line on stdout, in ms (wall clock); the child is then ended (stdin closed) and awaited.
 * Rejects when the child exits before writing a line.
 */
export async function timeToFirstLine(spec: SpawnSpec, spawnFunction: SpawnFunction = spawn): Promise<number> {
  const began = performance.now();
  const child = spawnSide(spec, spawnFunction);
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  const took = await new Promise<number>((resolve, reject) => {
    let text = '';
    child.stdout.setEncoding('utf8');
    child.stdout.on('data', (chunk: string) => {
      text += chunk;
      if (text.includes('\n')) resolve(performance.now() - began);
    });
    void exited.then(() => reject(new Error(`${spec.args.join(' ')} exited before writing a line`)));
  });
  child.stdin.end();
  await exited;
  return took;
}
