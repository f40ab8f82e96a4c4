/** `[at least this much, earns these points]`, in increasing order. */
export type Steps = ReadonlyArray<readonly [number, number]>;

/** Points of the highest step the value reaches; 0 below the first step. */
export function pointsAt(value: number, steps: Steps): number {
  let points = 0;
  for (const [atLeast, earned] of steps) if (value >= atLeast) points = earned;
  return points;
}
