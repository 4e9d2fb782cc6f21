/**
 * When a bulk action asks first: above a few items an action is confirmed in a dialog that says
 * what will happen (approving 40 outputs by a stray keypress is as costly to undo as it is easy).
 * One rule for every bulk action of the Studio.
 */
export const ASK_FIRST_ABOVE = 5;

export function asksFirst(count: number): boolean {
  return count > ASK_FIRST_ABOVE;
}

/** "1 output" / "12 outputs". */
export function counted(n: number, one: string, many = `${one}s`): string {
  return `${n.toLocaleString()} ${n === 1 ? one : many}`;
}
