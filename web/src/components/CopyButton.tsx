import { useEffect, useState } from 'react';

/** How long 'Gekopieerd' stays on the button. */
const COPIED_MS = 2_000;

type CopyState = 'idle' | 'copied' | 'failed';

/**
 * A small 'Kopieer' button that puts `text` on the clipboard and says so for a moment. Without
 * a clipboard (a plain-http page, an old browser) it says to copy by hand: the text stays
 * selectable next to it.
 */
export function CopyButton({ text, label, disabled = false }: { text: string; /** What is copied, for screen readers: 'Webhook-URL kopiëren'. */ label: string; disabled?: boolean }) {
  const [state, setState] = useState<CopyState>('idle');

  useEffect(() => {
    if (state === 'idle') return;
    const timer = window.setTimeout(() => setState('idle'), COPIED_MS);
    return () => window.clearTimeout(timer);
  }, [state]);

  const copy = async () => {
    try {
      if (navigator.clipboard === undefined) throw new Error('geen klembord');
      await navigator.clipboard.writeText(text);
      setState('copied');
    } catch {
      setState('failed');
    }
  };

  const shown = state === 'copied' ? 'Gekopieerd' : state === 'failed' ? 'Kopieer zelf (selecteer de tekst)' : 'Kopieer';
  return (
    <button
      type="button"
      className="button button-secondary button-small copy-button"
      aria-label={state === 'idle' ? label : `${shown}: ${label}`}
      disabled={disabled}
      onClick={() => void copy()}
    >
      {shown}
    </button>
  );
}
