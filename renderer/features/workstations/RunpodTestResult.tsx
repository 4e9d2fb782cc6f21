/** What the RunPod form's "Test connection" found: RunPod's counts for the endpoint — or why /health failed. Nothing was saved. */
import type { RunpodTestView } from '../../../shared/domain.js';
import { TestResult } from '../../components/FormParts.js';
import { endpointCounts } from './runpod-words.js';

export function RunpodTestResult({ r }: { r: RunpodTestView }) {
  // The button is at the foot of a form that may scroll: each answer is brought into sight.
  return (
    <TestResult ok={r.ok} testId="runpod-test-result" reveal={r}>
      {r.ok ? (
        <>
          <div className="conn-test-title">
            RunPod answered /health in {r.latencyMs} ms, with this key and endpoint id
          </div>
          <div className="small">{endpointCounts(r.health)}. Nothing was saved.</div>
        </>
      ) : (
        <>The endpoint's /health did not answer: {r.error}. Nothing was saved.</>
      )}
    </TestResult>
  );
}
