/** Process entry of the `shotfarm` command (bin/shotfarm.js loads this); main.ts stays importable by tests. */
import { main } from './main.js';

process.exitCode = await main(process.argv.slice(2));
