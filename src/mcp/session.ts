/**
 * The session: one JSON-RPC message in, its reply out (or none), whatever transport carries it. Lifecycle
 * (`initialize`, version negotiation), `tools/list`, `tools/call` with request ids, argument checks, the shared gate
 * and rate limit, cancellation, the per-call log record and audit line (MCP 2025-11-25: Lifecycle, Tools,
 * Utilities). Knows no stream: the transport hands it parsed messages (`src/mcp/wire.ts`) and writes its replies.
 */
import { describeType } from '../shared/values.ts';
import type { ContractService } from '../jobs/jobs.ts';
import { redactedContents, structuredTexts } from '../jobs/answers.ts';
import type { Seen } from '../jobs/pipeline.ts';
import { redactor } from '../redaction/redaction.ts';
import type { Redactor } from '../redaction/redaction.ts';
import type { Config } from '../runtime/config.ts';
import { createGate, createRateLimit } from '../runtime/limits.ts';
import type { Gate, RateLimit } from '../runtime/limits.ts';
import { SILENT, createAudit, newRequestId, publicUrl, traceparentFor } from '../runtime/log.ts';
import type { Logger } from '../runtime/log.ts';
import { SERVER_INFO } from '../runtime/server-info.ts';
import { argumentProblem } from './arguments.ts';
import {
  ERROR_CODES,
  LoggedError,
  META_KEYS,
  MODERN_VERSIONS,
  PROTOCOL_VERSIONS,
  RpcError,
  errorResponse,
  isModernVersion,
  missingMetaFields,
  missingMetaMessage,
} from './codes.ts';
import type { JsonRpcResponse, RequestId } from './codes.ts';
import { ProbeLog } from './memory.ts';
import type { MemoryLimits, SharedBudget } from './memory.ts';
import { failure } from './tool.ts';
import type { Tool, ToolContext, ToolResult, Trace } from './tool.ts';
import { TOOLS, toolsFor } from './tools.ts';
import type { Audit } from '../runtime/log.ts';
import { boundedText } from '../shared/text.ts';
import { oversizedIdText } from '../shared/json-text.ts';
const INSTRUCTIONS =
  'openapi-probe lets you look at a real HTTP API while you write a client for it, without changing anything. ' +
  'Find the operation behind an intent, path or operationId with `find_operation`, and read its contract with ' +
  '`describe_operation` (as: "typescript" gives the type to paste; required fields as the document says, not as one example shows). ' +
  'Use `probe` to GET a path (relative to the configured base URL; GET is the only method, the API key is added for you and never shown). ' +
  'Each response is checked against the OpenAPI document: trust `findings` over a single example. A field absent in one record may be ' +
  'optional: probe several records with `probe_sample` (or `probe` each, then `field_presence`) before making any field required. ' +
  'Fields marked undocumented are not in the contract: do not rely on them. `compare_fixture` shows how a saved test fixture differs ' +
  'from the live record. Writes are never sent: check them with `draft_request`, which returns a curl command for a person to run.';

/** The sentence that heads the instructions and the first tool answer while the document cannot be loaded. */
function setupProblem(problem: string): string {
  return `Set-up problem: the OpenAPI document (OPENAPI_DOC) was not loaded, so probes are not checked and the contract tools cannot answer: ${problem}. Tell the person who configured this server.`;
}

/** Every revision served, newest first: the stateless era's, then the `initialize` era's (`server/discover` lists them). */
const SUPPORTED_VERSIONS = [...MODERN_VERSIONS, ...PROTOCOL_VERSIONS];

/** Longest method name a -32601 error repeats, in characters. */
const MAX_ECHOED_METHOD = 200;

/** Longest requested version an -32022 error repeats, in characters. */
const MAX_ECHOED_VERSION = 64;

/** The server as results name it: `serverInfo` of `initialize`, `_meta` serverInfo of the stateless era. */
const SERVER_IDENTITY = { name: SERVER_INFO.name, version: SERVER_INFO.version, title: 'OpenAPI Probe' };

/** What every stateless-era result carries in `_meta` (MCP 2026-07-28: servers SHOULD name themselves there). */
const STAMP = { _meta: { [META_KEYS.serverInfo]: SERVER_IDENTITY } };

/**
 * How long a client may reuse `server/discover` and `tools/list`, in ms (MCP 2026-07-28, Caching): the tools change only
 * when the document loads (their examples, issue 17).
 */
const LIST_TTL_MS = 3_600_000;

/**
 * How long a client may reuse `tools/list` while the document is still loading, in ms: none, since the descriptions
 * gain the document's examples once it has loaded (MCP 2026-07-28, Caching: 0 is immediately stale). The stateless era
 * has no notification outside a `subscriptions/listen` stream, which this server does not offer.
 */
const LOADING_LIST_TTL_MS = 0;

/** Revision-dependent fields to leave out (MCP Lifecycle: respect the negotiated version). */
function olderThan(version: string, than: string): boolean {
  return version < than;
}

/**
 * Who sent a message, as a transport that authenticates its callers knows them; undefined on stdio. `tenant` and
 * `keyId` (the upstream key's short non-secret id) reach the audit record.
 */
export type Caller = { subject: string; clientId?: string; tenant?: string; keyId?: string };

/**
 * What a transport knows of one inbound message besides its content: the caller, the request id it minted on arrival
 * (used for the call instead of a new one, so one id runs through the whole chain), and the client's trace context
 * (`traceparent`, W3C Trace Context), from which the one sent upstream is made.
 */
export type Inbound = { caller?: Caller; requestId?: string; traceparent?: string };

/** One client's conversation with the server, whatever carries it (stdio lines, HTTP requests). */
export type Session = {
  /**
   * Answers one parsed JSON-RPC message: a response, or undefined for a notification or a client response. Never
   * rejects. `inbound.caller` reaches the tool context, the log records and the audit record of each call.
   */
  handle(message: unknown, inbound?: Inbound): Promise<JsonRpcResponse | JsonRpcResponse[] | undefined>;
  /** Settles when every call in flight has answered. */
  idle(): Promise<void>;
  /** Starts none of this session's tool calls until `release` (its transport's output is full); they wait, queued. Other sessions are not held. */
  hold(): void;
  /** Starts this session's waiting tool calls again after `hold`. */
  release(): void;
  /**
   * Ends the session: its waiting calls and every later tool call are refused, calls in flight are aborted (their
   * probes cancelled) and answered with an `isError` result naming `reason`.
   */
  close(reason: string): void;
  /**
   * Gives the session a way to send notifications of its own (a stdio transport's writer): it then declares
   * `tools.listChanged: true` at `initialize` and sends `notifications/tools/list_changed` once the document's examples
   * change what its client last listed, after `notifications/initialized` (MCP 2025-11-25, Tools, List Changed
   * Notification). A session never given one (HTTP) declares `listChanged: false` and sends none.
   */
  listen(send: (notification: Record<string, unknown>) => void): void;
};

/**
 * What every session of the process shares, built once by the entry: the configuration, the key redactor, the
 * logger, the concurrency gate, the rate limit and the audit writer, and the contract service (the check worker).
 * Shared so that N sessions mean the configured concurrency and API quota once, not N times.
 */
export type ServerRuntime = {
  config: Config;
  redact: Redactor;
  logger: Logger;
  gate: Gate;
  rate: RateLimit;
  audit?: Audit;
  contract: ContractService;
  /** Makes request ids; `newRequestId` by default. */
  requestId: () => string;
  /** Injected fetch (tests); by default the GET runs on `node:http`. */
  fetch?: typeof fetch;
};

/**
 * Builds the runtime every session shares (`ServerRuntime`), each part from `options` when given, else from `config`:
 * the redactor from `config.apiKey`, the gate from `config.concurrency`, the rate limit from `config.ratePerMinute`,
 * the audit writer from `config.auditLog`; `options.contract` runs every step that needs the document: the check
 * worker, as the entry passes it, or in-process.ts `inProcessRuntime`'s on this thread (tests, the `check` command).
 */
export function createServerRuntime(
  config: Config,
  options: {
    fetch?: typeof fetch;
    logger?: Logger;
    redact?: Redactor;
    gate?: Gate;
    rate?: RateLimit;
    requestId?: () => string;
    contract: ContractService;
  },
): ServerRuntime {
  const redact = options.redact ?? redactor(config.apiKey);
  const logger = options.logger ?? SILENT;
  return {
    config,
    redact,
    logger,
    contract: options.contract,
    gate: options.gate ?? createGate(config.concurrency ?? 4),
    rate: options.rate ?? createRateLimit(config.ratePerMinute ?? 60),
    requestId: options.requestId ?? newRequestId,
    ...(config.auditLog
      ? { audit: createAudit(config.auditLog, logger, redact.text, { maxBytes: config.auditMaxBytes }) }
      : {}),
    ...(options.fetch ? { fetch: options.fetch } : {}),
  };
}

/** Marks an abort that comes from `shutdown`, not from the client's `notifications/cancelled`. */
const SHUTDOWN = Symbol('shutdown');

/**
 * Creates the dispatcher for one session (one stdio connection). Implements `initialize`, `ping`,
 * `tools/list`, `tools/call` and the notifications `notifications/initialized` and
 * `notifications/cancelled` (MCP 2025-11-25: Lifecycle, Tools, Utilities/Ping, Utilities/Cancellation).
 * Unknown methods get -32601, before `initialize` too; ids keep their JSON type (`20` and `"20"`
 * differ); a request whose id is null or not a string/integer gets -32600 with id null; a batch
 * (JSON-RPC 2.0, 6) is answered element by element.
 *
 * Each tool call gets a request id (12 hex characters): it is sent to the API as `X-Request-Id`,
 * returned as `structuredContent.requestId` (and in the text; an error result without structured
 * content gets a second text block `requestId: ...`), and on every log line and the audit line of
 * the call. Tool calls run at most `config.concurrency` at once, up to `QUEUE_SIZE` more wait and
 * further ones get an `isError` result; `ping`, `initialize` and `tools/list` never wait.
 * Requests sent to the API are limited to `config.ratePerMinute` (an `isError` result with the
 * seconds to wait); tools that send nothing are not counted.
 * @param config From `readConfig`.
 * @param options.fetch Injected fetch for tests.
 * @param options.documents Document source; default built from `config.openapiDoc`.
 * @param options.logger Log records (default: none).
 * @param options.redact The key redactor; default built from `config.apiKey` (pass the one the transport uses, to build it once).
 * @param options.gate The concurrency gate; default `createGate(config.concurrency)`.
 * @param options.rate The rate limit; default `createRateLimit(config.ratePerMinute)`.
 * @param options.requestId Makes request ids (tests); default `newRequestId`.
 * @param options.memory Session memory limits (tests); default `MEMORY_LIMITS`.
 * @param options.sharedMemory A body budget this session's memory shares with others (the HTTP transport's); its
 *   bodies are given back when the session closes.
 * @param options.contract Runs every step that needs the document (src/jobs/jobs.ts): the check worker
 *   (check-worker.ts `createCheckWorker`, as `main` does) or `inProcessContract` on this thread (in-process.ts).
 */
export function createSession(
  runtime: ServerRuntime,
  options: { memory?: MemoryLimits; sharedMemory?: SharedBudget } = {},
): Session {
  const { config, redact, contract, logger, gate, rate, audit } = runtime;
  const probeLog = new ProbeLog<Seen>(options.memory, options.sharedMemory);
  let held = false;
  let negotiated: string = PROTOCOL_VERSIONS[0];
  const inFlight = new Map<string, AbortController>();
  const pending = new Set<Promise<unknown>>();
  let stopping: string | undefined;
  let notify: ((notification: Record<string, unknown>) => void) | undefined;
  let initialized = false;
  // The examples (as JSON text) of the tools this session's client last listed; undefined until it lists.
  let listedWith: string | undefined;
  const examplesNow = () => contract.examples?.() ?? { loaded: true };
  const toolsNow = () => toolsFor(examplesNow().examples);
  const examplesKey = () => JSON.stringify(examplesNow().examples ?? null);

  /** Sends `notifications/tools/list_changed` when the tools differ from those the client last listed, once per change. */
  function tellListChanged(): void {
    if (!notify || !initialized || stopping !== undefined || listedWith === undefined) return;
    const now = examplesKey();
    if (now === listedWith) return;
    listedWith = now;
    logger.info('tools.list.changed', { reason: 'document examples' });
    notify({ jsonrpc: '2.0', method: 'notifications/tools/list_changed' });
  }

  /** Runs one tools/call: request id, queue, the tool, then the log record and the audit line. */
  async function callTool(
    name: string,
    params: Record<string, unknown>,
    signal: AbortSignal,
    inbound: Inbound,
  ): Promise<ToolResult> {
    const caller = inbound.caller;
    const examples = examplesNow().examples;
    const tool = toolsFor(examples).find((candidate) => candidate.name === name)!;
    const rid = inbound.requestId ?? runtime.requestId();
    // The client's trace context from `_meta` (MCP 2026-07-28) wins over the transport's header. Sent upstream for
    // calls that came over a transport minting request ids (HTTP) or named a trace; stdio calls send what they sent before.
    const meta = params._meta as Record<string, unknown> | null | undefined;
    const named = meta !== null && typeof meta === 'object' && typeof meta.traceparent === 'string';
    const traceparent =
      named || inbound.requestId !== undefined
        ? traceparentFor(named ? meta.traceparent : inbound.traceparent)
        : undefined;
    const began = performance.now();
    const trace: Trace = {};
    let called: ToolResult;
    // At shutdown a call is answered as cancelled at once, even when its work cannot notice the abort (a body
    // being checked in the worker): the process exits after the grace, and no call may go unanswered.
    const stopped = new Promise<ToolResult>((resolve) => {
      signal.addEventListener(
        'abort',
        () => {
          if (signal.reason === SHUTDOWN)
            resolve(failure(`Cancelled: the server is shutting down (${stopping}); the call did not finish.`));
        },
        { once: true },
      );
    });
    try {
      called = await Promise.race([
        runTool(tool, name, params, signal, rid, trace, caller, traceparent, examples),
        stopped,
      ]);
    } catch (error) {
      // A large argument that turned out not to be JSON when the worker parsed it: -32700 under the call's id (handleOne).
      if (error instanceof RpcError) {
        logger.error('tool.call.error', {
          rid,
          caller: caller?.subject,
          tool: name,
          reason: error.message.slice(0, 300),
          took_ms: Math.round(performance.now() - began),
        });
        throw error;
      }
      // Answered with -32603 by handleOne; logged here so the record carries the call's id.
      logger.error('tool.call.error', {
        rid,
        caller: caller?.subject,
        tool: name,
        reason: `internal: ${String((error as Error)?.stack ?? error)
          .replace(/\s+/g, ' ')
          .slice(0, 2000)}`,
        took_ms: Math.round(performance.now() - began),
      });
      throw new LoggedError(error);
    }
    if (signal.aborted && signal.reason === SHUTDOWN)
      called = failure(`Cancelled: the server is shutting down (${stopping}); the call did not finish.`);
    const tookMs = Math.round(performance.now() - began);
    const structured = called.structuredContent;
    const status = typeof structured?.status === 'number' ? structured.status : null;
    const bytes = typeof structured?.bytes === 'number' ? structured.bytes : null;
    const findings = Array.isArray(structured?.findings) ? structured.findings.length : null;
    if (structured || !called.isError) {
      logger.info('tool.call.done', {
        rid,
        caller: caller?.subject,
        tool: name,
        status: status ?? undefined,
        bytes: bytes ?? undefined,
        findings: findings ?? undefined,
        is_error: called.isError ? true : undefined,
        took_ms: tookMs,
      });
    } else {
      // Redacted whole before it is shortened, so a cut can never leave the start of the key, and a short reason stays whole.
      const reason = redact.text(called.content[0]?.text ?? '');
      logger.error('tool.call.error', {
        rid,
        caller: caller?.subject,
        tool: name,
        reason: reason.length > 300 ? `${reason.slice(0, 300)}…` : reason,
        took_ms: tookMs,
      });
    }
    // The URL without secrets is made only for the audit line (nothing else reads it).
    await audit?.write({
      time: new Date().toISOString(),
      rid,
      ...(caller
        ? {
            caller: caller.subject,
            ...(caller.clientId ? { client_id: caller.clientId } : {}),
            ...(caller.tenant ? { tenant: caller.tenant } : {}),
            ...(caller.keyId ? { key_id: caller.keyId } : {}),
            decision: 'allowed' as const,
          }
        : {}),
      tool: name,
      method: trace.method ?? null,
      url: trace.url ? publicUrl(trace.url, config.baseUrl) : null,
      status,
      bytes,
      findings,
      isError: called.isError === true,
      took_ms: tookMs,
    });
    return withRequestId(called, rid);
  }

  async function runTool(
    tool: Tool,
    name: string,
    params: Record<string, unknown>,
    signal: AbortSignal,
    rid: string,
    trace: Trace,
    caller: Caller | undefined,
    traceparent: string | undefined,
    examples: ToolContext['examples'],
  ): Promise<ToolResult> {
    const args = params.arguments ?? {};
    if (args === null || typeof args !== 'object' || Array.isArray(args)) {
      return { ...failure(`\`arguments\` for ${name} must be an object, got ${describeType(args)}.`) };
    }
    const problem = argumentProblem(tool, args as Record<string, unknown>);
    if (problem) return { ...failure(problem) };
    const waited = performance.now();
    if (stopping !== undefined) return failure(`Refused: the server is shutting down (${stopping}); nothing was sent.`);
    // A held session (its transport's output full) starts none of its calls; other sessions sharing the gate go on.
    const admitted = await gate.enter(signal, () => !held);
    if ('refusal' in admitted) return failure(admitted.refusal);
    logger.debug('queue.wait.done', { rid, tool: name, took_ms: Math.round(performance.now() - waited) });
    try {
      return await tool.handler(args as Record<string, unknown>, {
        config,
        redact,
        log: probeLog,
        fetch: runtime.fetch,
        signal,
        requestId: rid,
        ...(traceparent ? { traceparent } : {}),
        rate,
        trace,
        contract,
        ...(caller ? { caller } : {}),
        ...(examples ? { examples } : {}),
      });
    } finally {
      admitted.slot.release();
    }
  }

  // Not async itself: it hands back the era's own promise, so a reply takes no more turns than before there were two eras
  // (replies to a burst of pings keep the order of the requests).
  function dispatch(
    method: string,
    params: Record<string, unknown>,
    signal: AbortSignal,
    inbound: Inbound,
  ): Promise<Record<string, unknown>> {
    // A request that names its revision in `_meta` is served statelessly by that revision's rules (MCP 2026-07-28,
    // Versioning: a dual-era server picks the era from how the client opens); `initialize` selects the legacy era.
    const meta = params._meta;
    const named =
      meta !== null && typeof meta === 'object'
        ? (meta as Record<string, unknown>)[META_KEYS.protocolVersion]
        : undefined;
    // `initialize` naming a stateless-era revision is that era's request, where the method does not exist.
    const modernNamed = isModernVersion(named);
    if (named !== undefined && (method !== 'initialize' || modernNamed)) {
      if (typeof named !== 'string' || !(SUPPORTED_VERSIONS as readonly string[]).includes(named)) {
        return Promise.reject(
          new RpcError(ERROR_CODES.unsupportedProtocolVersion, 'Unsupported protocol version', {
            supported: SUPPORTED_VERSIONS,
            // The client's own value, bounded: a megabyte-long "version" must not come back whole.
            requested: boundedText(
              typeof named === 'string' ? named : String(JSON.stringify(named)),
              MAX_ECHOED_VERSION,
            ),
          }),
        );
      }
      if (modernNamed) {
        const missing = missingMetaFields(meta);
        if (missing.length > 0)
          return Promise.reject(new RpcError(ERROR_CODES.invalidParams, missingMetaMessage(missing)));
        return modern(method, params, signal, inbound);
      }
      return byRevision(method, params, signal, inbound, named);
    }
    return byRevision(method, params, signal, inbound, negotiated);
  }

  /**
   * A request of the stateless era (MCP 2026-07-28): `server/discover`, `tools/list` and `tools/call`, each result
   * marked complete and naming the server in `_meta`; `ping` and `initialize` belong to the other era.
   */
  let toldDocumentProblem = false;
  /** The instructions, headed by the set-up problem when the document is already known to have failed to load. */
  function instructionsNow(): string {
    const problem = contract.documentProblem();
    return problem ? `${setupProblem(problem)}\n\n${INSTRUCTIONS}` : INSTRUCTIONS;
  }

  async function modern(
    method: string,
    params: Record<string, unknown>,
    signal: AbortSignal,
    inbound: Inbound,
  ): Promise<Record<string, unknown>> {
    switch (method) {
      case 'server/discover':
        return {
          resultType: 'complete',
          supportedVersions: SUPPORTED_VERSIONS,
          capabilities: { tools: { listChanged: false } },
          instructions: instructionsNow(),
          ttlMs: LIST_TTL_MS,
          cacheScope: 'public',
          ...STAMP,
        };
      case 'tools/list':
        return {
          resultType: 'complete',
          ...(await byRevision(method, params, signal, inbound, MODERN_VERSIONS[0])),
          ttlMs: examplesNow().loaded ? LIST_TTL_MS : LOADING_LIST_TTL_MS,
          cacheScope: 'public',
          ...STAMP,
        };
      case 'tools/call':
        return {
          resultType: 'complete',
          ...(await byRevision(method, params, signal, inbound, MODERN_VERSIONS[0])),
          ...STAMP,
        };
      default:
        throw new RpcError(ERROR_CODES.methodNotFound, `Method not found: ${boundedText(method, MAX_ECHOED_METHOD)}`);
    }
  }

  /**
   * A request by the rules of `version`, a revision of either era: fields the revision does not define are left out.
   * The stateless era's own fields are added by `modern`.
   */
  async function byRevision(
    method: string,
    params: Record<string, unknown>,
    signal: AbortSignal,
    inbound: Inbound,
    version: string,
  ): Promise<Record<string, unknown>> {
    switch (method) {
      case 'initialize': {
        const requested = params.protocolVersion;
        // The revision a client asks for is a string (MCP 2025-11-25, Lifecycle, Initialization; the schema requires it).
        if (typeof requested !== 'string')
          throw new RpcError(
            ERROR_CODES.invalidParams,
            `initialize needs params.protocolVersion, the revision the client speaks as a string (e.g. "${PROTOCOL_VERSIONS[0]}"), got ${requested === undefined ? 'none' : describeType(requested)}.`,
          );
        negotiated = (PROTOCOL_VERSIONS as readonly string[]).includes(requested) ? requested : PROTOCOL_VERSIONS[0];
        // `title` is defined from 2025-06-18 on.
        const { title, ...untitled } = SERVER_IDENTITY;
        const serverInfo = olderThan(negotiated, '2025-06-18') ? untitled : { ...untitled, title };
        return {
          protocolVersion: negotiated,
          capabilities: { tools: { listChanged: notify !== undefined } },
          serverInfo,
          instructions: instructionsNow(),
        };
      }
      case 'ping':
        return {};
      case 'tools/list': {
        if (params.cursor !== undefined && params.cursor !== null)
          throw new RpcError(
            ERROR_CODES.invalidParams,
            'Invalid cursor: this server lists every tool on one page and issues no cursors.',
          );
        // Stateless-era lists are never followed by a notification; only a legacy client's list is remembered.
        if (version === negotiated) listedWith = examplesKey();
        return {
          tools: toolsNow().map((tool) => {
            const listed: Record<string, unknown> = {
              name: tool.name,
              description: tool.description,
              inputSchema: tool.inputSchema,
            };
            if (!olderThan(version, '2025-06-18')) {
              listed.title = tool.title;
              if (tool.outputSchema) listed.outputSchema = tool.outputSchema;
            }
            if (!olderThan(version, '2025-03-26')) listed.annotations = tool.annotations;
            return listed;
          }),
        };
      }
      case 'tools/call': {
        const name = params.name;
        if (typeof name !== 'string')
          throw new RpcError(
            ERROR_CODES.invalidParams,
            '`params.name` must be the name of a tool: ' + TOOLS.map((tool) => tool.name).join(', '),
          );
        const tool = TOOLS.find((candidate) => candidate.name === name);
        if (!tool)
          throw new RpcError(
            ERROR_CODES.invalidParams,
            `Unknown tool: ${name}. Available: ${TOOLS.map((candidate) => candidate.name).join(', ')}.`,
          );
        const called = await callTool(name, params, signal, inbound);
        if (olderThan(version, '2025-06-18')) delete called.structuredContent;
        // A document that failed to load is said at the head of the first answer after it is known (issue 17): the
        // agent sees the fix before it reads a probe's `validated: false`.
        const problem = contract.documentProblem();
        if (problem && !toldDocumentProblem && Array.isArray(called.content)) {
          toldDocumentProblem = true;
          called.content = [{ type: 'text', text: setupProblem(problem) }, ...called.content];
        }
        return { ...called };
      }
      default:
        throw new RpcError(ERROR_CODES.methodNotFound, `Method not found: ${boundedText(method, MAX_ECHOED_METHOD)}`);
    }
  }

  async function handleOne(message: unknown, inbound: Inbound): Promise<JsonRpcResponse | undefined> {
    if (message === null || typeof message !== 'object' || Array.isArray(message)) {
      return errorResponse(null, ERROR_CODES.invalidRequest, 'Invalid Request: a JSON-RPC message must be an object.');
    }
    const record = message as Record<string, unknown>;
    const hasId = 'id' in record;
    const id = record.id;
    // MCP 2025-11-25, Base Protocol: a request id is a string or an integer.
    // An integer past 2^53 stands in as its text (`oversizedIdText`, src/shared/json-text.ts): refused under it.
    const oversized = oversizedIdText(id);
    const validId = (typeof id === 'string' && oversized === undefined) || Number.isSafeInteger(id);
    const replyId = validId || oversized !== undefined ? (id as RequestId) : null;
    if (typeof record.method !== 'string') {
      // A response from the client (we send no requests) or junk.
      if (!('result' in record) && !('error' in record)) {
        return errorResponse(replyId, ERROR_CODES.invalidRequest, 'Invalid Request: `method` must be a string.');
      }
      return undefined;
    }
    if (record.jsonrpc !== '2.0') {
      return hasId
        ? errorResponse(replyId, ERROR_CODES.invalidRequest, 'Invalid Request: `jsonrpc` must be "2.0".')
        : undefined;
    }
    const method = record.method;
    const params = record.params;
    if (!hasId) {
      // A notification: never answered (JSON-RPC 2.0, 4.1).
      if (method === 'notifications/initialized') {
        initialized = true;
        tellListChanged();
      }
      if (method === 'notifications/cancelled' && params && typeof params === 'object') {
        const target = (params as Record<string, unknown>).requestId;
        inFlight.get(idKey(target))?.abort();
      }
      return undefined;
    }
    if (oversized !== undefined)
      return errorResponse(
        replyId,
        ERROR_CODES.invalidRequest,
        `Invalid Request: \`id\` ${boundedText(oversized, 64)} is an integer past 2^53, which this server cannot hold exactly; send a string or a smaller integer (MCP 2025-11-25, Base Protocol).`,
      );
    if (!validId)
      return errorResponse(
        null,
        ERROR_CODES.invalidRequest,
        `Invalid Request: \`id\` must be a string or an integer, got ${describeType(id)} (MCP 2025-11-25, Base Protocol).`,
      );
    const requestId = id as RequestId;
    if (params !== undefined && (params === null || typeof params !== 'object' || Array.isArray(params))) {
      return errorResponse(requestId, ERROR_CODES.invalidParams, 'Invalid params: `params` must be an object.');
    }
    const controller = new AbortController();
    const key = idKey(requestId);
    if (method !== 'initialize') inFlight.set(key, controller);
    // An abort by the client means "no answer" (MCP Cancellation); an abort by shutdown is answered.
    const cancelled = () => controller.signal.aborted && controller.signal.reason !== SHUTDOWN;
    try {
      const outcome = await dispatch(method, (params ?? {}) as Record<string, unknown>, controller.signal, inbound);
      if (cancelled()) return undefined;
      return { jsonrpc: '2.0', id: requestId, result: outcome };
    } catch (error) {
      if (cancelled()) return undefined;
      if (error instanceof RpcError) return errorResponse(requestId, error.code, error.message, error.data);
      if (error instanceof LoggedError)
        return errorResponse(
          requestId,
          ERROR_CODES.internalError,
          `Internal error: ${(error.cause as Error)?.message ?? String(error.cause)}`,
        );
      logger.error('rpc.internal.error', {
        method,
        reason: String((error as Error)?.stack ?? error)
          .replace(/\s+/g, ' ')
          .slice(0, 2000),
      });
      return errorResponse(
        requestId,
        ERROR_CODES.internalError,
        `Internal error: ${(error as Error)?.message ?? String(error)}`,
      );
    } finally {
      if (inFlight.get(key) === controller) inFlight.delete(key);
    }
  }

  return {
    handle(message, given) {
      const inbound = given ?? {};
      const work = (async () => {
        if (Array.isArray(message)) {
          if (message.length === 0)
            return errorResponse(null, ERROR_CODES.invalidRequest, 'Invalid Request: empty batch.');
          const answers = (await Promise.all(message.map((one) => handleOne(one, inbound)))).filter(
            (answer): answer is JsonRpcResponse => answer !== undefined,
          );
          return answers.length ? answers : undefined;
        }
        return handleOne(message, inbound);
      })();
      pending.add(work);
      work.finally(() => pending.delete(work)).catch(() => {});
      return work;
    },
    async idle() {
      while (pending.size) await Promise.allSettled([...pending]);
    },
    hold() {
      held = true;
    },
    release() {
      held = false;
      gate.wake();
    },
    listen(send) {
      if (notify) return;
      notify = send;
      contract.onExamples?.(tellListChanged);
    },
    close(reason) {
      if (stopping !== undefined) return;
      stopping = reason;
      for (const controller of inFlight.values()) controller.abort(SHUTDOWN);
      probeLog.clear();
    },
  };
}

/**
 * A tool result carrying its request id: in `structuredContent.requestId` (and its JSON text block),
 * or, for an error result without structured content, as a second text block `requestId: <id>`.
 */
function withRequestId(called: ToolResult, rid: string): ToolResult {
  if (called.structuredContent) {
    const structured = { ...called.structuredContent, requestId: rid };
    const before = structuredTexts.get(called.structuredContent) ?? JSON.stringify(called.structuredContent);
    // `requestId` goes last in `structured`, so its JSON is `before` with the member appended (not serialized again).
    const after =
      Object.hasOwn(called.structuredContent, 'requestId') || !before.endsWith('}')
        ? JSON.stringify(structured)
        : `${before.length > 2 ? before.slice(0, -1) + ',' : '{'}"requestId":${JSON.stringify(rid)}}`;
    const content = called.content.map((block) => (block.text === before ? { ...block, text: after } : block));
    structuredTexts.set(structured, after);
    // The request id is this server's own hex: a content redacted where it was made stays so.
    if (redactedContents.has(called.structuredContent)) redactedContents.add(structured);
    return { ...called, content, structuredContent: structured };
  }
  if (called.isError) return { ...called, content: [...called.content, { type: 'text', text: `requestId: ${rid}` }] };
  return called;
}

function idKey(id: unknown): string {
  return `${typeof id}:${String(id)}`;
}
