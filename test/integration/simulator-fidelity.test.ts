// Fidelity: every recorded ComfyUI 0.3.64 case the simulator covers is replayed against a fresh
// simulator instance ('0.3' protocol) and must match the recording in HTTP status, content type,
// JSON shape and the per-client order of WebSocket message types (test/simulator/README.md lists
// the cases and why the few uncovered ones are left out).

import { test } from 'node:test';
import assert from 'node:assert/strict';
import { startSimInstance, type SimInstance } from '../simulator/index.js';
import { loadCase, replayCase, runToHistory, type ReplayOptions } from '../simulator/testing/replay.js';

// Blur nodes are the recordings' "slow" nodes; 100 ms each keeps every mid-run request (queue
// while running, interrupts after `executing 11`) inside the node it targeted, deterministically.
const DURATION = { fixedMs: 5, perClassMs: { ImageBlur: 100 } };

const simpleGraph = (color: number, prefix: string): Record<string, unknown> => ({
  '1': { class_type: 'EmptyImage', inputs: { width: 64, height: 64, batch_size: 1, color } },
  '2': { class_type: 'ImageInvert', inputs: { image: ['1', 0] } },
  '3': { class_type: 'SaveImage', inputs: { images: ['2', 0], filename_prefix: prefix } },
});

const CASES: Record<string, ReplayOptions> = {
  system_stats: {
    masks: [
      {
        path: ['devices', '[]', 'index'],
        why: 'recorded on CPU (index null); the simulator is a CUDA device with index 0',
      },
    ],
  },
  object_info_EmptyImage: {},
  object_info_SaveImage: {},
  object_info_other_nodes: {},
  queue_info_get_prompt_and_features: {},
  ws_connect_handshake: {},
  success: {},
  success_simple: {},
  success_cached_rerun: {
    // The recording re-posts success_simple's graph, so the cache must hold it first.
    setup: async (url) => {
      await runToHistory(url, {
        prompt: loadCase('success_simple').prompts['simple'] ?? firstPrompt('success_simple'),
      });
    },
  },
  success_without_client_id: {},
  history_timing_probe: {},
  duplicate_prompt_id: { wsMode: 'status-unordered', seedHistoryFrom: ['last 3 history entries'] },
  three_prompts_in_a_row: { wsMode: 'status-unordered', compareFilenames: true },
  validation_error_value_out_of_range: {},
  validation_error_bad_combo_value: {},
  validation_error_missing_input: {},
  validation_error_type_mismatch: {},
  validation_error_link_to_missing_node: {},
  validation_error_no_outputs: {},
  validation_error_one_bad_branch: {},
  unknown_class_type: {},
  prompt_id_not_uuid: {},
  execution_error: {},
  interrupt_global_no_body: {},
  interrupt_targeted_prompt_id: {},
  interrupt_prompt_without_client_id: {},
  interrupt_pending_prompt_id: { wsMode: 'status-unordered' },
  prompt_non_json_body: {},
  origin_mismatch_403: {},
  queue_delete: { wsMode: 'status-unordered' },
  queue_front_and_number: { wsMode: 'status-unordered', compareFilenames: true },
  ws_reconnect_same_client_id: { wsMode: 'collapsed' },
  ws_second_socket_same_client_id: {},
  ws_old_socket_closes_after_reconnect: {},
  free: {},
  view_errors: {
    // The file it views was written by free_lost_wakeup (counter 2 of prefix peer_free_race).
    setup: async (url) => {
      await runToHistory(url, { prompt: simpleGraph(1, 'peer_free_race') });
      await runToHistory(url, { prompt: simpleGraph(2, 'peer_free_race') });
    },
    skip: { 'preview webp': 'the simulator does not re-encode to WebP; it serves the PNG (image/png)' },
  },
  history_endpoints: { seedHistoryFrom: ['max_items=2', 'max_items=1 offset=0 (oldest)'] },
};

function firstPrompt(name: string): unknown {
  return Object.values(loadCase(name).prompts)[0];
}

for (const [name, opts] of Object.entries(CASES)) {
  test(`simulator replays recorded case ${name} with the recorded statuses, shapes and ws order`, {
    timeout: 30000,
  }, async () => {
    let sim: SimInstance | undefined;
    try {
      sim = await startSimInstance({ name, duration: DURATION });
      const diffs = await replayCase(sim.url, loadCase(name), opts);
      assert.deepEqual(diffs, [], diffs.join('\n'));
    } finally {
      await sim?.close();
    }
  });
}
