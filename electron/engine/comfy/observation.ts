// What went wrong talking to a ComfyUI server, as an observation. The client never decides
// whether a failure is transient or permanent — the engine classifies these (SPEC §5). Every
// failure the client can see lands in exactly one of these kinds, so the engine's classifier
// can be an exhaustive switch.

/** One failed exchange with a ComfyUI server. */
export type ComfyFailure =
  /** The server answered with a non-success status we do not interpret on this route. */
  | { kind: 'http'; status: number; body: unknown; bodyText: string }
  /** Nothing listens on that address (ECONNREFUSED). */
  | { kind: 'refused' }
  /** The connection dropped mid-exchange (ECONNRESET, EPIPE, undici "other side closed"). */
  | { kind: 'reset' }
  /** No (complete) answer in time. `afterMs` is the budget that ran out. */
  | { kind: 'timeout'; afterMs: number }
  /** The server answered 2xx but the body is not what ComfyUI sends (bad JSON, schema mismatch). */
  | { kind: 'malformed'; detail: string }
  /** The caller aborted through its own AbortSignal. */
  | { kind: 'aborted' }
  /**
   * Any other network-level error (DNS failure, host unreachable, TLS…). Kept separate so it is
   * never mislabelled as refused/reset; `code` is Node's or undici's error code when there is one.
   */
  | { kind: 'network'; code: string | null; message: string };

export type ComfyFailureKind = ComfyFailure['kind'];

/** Thrown by every ComfyClient method for failures it does not model as a normal result. */
export class ComfyRequestError extends Error {
  override readonly name = 'ComfyRequestError';
  constructor(
    readonly failure: ComfyFailure,
    /** e.g. `GET /queue` — for logs and operator messages. */
    readonly route: string,
    options?: { cause?: unknown },
  ) {
    super(`${route}: ${describeFailure(failure)}`, options);
  }
}

/** A value or the failure observed while trying to get it. */
export type ComfyResult<T> = { ok: true; value: T } | { ok: false; failure: ComfyFailure; route: string };

/**
 * Runs a client call and turns a thrown ComfyRequestError into a result; any other error is a
 * programming bug and is re-thrown.
 */
export async function settle<T>(call: () => Promise<T>): Promise<ComfyResult<T>> {
  try {
    return { ok: true, value: await call() };
  } catch (err) {
    if (err instanceof ComfyRequestError) return { ok: false, failure: err.failure, route: err.route };
    throw err;
  }
}

export function describeFailure(f: ComfyFailure): string {
  switch (f.kind) {
    case 'http':
      // The status only: the body is kept in the failure for code to read, never put into words —
      // a URL pointed at an internal service would otherwise show that service's answer in the UI.
      return `HTTP ${f.status}`;
    case 'refused':
      return 'connection refused';
    case 'reset':
      return 'connection reset';
    case 'timeout':
      return `no answer within ${f.afterMs} ms`;
    case 'malformed':
      return `unexpected response: ${f.detail}`;
    case 'aborted':
      return 'aborted';
    case 'network':
      return `network error${f.code ? ` ${f.code}` : ''}: ${f.message}`;
  }
}

const RESET_CODES = new Set(['ECONNRESET', 'EPIPE', 'UND_ERR_SOCKET', 'UND_ERR_CLOSED', 'ECONNABORTED']);
const TIMEOUT_CODES = new Set([
  'UND_ERR_HEADERS_TIMEOUT',
  'UND_ERR_BODY_TIMEOUT',
  'UND_ERR_CONNECT_TIMEOUT',
  'ETIMEDOUT',
]);

/**
 * Maps an error thrown by undici / Node / ws to an observation.
 *
 * Which signal fired decides timeout vs aborted, not the error's shape: undici rethrows
 * `signal.reason`, which may be anything the aborting party chose. So the caller passes what it
 * knows (`timedOut`, `callerAborted`); the error is only inspected when neither fired.
 */
export function failureFromError(
  err: unknown,
  ctx: { timeoutMs: number; timedOut?: boolean; callerAborted?: boolean },
): ComfyFailure {
  if (ctx.timedOut) return { kind: 'timeout', afterMs: ctx.timeoutMs };
  if (ctx.callerAborted) return { kind: 'aborted' };
  if (err instanceof ComfyRequestError) return err.failure;
  const codes = errorCodes(err);
  if (codes.includes('ECONNREFUSED')) return { kind: 'refused' };
  if (codes.some((c) => TIMEOUT_CODES.has(c))) return { kind: 'timeout', afterMs: ctx.timeoutMs };
  if (codes.some((c) => RESET_CODES.has(c))) return { kind: 'reset' };
  const name = err instanceof Error ? err.name : '';
  if (name === 'TimeoutError') return { kind: 'timeout', afterMs: ctx.timeoutMs };
  if (name === 'AbortError' || codes.includes('UND_ERR_ABORTED') || codes.includes('ABORT_ERR')) {
    return { kind: 'aborted' };
  }
  return {
    kind: 'network',
    code: codes[0] ?? null,
    message: err instanceof Error ? err.message : String(err),
  };
}

/**
 * Collects `code` from the error, its `cause` chain and AggregateError members (Node's
 * happy-eyeballs connect reports ECONNREFUSED per address inside an AggregateError).
 */
function errorCodes(err: unknown, depth = 0): string[] {
  if (depth > 5 || typeof err !== 'object' || err === null) return [];
  const out: string[] = [];
  const code = (err as { code?: unknown }).code;
  if (typeof code === 'string') out.push(code);
  if (err instanceof AggregateError) for (const e of err.errors) out.push(...errorCodes(e, depth + 1));
  out.push(...errorCodes((err as { cause?: unknown }).cause, depth + 1));
  return out;
}
