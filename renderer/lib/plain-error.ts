/**
 * An engine message in the words of the form it came from: the contract's "Invalid input for
 * instances.add: url: must be …" becomes "The ComfyUI URL must be …" — no method names, no field
 * paths. Messages written for the operator already pass through unchanged.
 */
export function plainError(message: string, fields: Readonly<Record<string, string>>): string {
  const m = /^Invalid input for [\w.]+: ([\s\S]*)$/.exec(message);
  if (!m) return message;
  const issues = (m[1] ?? '').split('; ').map((issue) => {
    const colon = issue.indexOf(': ');
    if (colon < 0) return issue;
    const path = issue.slice(0, colon);
    const field =
      fields[path.split('.')[0] ?? ''] ?? (path === '(top level)' ? 'The form' : `The ${path.split('.')[0]}`);
    return `${field} ${issue.slice(colon + 2)}`;
  });
  return issues.map((s) => (/[.!?]$/.test(s) ? s : `${s}.`)).join(' ');
}
