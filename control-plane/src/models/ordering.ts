/**
 * Sort helpers for loaded relations. Ordering inside a relation mapping only holds for
 * withGraphFetched; models sort their loaded lists in $afterFind so the order also holds for
 * withGraphJoined.
 */

interface Positioned {
  id: number;
  position?: number;
}

/** By `position`, then by id (rows without a position count as 0). */
export function byPositionThenId(a: Positioned, b: Positioned): number {
  return (a.position ?? 0) - (b.position ?? 0) || a.id - b.id;
}

/** By id. */
export function byId(a: { id: number }, b: { id: number }): number {
  return a.id - b.id;
}
