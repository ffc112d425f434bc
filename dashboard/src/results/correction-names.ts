/** The corrections' names as the pages write them (the metrics table, the breakdowns, the verdict, the experiments list). */
export const CORRECTION_NAMES = { holm: 'Holm', 'benjamini-hochberg': 'Benjamini–Hochberg' } as const;
