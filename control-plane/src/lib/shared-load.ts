/**
 * Coalesces concurrent loads: requests that arrive while a load is running share its result
 * instead of each running the query. Nothing is cached after the load settles, so a request
 * never sees data older than the load it joined (which started at most one query ago).
 */
export function sharedLoad<T>(load: () => Promise<T>): () => Promise<T> {
  let running: Promise<T> | null = null;
  return () => {
    running ??= load().finally(() => {
      running = null;
    });
    return running;
  };
}
