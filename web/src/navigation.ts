/**
 * Full page loads (login, site root, /not_verified): the spec sends "the browser" there, which
 * also reloads the signed-in user. One replaceable function so unit tests need no real navigation.
 */
export type PageLoader = (path: string, options: { replace: boolean }) => void;

const browserPageLoader: PageLoader = (path, { replace }) => {
  if (replace) window.location.replace(path);
  else window.location.assign(path);
};

let loadPage: PageLoader = browserPageLoader;

/** Go to `path` with a full page load; `replace` keeps the current entry out of the history. */
export function goToPage(path: string, options: { replace?: boolean } = {}): void {
  loadPage(path, { replace: options.replace ?? false });
}

/** Swap the page loader (tests); returns a function that restores the previous one. */
export function setPageLoader(loader: PageLoader): () => void {
  const previous = loadPage;
  loadPage = loader;
  return () => {
    loadPage = previous;
  };
}
