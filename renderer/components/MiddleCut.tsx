/**
 * A name cut in its middle when it does not fit: "sq002-lantern-fe…_sh010", "lighting-dept-flo…-02".
 * The end of a shot code or a workstation name is what tells two of them apart (the shot number,
 * the node number), so the end is never the part cut: the text is split at the last of the `at`
 * separators, if that leaves at most `tail` characters, and only the head gives way.
 */
export function MiddleCut({
  text,
  at = '_',
  tail = 16,
  bold = false,
}: {
  text: string;
  at?: string;
  tail?: number;
  bold?: boolean;
}) {
  const Tag = bold ? 'b' : 'span';
  let cut = -1;
  for (const sep of at) cut = Math.max(cut, text.lastIndexOf(sep));
  if (cut <= 0 || text.length - cut > tail) return <Tag className="cut-whole">{text}</Tag>;
  return (
    <Tag className="cut-middle">
      <span className="cut-head">{text.slice(0, cut)}</span>
      <span className="cut-tail">{text.slice(cut)}</span>
    </Tag>
  );
}
