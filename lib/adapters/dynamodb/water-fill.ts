/**
 * Water-filling: the largest cap on each output's length such that the outputs, each cut to the
 * cap, keep at most `budget` characters in all. Outputs shorter than the cap stay whole, so the
 * longest are the ones cut, and all of them to the same length.
 *
 *   lengths  ▇ ▇▇▇ ▇▇▇▇▇▇▇ ▇▇▇▇▇▇▇▇▇▇
 *   cap      ────────────────── (everything above the line is cut)
 */
export function capForBudget(ascendingLengths: readonly number[], budget: number): number {
  let remaining = Math.max(0, budget);
  for (const [index, length] of ascendingLengths.entries()) {
    // This output and every longer one would be cut to the same cap.
    const cutCount = ascendingLengths.length - index;
    if (length * cutCount > remaining) return Math.floor(remaining / cutCount);
    remaining -= length;
  }
  // The budget keeps every output whole.
  return ascendingLengths.at(-1) ?? 0;
}
