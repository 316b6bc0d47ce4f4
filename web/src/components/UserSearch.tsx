import { useEffect, useId, useRef, useState, type KeyboardEvent } from 'react';
import { searchUsers, USER_SEARCH_MAX_LENGTH, type UserSearchHit } from '../api/queries/userSearch.ts';
import '../styles/user-search.css';

export interface UserSearchProps {
  /** Called with the chosen person; the box clears itself afterwards. */
  onPick: (user: UserSearchHit) => void;
  placeholder?: string;
  /** Name of the input (the placeholder is not a label); shown above it when `showLabel`. */
  label?: string;
  showLabel?: boolean;
  /** Admins only: also find accounts that are not activated or are disabled (?all=true). */
  all?: boolean;
  /** People already chosen: shown, but not pickable ('al lid'). */
  chosenIds?: readonly number[];
  /** Text next to an already chosen person. */
  chosenText?: string;
  disabled?: boolean;
  /** Wait this long after the last keystroke before asking the server. */
  debounceMs?: number;
}

type SearchState =
  | { kind: 'idle' }
  | { kind: 'searching' }
  | { kind: 'done'; hits: UserSearchHit[] }
  | { kind: 'failed' };

/**
 * The reusable people picker (teams, groups, the docker form's members, the dockers owner):
 * a text box that searches POST /api/users/search after a short pause, only for non-empty input
 * (spec §5), drops answers of outdated input, and lists the hits as buttons (arrow keys + Enter work).
 */
export function UserSearch({
  onPick,
  placeholder = 'zoek gebruikers',
  label = 'Zoek gebruikers',
  showLabel = false,
  all = false,
  chosenIds = [],
  chosenText = 'al lid',
  disabled = false,
  debounceMs = 250,
}: UserSearchProps) {
  const [text, setText] = useState('');
  const [state, setState] = useState<SearchState>({ kind: 'idle' });
  const [active, setActive] = useState(-1);
  const listId = useId();
  const inputId = useId();
  const inputRef = useRef<HTMLInputElement>(null);
  const part = text.trim();

  useEffect(() => {
    if (part === '') {
      setState({ kind: 'idle' });
      return;
    }
    // Hits of the previous input must not stay clickable while the new search waits.
    setState({ kind: 'searching' });
    const controller = new AbortController();
    const timer = window.setTimeout(() => {
      searchUsers(part, { all, signal: controller.signal }).then(
        (hits) => {
          setState({ kind: 'done', hits });
          setActive(-1);
        },
        (error: unknown) => {
          if (!controller.signal.aborted) {
            console.error('Gebruikers zoeken mislukt', error);
            setState({ kind: 'failed' });
          }
        },
      );
    }, debounceMs);
    return () => {
      window.clearTimeout(timer);
      controller.abort();
    };
  }, [part, all, debounceMs]);

  const hits = state.kind === 'done' ? state.hits : [];
  const isChosen = (hit: UserSearchHit) => chosenIds.includes(hit.id);

  function pick(hit: UserSearchHit): void {
    if (isChosen(hit)) return;
    onPick(hit);
    setText('');
    setState({ kind: 'idle' });
    inputRef.current?.focus();
  }

  function onKeyDown(event: KeyboardEvent<HTMLInputElement>): void {
    if (event.key === 'Escape') {
      setText('');
      return;
    }
    if (hits.length === 0) return;
    if (event.key === 'ArrowDown' || event.key === 'ArrowUp') {
      event.preventDefault();
      const step = event.key === 'ArrowDown' ? 1 : -1;
      setActive((current) => (current + step + hits.length) % hits.length);
    } else if (event.key === 'Enter') {
      event.preventDefault();
      const hit = hits[active >= 0 ? active : 0];
      if (hit) pick(hit);
    }
  }

  return (
    <div className="user-search">
      {showLabel && (
        <label className="field-label" htmlFor={inputId}>
          {label}
        </label>
      )}
      <input
        id={inputId}
        ref={inputRef}
        type="search"
        className="text-input user-search-input"
        value={text}
        placeholder={placeholder}
        aria-label={showLabel ? undefined : label}
        aria-controls={listId}
        aria-autocomplete="list"
        autoComplete="off"
        maxLength={USER_SEARCH_MAX_LENGTH}
        disabled={disabled}
        onChange={(event) => setText(event.target.value)}
        onKeyDown={onKeyDown}
      />
      {state.kind === 'searching' && (
        <p className="user-search-status" role="status">
          Zoeken…
        </p>
      )}
      {state.kind === 'failed' && (
        <p className="user-search-status error-text" role="alert">
          Zoeken lukte niet. Probeer het nog eens.
        </p>
      )}
      {state.kind === 'done' && hits.length === 0 && (
        <p className="user-search-status" role="status">
          Niemand gevonden met ‘{part}’.
        </p>
      )}
      {hits.length > 0 && (
        <ul className="user-search-results" id={listId} aria-label="Zoekresultaten">
          {hits.map((hit, index) => {
            const chosen = isChosen(hit);
            return (
              <li key={hit.id}>
                <button
                  type="button"
                  className={index === active ? 'user-search-hit active' : 'user-search-hit'}
                  disabled={chosen || disabled}
                  onClick={() => pick(hit)}
                  data-testid="user-search-hit"
                >
                  <span className="user-search-name">{hit.name}</span>
                  {hit.group !== undefined && <span className="user-search-meta">{hit.group?.cohort ?? 'geen klas'}</span>}
                  {hit.active === false && <span className="badge">niet actief</span>}
                  {chosen ? <span className="user-search-meta">{chosenText}</span> : <span className="user-search-add" aria-hidden="true">+</span>}
                </button>
              </li>
            );
          })}
        </ul>
      )}
    </div>
  );
}
