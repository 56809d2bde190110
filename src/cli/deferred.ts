/**
 * The deferred part of the server (src/runtime/deferred.ts): what the main thread loads only when it needs it. The
 * `check` and `doctor` commands, and the check worker's loop (worker-thread.ts, which starts only in the check worker).
 * The single-file build bundles this module apart and carries it as text (scripts/build.ts).
 */
export { runCheck } from './check.ts';
export { runDoctor } from './doctor.ts';
import '../jobs/worker-thread.ts';
