// How the desktop scripts talk to a person: one wrapped paragraph (what is wrong, how to fix it),
// never a stack trace — a newcomer's first `npm start` should read like advice, not like a crash.

const WIDTH = 100;

/**
 * Wraps text at spaces into lines of about WIDTH characters, the first starting "shotfarm: ". A
 * `command in backticks` is never split, so it can be copied whole.
 */
export function paragraph(text) {
  const lines = [];
  let line = 'shotfarm:';
  for (const word of text.match(/\S*`[^`]*`\S*|\S+/g) ?? []) {
    if (line.length + 1 + word.length > WIDTH) {
      lines.push(line);
      line = word;
    } else {
      line = `${line} ${word}`;
    }
  }
  lines.push(line);
  return `${lines.join('\n')}\n`;
}

export function say(text) {
  process.stdout.write(paragraph(text));
}

/** Prints the paragraph on stderr and ends the script with a failure exit code. */
export function fail(text) {
  process.stderr.write(`\n${paragraph(text)}`);
  process.exit(1);
}

/** The one line of a tool's output worth quoting: its first line, minus an "Error:" label. */
export function firstLine(text) {
  const line =
    String(text)
      .split(/\r?\n/)
      .find((l) => l.trim()) ?? '';
  return line.trim().replace(/^[A-Za-z]*Error:\s*/, '');
}
