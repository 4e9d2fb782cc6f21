/** The empty / error / loading placeholder every view uses. */
import type { ReactNode } from 'react';

export function Empty({
  title,
  children,
  tone = 'neutral',
}: {
  title: string;
  children?: ReactNode;
  tone?: 'neutral' | 'error';
}) {
  return (
    <div className={`empty empty-${tone}`} role={tone === 'error' ? 'alert' : undefined}>
      <div className="empty-title">{title}</div>
      {children && <div className="empty-body">{children}</div>}
    </div>
  );
}
