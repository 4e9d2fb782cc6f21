/**
 * Finds where a JSON text first goes wrong, so "not valid JSON" can say "at line 12, column 5".
 * Node 20's JSON.parse messages often carry no position, so this walks the text with a small
 * recursive-descent checker. It only locates errors; JSON.parse remains the parser.
 */
export function jsonErrorOffset(text: string): number {
  let i = 0;
  const ws = (): void => {
    while (i < text.length && ' \t\n\r'.includes(text[i] as string)) i++;
  };
  const fail = (): never => {
    throw i;
  };
  const literal = (word: string): void => {
    if (text.startsWith(word, i)) i += word.length;
    else fail();
  };
  const string = (): void => {
    i++; // opening quote
    while (i < text.length) {
      const c = text[i] as string;
      if (c === '"') {
        i++;
        return;
      }
      if (c === '\\') {
        i++;
        if (text[i] === 'u') {
          if (!/^[0-9a-fA-F]{4}$/.test(text.slice(i + 1, i + 5))) fail();
          i += 5;
        } else if ('"\\/bfnrt'.includes(text[i] ?? 'x')) i++;
        else fail();
      } else if (c < ' ') fail();
      else i++;
    }
    fail();
  };
  const number = (): void => {
    const m = /^-?(0|[1-9]\d*)(\.\d+)?([eE][+-]?\d+)?/.exec(text.slice(i, i + 400));
    if (!m || m[0] === '' || m[0] === '-') fail();
    i += (m as RegExpExecArray)[0].length;
  };
  /** An object or array: `item` repeated, separated by commas, up to `close` (no trailing comma). */
  const container = (close: string, item: () => void): void => {
    i++;
    ws();
    if (text[i] === close) {
      i++;
      return;
    }
    for (;;) {
      item();
      ws();
      if (text[i] === ',') i++;
      else if (text[i] === close) {
        i++;
        return;
      } else fail();
    }
  };
  const member = (): void => {
    ws();
    if (text[i] !== '"') fail();
    string();
    ws();
    if (text[i] !== ':') fail();
    i++;
    value();
  };
  function value(): void {
    ws();
    const c = text[i];
    if (c === '{') container('}', member);
    else if (c === '[') container(']', value);
    else if (c === '"') string();
    else if (c === 't') literal('true');
    else if (c === 'f') literal('false');
    else if (c === 'n') literal('null');
    else number();
  }
  try {
    value();
    ws();
    return i < text.length ? i : -1;
  } catch (at) {
    return typeof at === 'number' ? at : -1;
  }
}

/** "line L, column C" (1-based) of an offset. */
export function lineAndColumn(text: string, offset: number): { line: number; column: number } {
  const upto = text.slice(0, offset);
  return { line: upto.split('\n').length, column: offset - upto.lastIndexOf('\n') };
}
