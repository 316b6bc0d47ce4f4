import { lazy, type ComponentType, type LazyExoticComponent } from 'react';
import { reloadForStaleChunk } from './staleChunkReload.ts';

/** A page component that loads on demand; `preload()` starts fetching its code before it renders. */
export type LazyPage = LazyExoticComponent<ComponentType> & { preload: () => void };

/**
 * A page component that loads on demand: `lazyPage(() => import('./pages/X/X.tsx'), 'XPage')`.
 * When its chunk cannot be loaded (a tab older than the last deploy), the page is loaded anew
 * while the Suspense fallback stays; if that does not help, the route's error page shows.
 */
export function lazyPage<Module extends Record<Name, ComponentType>, Name extends keyof Module>(load: () => Promise<Module>, name: Name): LazyPage {
  let loading: Promise<{ default: ComponentType }> | undefined;
  const loadOnce = () =>
    (loading ??= load().then(
      (module) => ({ default: module[name] }),
      (error: unknown) => {
        if (reloadForStaleChunk()) return new Promise<never>(() => undefined);
        throw error;
      },
    ));
  return Object.assign(lazy(loadOnce), {
    // A failure is for the page to show when it renders (the same promise), not an unhandled rejection now.
    preload: () => void loadOnce().catch(() => undefined),
  });
}
