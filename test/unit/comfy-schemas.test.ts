// Every recorded ComfyUI 0.3.64 response and WS frame goes through the client's own parsers.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readdirSync, readFileSync } from 'node:fs';
import { ComfyRequestError } from '../../electron/engine/comfy/observation.js';
import {
  missingNodeClassType,
  outputFiles,
  parseHistoryEntry,
  parseHistoryList,
  parsePromptRejection,
  parsePromptSuccess,
  parseQueue,
  validate,
} from '../../electron/engine/comfy/responses.js';
import {
  FeaturesSchema,
  ObjectInfoSchema,
  PromptQueueInfoSchema,
  SystemStatsSchema,
} from '../../electron/engine/comfy/schemas.js';
import { parseWsFrame } from '../../electron/engine/comfy/ws-events.js';

// Relative to the repo: CI places shared/ beside the checkout.
const FIXTURES = new URL('../fixtures/comfyui-recorded/', import.meta.url);

interface HttpEvent {
  kind: 'http';
  label?: string;
  request: { method: string; path: string };
  response: { status: number; body: { json?: unknown; text?: string } };
}
interface WsEvent {
  kind: 'ws';
  message: unknown;
}
interface Case {
  case: string;
  events: Array<HttpEvent | WsEvent | { kind: string }>;
}

function loadCase(file: string): Case {
  return JSON.parse(readFileSync(new URL(file, FIXTURES), 'utf8')) as Case;
}
const files = readdirSync(FIXTURES).filter((f) => f.endsWith('.json'));
const cases = files.map((f) => ({ file: f, c: loadCase(f) }));
const httpEvents = cases.flatMap(({ file, c }) =>
  c.events.filter((e): e is HttpEvent => e.kind === 'http').map((e) => ({ file, e })),
);
function http(file: string, pred: (e: HttpEvent) => boolean): HttpEvent[] {
  return httpEvents.filter((x) => x.file === file && pred(x.e)).map((x) => x.e);
}

test('fixtures are found through the relative shared/ location', () => {
  assert.ok(files.length >= 30, `found ${files.length} fixture files`);
});

test('every recorded JSON response of a parsed route passes its schema', () => {
  const counts = new Map<string, number>();
  for (const { file, e } of httpEvents) {
    const body = e.response.body.json;
    if (body === undefined) continue;
    const path = e.request.path.split('?')[0] ?? '';
    const key = `${e.request.method} ${path.replace(/^\/history\/.+/, '/history/{id}').replace(/^\/object_info\/.+/, '/object_info/{cls}')} ${e.response.status}`;
    const at = `${file} ${e.request.method} ${e.request.path}`;
    switch (key) {
      case 'POST /prompt 200':
        assert.equal(parsePromptSuccess(body).ok, true, at);
        break;
      case 'POST /prompt 400':
        assert.equal(parsePromptRejection(body).ok, false, at);
        break;
      case 'GET /queue 200':
        parseQueue(body);
        break;
      case 'GET /history/{id} 200': {
        const id = decodeURIComponent(path.slice('/history/'.length));
        parseHistoryEntry(body, id, at);
        break;
      }
      case 'GET /history 200':
        parseHistoryList(body);
        break;
      case 'GET /object_info/{cls} 200':
        validate(ObjectInfoSchema, body, at);
        break;
      case 'GET /system_stats 200':
      case 'GET /api/system_stats 200':
        validate(SystemStatsSchema, body, at);
        break;
      case 'GET /features 200':
        validate(FeaturesSchema, body, at);
        break;
      case 'GET /prompt 200':
        validate(PromptQueueInfoSchema, body, at);
        break;
      default:
        assert.fail(`unhandled recorded JSON response ${key} in ${file}`);
    }
    counts.set(key, (counts.get(key) ?? 0) + 1);
  }
  for (const route of [
    'POST /prompt 200',
    'POST /prompt 400',
    'GET /queue 200',
    'GET /history/{id} 200',
    'GET /history 200',
    'GET /object_info/{cls} 200',
  ]) {
    assert.ok((counts.get(route) ?? 0) > 0, `no recorded ${route}`);
  }
});

test('every recorded WS frame parses as a known typed message', () => {
  let n = 0;
  for (const { file, c } of cases) {
    for (const e of c.events) {
      if (e.kind !== 'ws') continue;
      const parsed = parseWsFrame((e as WsEvent).message);
      assert.equal(parsed.kind, 'known', `${file}: ${JSON.stringify((e as WsEvent).message).slice(0, 200)}`);
      n++;
    }
  }
  assert.ok(n > 100, `${n} frames`);
});

test('unknown WS types are reported as unknown and bad known frames as malformed', () => {
  assert.deepEqual(parseWsFrame({ type: 'logs', data: { x: 1 } }), { kind: 'unknown', type: 'logs', data: { x: 1 } });
  assert.equal(parseWsFrame({ type: 'execution_start', data: {} }).kind, 'malformed');
  assert.equal(parseWsFrame({ data: {} }).kind, 'malformed');
});

test('the reconnect replay frame executing{node} without prompt_id parses', () => {
  const p = parseWsFrame({ type: 'executing', data: { node: '12' } });
  assert.equal(p.kind, 'known');
});

test('0.3.x unknown class 400 (invalid_prompt) yields the missing class name', () => {
  const [e] = http('unknown_class_type.json', (x) => x.response.status === 400);
  assert.ok(e);
  const r = parsePromptRejection(e.response.body.json);
  assert.equal(r.ok, false);
  if (r.ok) return;
  assert.equal(r.error.type, 'invalid_prompt');
  assert.equal(missingNodeClassType(r.error), 'NoSuchNode');
  assert.deepEqual(r.nodeErrors, {});
});

test('newer missing_node_type 400 yields extra_info.class_type', () => {
  const r = parsePromptRejection({
    error: {
      type: 'missing_node_type',
      message: "Node 'Video Combine' not found. The custom node may not be installed.",
      details: "Node ID '#12'",
      extra_info: { node_id: '12', class_type: 'VHS_VideoCombine', node_title: 'Video Combine' },
    },
    node_errors: {},
  });
  assert.ok(!r.ok);
  assert.equal(missingNodeClassType(r.error), 'VHS_VideoCombine');
});

test('old string error with node_errors [] normalises to an unstructured error and an empty dict', () => {
  const r = parsePromptRejection({ error: 'no prompt', node_errors: [] });
  assert.deepEqual(r, {
    ok: false,
    status: 400,
    error: { type: 'unstructured', message: 'no prompt', details: '', extraInfo: {} },
    nodeErrors: {},
  });
});

test('old invalid_prompt with node_errors [] parses', () => {
  const r = parsePromptRejection({
    error: {
      type: 'invalid_prompt',
      message: 'Cannot execute because node VHS_VideoCombine does not exist.',
      details: "Node ID '#12'",
      extra_info: {},
    },
    node_errors: [],
  });
  assert.ok(!r.ok);
  assert.equal(missingNodeClassType(r.error), 'VHS_VideoCombine');
  assert.deepEqual(r.nodeErrors, {});
});

test('invalid_prompt_id 400 parses with its type', () => {
  const r = parsePromptRejection({
    error: { type: 'invalid_prompt_id', message: 'prompt_id must be a valid UUID', details: 'x', extra_info: {} },
    node_errors: {},
  });
  assert.ok(!r.ok);
  assert.equal(r.error.type, 'invalid_prompt_id');
  assert.equal(missingNodeClassType(r.error), null);
});

test('prompt_outputs_failed_validation exposes per-node errors', () => {
  const [e] = http('validation_error_bad_combo_value.json', (x) => x.response.status === 400);
  assert.ok(e);
  const r = parsePromptRejection(e.response.body.json);
  assert.ok(!r.ok);
  assert.equal(r.error.type, 'prompt_outputs_failed_validation');
  const node = r.nodeErrors['2'];
  assert.equal(node?.class_type, 'ImageToMask');
  assert.equal(node?.errors[0]?.type, 'value_not_in_list');
  assert.deepEqual(node?.dependent_outputs, ['3']);
});

test('a 200 with non-empty node_errors is still a success', () => {
  const [e] = http('validation_error_one_bad_branch.json', (x) => x.request.path === '/prompt');
  assert.ok(e);
  const r = parsePromptSuccess(e.response.body.json);
  assert.ok(r.ok);
  assert.equal(r.number, 25);
  assert.equal(r.nodeErrors['5']?.errors[0]?.type, 'value_bigger_than_max');
});

test('pending queue items are sorted by [number, prompt_id] although the server list is a heap', () => {
  const [e] = http('queue_front_and_number.json', (x) => x.request.path === '/queue');
  assert.ok(e);
  const q = parseQueue(e.response.body.json);
  assert.deepEqual(
    q.pending.map((i) => i.number),
    [-1000, -46, 45],
  );
  assert.deepEqual(
    q.running.map((i) => i.number),
    [44],
  );
  assert.deepEqual(q.running[0]?.outputsToExecute, ['9']);
});

test('ties on number are broken by prompt_id', () => {
  const item = (n: number, id: string) => [n, id, {}, {}, []];
  const q = parseQueue({ queue_running: [], queue_pending: [item(3, 'b'), item(3, 'a'), item(1, 'z')] });
  assert.deepEqual(
    q.pending.map((i) => i.promptId),
    ['z', 'a', 'b'],
  );
});

test('history: an unknown id ({}) is null, an interrupted run is status error / not completed', () => {
  assert.equal(parseHistoryEntry({}, 'x', 't'), null);
  const id = '63e4beeb-0508-449f-b858-625eb968a2cb';
  const entries = http('interrupt_global_no_body.json', (x) => x.request.path === `/history/${id}`);
  const last = entries.at(-1);
  assert.ok(last);
  const h = parseHistoryEntry(last.response.body.json, id, 't');
  assert.equal(h?.status?.statusStr, 'error');
  assert.equal(h?.status?.completed, false);
  assert.equal(h?.status?.messages.at(-1)?.[0], 'execution_interrupted');
  assert.equal(h?.number, 33);
});

test('history entry exposes number, extra_data and output files for /view', () => {
  const id = '7e95cc3f-2248-4509-8b35-b57c8a0f1ed6';
  const e = http('success.json', (x) => x.request.path === `/history/${id}`).at(-1);
  assert.ok(e);
  const h = parseHistoryEntry(e.response.body.json, id, 't');
  assert.ok(h);
  assert.equal(h.number, 0);
  assert.equal(typeof h.extraData['client_id'], 'string');
  assert.deepEqual(outputFiles(h.outputs), [
    { nodeId: '9', key: 'images', filename: 'peer_success_00001_.png', subfolder: '', type: 'output' },
  ]);
});

test('history list keeps the server order of entries', () => {
  const [e] = http('history_endpoints.json', (x) => x.request.path === '/history?max_items=2');
  assert.ok(e);
  const list = parseHistoryList(e.response.body.json);
  assert.deepEqual(
    list.map((h) => h.promptId),
    Object.keys(e.response.body.json as object),
  );
});

test('a body that does not match the schema throws ComfyRequestError malformed', () => {
  assert.throws(
    () => parsePromptSuccess({ prompt_id: 5, number: 1 }),
    (err: unknown) =>
      err instanceof ComfyRequestError && err.failure.kind === 'malformed' && /prompt_id/.test(err.message),
  );
  assert.throws(() => parseQueue({ queue_running: [[1, 'x']], queue_pending: [] }), ComfyRequestError);
});
