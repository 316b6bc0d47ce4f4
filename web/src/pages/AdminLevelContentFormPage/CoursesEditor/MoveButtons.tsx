import type { MoveDirection } from '../../../api/queries/adminLevels.ts';

/** The up and down arrows that move a course, text or file one place. */
export function MoveButtons({
  label,
  index,
  count,
  onMove,
}: {
  label: string;
  index: number;
  count: number;
  onMove: (direction: MoveDirection) => void;
}) {
  return (
    <>
      <button type="button" className="icon-button" aria-label={`${label} omhoog`} title="Omhoog" disabled={index === 0} onClick={() => onMove('up')}>
        ↑
      </button>
      <button
        type="button"
        className="icon-button"
        aria-label={`${label} omlaag`}
        title="Omlaag"
        disabled={index === count - 1}
        onClick={() => onMove('down')}
      >
        ↓
      </button>
    </>
  );
}
