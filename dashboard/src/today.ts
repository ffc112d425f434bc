/**
 * The day a relative range ends when an insight is opened (domain/insights/relative-range.ts): today
 * in UTC, by the browser's clock (tests move it).
 */
export const today = (): string => new Date(Date.now()).toISOString().slice(0, 10);
