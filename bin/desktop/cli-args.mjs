// The desktop scripts' options: `--name value` pairs, and `--root DIR` for the checkout they work
// on (default: this one; the tests point it at a stand-in).
import { fileURLToPath } from 'node:url';

export function option(name) {
  const args = process.argv.slice(2);
  const at = args.indexOf(name);
  return at >= 0 && args[at + 1] ? args[at + 1] : undefined;
}

export function checkoutRoot() {
  return option('--root') ?? fileURLToPath(new URL('../..', import.meta.url));
}
