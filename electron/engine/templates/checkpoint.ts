/**
 * Which checkpoint a workflow loads: the dispatcher prefers the instance that last loaded it
 * (scheduler/policy.ts rankInstances), and a LAN attempt records it when it ends.
 */

type Workflow = Record<string, { class_type?: string; inputs?: Record<string, unknown> }>;

/** The checkpoint a workflow loads (for "the instance that last ran the same checkpoint"). */
export function checkpointOf(workflow: Workflow): string | null {
  for (const node of Object.values(workflow)) {
    const name = node.inputs?.['ckpt_name'] ?? node.inputs?.['unet_name'];
    if (typeof name === 'string') return name;
  }
  return null;
}

/** The checkpoint a job loads: its template's, unless a shot parameter sets the loader's input. */
export function checkpointOfJob(
  workflow: Workflow,
  parameters: Readonly<Record<string, string>>,
  paramsJson: string,
): string | null {
  let params: Record<string, unknown> = {};
  try {
    params = JSON.parse(paramsJson) as Record<string, unknown>;
  } catch {
    // Unreadable parameters are reported when the prompt is built; fall back to the template.
  }
  for (const [nodeId, node] of Object.entries(workflow)) {
    for (const input of ['ckpt_name', 'unet_name']) {
      if (typeof node.inputs?.[input] !== 'string') continue;
      const param = Object.entries(parameters).find(([, path]) => path === `${nodeId}.${input}`)?.[0];
      const value = param !== undefined ? params[param] : undefined;
      return typeof value === 'string' ? value : (node.inputs[input] as string);
    }
  }
  return null;
}
