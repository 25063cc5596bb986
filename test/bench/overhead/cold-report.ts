/** What a cold-start child reports, on its own clock (performance.now() counts from process start). */
export interface ColdReport {
  /** Process start → the function's module loaded (its top-level awaits included). */
  loadedMs: number;
  /** Process start → the first turn answered. */
  answeredMs: number;
  /** The process's own CPU at that moment. */
  cpuMs: number;
  peakRssMb: number;
}
