/** What the RunPod form's "Test connection" found: RunPod's counts for the endpoint — or why /health failed. Nothing was saved. */
import { useEffect, useRef } from 'react';
import type { RunpodTestView } from '../../../shared/domain.js';
import { endpointCounts } from './runpod-words.js';

export function RunpodTestResult({ r }: { r: RunpodTestView }) {
  // The button is at the foot of a form that may scroll: the answer is brought into sight.
  const ref = useRef<HTMLDivElement>(null);
  // (A block, not an expression: Chromium's scrollIntoView returns a promise, which React would take for a cleanup.)
  // biome-ignore lint/correctness/useExhaustiveDependencies: each new result is brought into view, even one equal to the last.
  useEffect(() => {
    void ref.current?.scrollIntoView({ block: 'nearest' });
  }, [r]);
  if (!r.ok) {
    return (
      <div ref={ref} className="alert alert-error conn-test" role="alert" data-testid="runpod-test-result" data-ok="no">
        The endpoint's /health did not answer: {r.error}. Nothing was saved.
      </div>
    );
  }
  return (
    <div ref={ref} className="alert alert-ok conn-test" role="status" data-testid="runpod-test-result" data-ok="yes">
      <div className="conn-test-title">RunPod answered /health in {r.latencyMs} ms, with this key and endpoint id</div>
      <div className="small">{endpointCounts(r.health)}. Nothing was saved.</div>
    </div>
  );
}
