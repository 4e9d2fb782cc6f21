/**
 * An asset's file address for an `<img>`/`<video>`, kept for the component's life: where links
 * carry a short-lived ticket (client tickets.ts), the client renews it every few minutes, and a new
 * address on every render would make the browser fetch each visible image again. A link that fails
 * (its ticket ended before a lazy image was scrolled into view) is built afresh, twice at most.
 */
import { useMemo, useState } from 'react';
import { useApp } from './app-store.js';

const MAX_RETRIES = 2;

export function useAssetUrl(id: string | null): { url: string | null; onError: () => void } {
  const assetUrl = useApp((s) => s.client.assetUrl);
  const [tries, setTries] = useState(0);
  // biome-ignore lint/correctness/useExhaustiveDependencies: `tries` is the reason to build the link again.
  const url = useMemo(() => (id === null ? null : assetUrl(id)), [assetUrl, id, tries]);
  return { url, onError: () => setTries((n) => Math.min(MAX_RETRIES, n + 1)) };
}
