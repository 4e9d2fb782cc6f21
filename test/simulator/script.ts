// Behaviour words: one is consumed by each POST /prompt whose body parses as JSON and carries a
// `prompt` object, in arrival order; when the script runs out every prompt behaves 'ok'.

export type Behaviour =
  | { kind: 'ok' }
  | { kind: '500' }
  | { kind: 'invalid' }
  | { kind: 'error' }
  | { kind: 'oom' }
  | { kind: 'drop' }
  | { kind: 'hang' }
  | { kind: 'slow' }
  | { kind: 'crash' }
  | { kind: 'restart' }
  | { kind: 'busy'; n: number };

export const BEHAVIOUR_WORDS = [
  'ok',
  '500',
  'invalid',
  'error',
  'oom',
  'drop',
  'hang',
  'slow',
  'busy N',
  'crash',
  'restart',
];

/** Parses one word; throws on an unknown word so a typo in a test script fails loudly. */
export function parseWord(word: string): Behaviour {
  const w = word.trim().toLowerCase();
  const busy = /^busy[\s:=]*(\d+)$/.exec(w);
  if (busy) return { kind: 'busy', n: Number(busy[1]) };
  switch (w) {
    case 'ok':
    case '500':
    case 'invalid':
    case 'error':
    case 'oom':
    case 'drop':
    case 'hang':
    case 'slow':
    case 'crash':
    case 'restart':
      return { kind: w };
    default:
      throw new Error(`unknown simulator behaviour word '${word}' (known: ${BEHAVIOUR_WORDS.join(', ')})`);
  }
}

export class Script {
  private words: Behaviour[] = [];

  constructor(words: string[]) {
    this.set(words);
  }

  set(words: string[]): void {
    this.words = words.map(parseWord);
  }

  next(): Behaviour {
    return this.words.shift() ?? { kind: 'ok' };
  }

  remaining(): number {
    return this.words.length;
  }
}
