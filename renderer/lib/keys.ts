/** Keyboard helpers for views with their own shortcuts. */

/** A key typed into a field is the field's, not a shortcut. */
export function isTyping(target: EventTarget | null): boolean {
  const el = target as HTMLElement | null;
  return (
    !!el && (el.tagName === 'INPUT' || el.tagName === 'TEXTAREA' || el.tagName === 'SELECT' || el.isContentEditable)
  );
}

/** A dialog is open: its keys are its own. */
export function dialogOpen(): boolean {
  return document.querySelector('.backdrop') !== null;
}
