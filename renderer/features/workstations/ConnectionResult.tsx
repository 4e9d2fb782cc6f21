/** What "Test connection" found: the GPU, its VRAM, ComfyUI's version and node count — or why nothing answered. */
import type { ConnectionTestView } from '../../../shared/domain.js';
import { TestResult } from '../../components/FormParts.js';
import { gb } from '../../lib/format.js';

export function ConnectionResult({ r }: { r: ConnectionTestView }) {
  if (!r.probe.ok) {
    return (
      <TestResult ok={false} testId="connection-result">
        No ComfyUI answered at <span className="mono">{r.url}</span>: {r.probe.error}. Check the address and port, and
        that ComfyUI runs with <span className="mono">--listen</span> so other machines can reach it.
      </TestResult>
    );
  }
  const p = r.probe;
  return (
    <TestResult ok testId="connection-result">
      <div className="conn-test-title">ComfyUI answered in {p.latencyMs} ms</div>
      <dl className="conn-test-facts">
        <div>
          <dt>GPU</dt>
          <dd data-testid="found-gpu">{p.gpuName ?? 'not reported'}</dd>
        </div>
        <div>
          <dt>VRAM</dt>
          <dd data-testid="found-vram">
            {p.vram ? `${gb(p.vram.totalBytes)} (${gb(p.vram.freeBytes)} free)` : 'not reported'}
          </dd>
        </div>
        <div>
          <dt>ComfyUI</dt>
          <dd data-testid="found-version">{p.comfyVersion ?? 'version not reported'}</dd>
        </div>
        <div>
          <dt>Node types</dt>
          <dd data-testid="found-nodes">{r.nodeCount !== null ? r.nodeCount.toLocaleString() : '—'}</dd>
        </div>
        <div>
          <dt>Queue</dt>
          <dd>
            {p.queueRunning} running · {p.queuePending} waiting
          </dd>
        </div>
      </dl>
      {r.nodeError && (
        <div className="warn small">
          The node list did not come ({r.nodeError}); the farm asks again once it is saved.
        </div>
      )}
    </TestResult>
  );
}
