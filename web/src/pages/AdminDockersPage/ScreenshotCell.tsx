import { dutchDateTime, screenshotText, type ScreenshotState } from '../../api/queries/adminDockers.ts';

/** When the site was last captured, why the last capture failed (if it did), and 'ververs screenshot'. */
export function ScreenshotCell(props: {
  name: string;
  projectId: number;
  screenshot: ScreenshotState | null;
  busy: boolean;
  onScreenshot: (name: string, projectId: number) => void;
}) {
  const { name, projectId, screenshot, busy } = props;
  return (
    <div className="screenshot-state">
      <span className="screenshot-when" title={screenshotText(screenshot)}>
        {screenshot?.capturedAt ? (
          <>
            laatste screenshot: <time dateTime={screenshot.capturedAt}>{dutchDateTime(screenshot.capturedAt)}</time>
          </>
        ) : (
          screenshotText(screenshot)
        )}
      </span>
      {screenshot?.lastError ? (
        <span className="row-result row-result-failed screenshot-error" data-testid="screenshot-error">
          {screenshot.lastError}
        </span>
      ) : null}
      <button
        type="button"
        className="button button-secondary button-small"
        disabled={busy}
        aria-label={busy ? `Screenshot van ${name} wordt gemaakt` : `ververs screenshot van ${name}`}
        onClick={() => props.onScreenshot(name, projectId)}
      >
        {busy ? 'bezig…' : 'ververs screenshot'}
      </button>
    </div>
  );
}
