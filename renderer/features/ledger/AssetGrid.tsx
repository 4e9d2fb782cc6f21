/**
 * The ledger grid with its keys: arrows move between cards (Up/Down by a row of the grid), Space
 * approves or unapproves the card, A / U approve / unapprove the selection (or the card), Enter
 * shows it full size, X selects it, Shift/Ctrl+click selects ranges and cards, Ctrl+A selects the
 * page, Esc clears the selection. The cards never move while new outputs arrive (use-ledger-page.ts).
 */
import { useEffect, useRef, useState, type KeyboardEvent } from 'react';
import type { AssetView } from '../../../shared/domain.js';
import { isTyping } from '../../lib/keys.js';
import { AssetCard } from './AssetCard.js';
import type { Approval } from './use-approval.js';

export interface GridSelection {
  ids: ReadonlySet<string>;
  set(ids: ReadonlySet<string>): void;
}

/** How many cards a row of the CSS grid holds now. */
function columns(grid: HTMLElement | null): number {
  if (!grid) return 1;
  return Math.max(1, getComputedStyle(grid).gridTemplateColumns.split(' ').filter(Boolean).length);
}

export function AssetGrid({
  rows,
  approval,
  selection,
  onOpen,
}: {
  rows: readonly AssetView[];
  approval: Approval;
  selection: GridSelection;
  onOpen: (index: number) => void;
}) {
  const grid = useRef<HTMLDivElement>(null);
  const [focus, setFocus] = useState(0);
  const anchor = useRef<number | null>(null);
  const at = Math.min(focus, Math.max(0, rows.length - 1));

  // Keyboard moves focus to the card it names.
  const moveTo = (i: number) => {
    const next = Math.max(0, Math.min(rows.length - 1, i));
    setFocus(next);
    grid.current?.querySelectorAll<HTMLElement>('.asset')[next]?.focus();
  };
  useEffect(() => {
    if (focus >= rows.length && rows.length) setFocus(rows.length - 1);
  }, [focus, rows.length]);

  const select = (i: number, mods: { shift: boolean; toggle: boolean }) => {
    const id = rows[i]?.id;
    if (!id) return;
    const next = new Set(selection.ids);
    if (mods.shift && anchor.current !== null) {
      const [lo, hi] = [Math.min(anchor.current, i), Math.max(anchor.current, i)];
      for (let n = lo; n <= hi; n++) next.add(rows[n]!.id);
    } else if (next.has(id)) next.delete(id);
    else next.add(id);
    anchor.current = i;
    setFocus(i);
    selection.set(next);
  };
  const chosen = () => (selection.ids.size ? rows.filter((r) => selection.ids.has(r.id)) : rows[at] ? [rows[at]!] : []);

  const onKey = (e: KeyboardEvent) => {
    if (isTyping(e.target) || !rows.length) return;
    const cols = columns(grid.current);
    const k = e.key;
    const card = rows[at];
    if (k === 'ArrowRight') moveTo(at + 1);
    else if (k === 'ArrowLeft') moveTo(at - 1);
    else if (k === 'ArrowDown') moveTo(at + cols);
    else if (k === 'ArrowUp') moveTo(at - cols);
    else if (k === 'Home') moveTo(0);
    else if (k === 'End') moveTo(rows.length - 1);
    else if (k === ' ' && card) approval.set([card], !approval.shown(card));
    else if ((k === 'a' || k === 'A') && (e.ctrlKey || e.metaKey)) selection.set(new Set(rows.map((r) => r.id)));
    else if (e.ctrlKey || e.metaKey || e.altKey) return;
    else if (k === 'a' || k === 'A') approval.set(chosen(), true);
    else if (k === 'u' || k === 'U') approval.set(chosen(), false);
    else if (k === 'Enter') onOpen(at);
    else if (k === 'x' || k === 'X') select(at, { shift: false, toggle: true });
    else if (k === 'Escape' && selection.ids.size) selection.set(new Set());
    else return;
    e.preventDefault();
  };

  return (
    <div className="assets" ref={grid} onKeyDown={onKey} role="grid" aria-label="Outputs" data-testid="asset-grid">
      {rows.map((a, i) => (
        <AssetCard
          key={a.id}
          a={a}
          approved={approval.shown(a)}
          selected={selection.ids.has(a.id)}
          focused={i === at}
          onFocus={() => setFocus(i)}
          onOpen={() => onOpen(i)}
          onApprove={() => approval.set([a], !approval.shown(a))}
          onSelect={(mods) => select(i, mods)}
        />
      ))}
    </div>
  );
}
