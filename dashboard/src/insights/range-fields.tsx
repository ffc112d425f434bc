/**
 * The range of an insight form: Last 7, 30 or 90 days, This month, or Fixed dates; then From and To.
 * A relative range is kept as such in the definition (`range`), so a saved insight or a link covers
 * the same span of recent days whenever it is opened; the dates it shows are today's
 * (domain/insights/relative-range.ts). Changing a date makes the range fixed.
 */
import { useState } from 'preact/hooks';
import type { ApiError } from '../api';
import { Field } from '../components/field';
import { RANGE_KINDS, RANGE_LABELS, isRelativeRange, resolveRange, type RangeKind } from '../../../lambdas/domain/insights/relative-range';
import { today } from '../today';

export interface RangeValue {
  range: RangeKind;
  date_from: string;
  date_to: string;
}

/** The range of a definition from a link or a saved insight: without `range` (saved before ranges), its fixed dates. */
export const rangeOf = (value: unknown): RangeKind => {
  const range = (value as { range?: unknown } | null)?.range;
  return isRelativeRange(range) ? range : 'custom';
};

/** The range a new form starts with: the last 7 days. */
export const defaultRange = (): RangeValue => ({ range: 'last_7_days', ...resolveRange('last_7_days', today()) });

/** The ranges as a select's options, in the order a form offers them. */
export function RangeOptions() {
  return (
    <>
      {RANGE_KINDS.map((r) => (
        <option key={r} value={r}>
          {RANGE_LABELS[r]}
        </option>
      ))}
    </>
  );
}

export interface RangeFieldsProps {
  idPrefix: string;
  value: RangeValue;
  onChange: (next: RangeValue) => void;
  apiError?: ApiError;
  /** Names the controls range, date_from and date_to, for a form read with FormData. */
  named?: boolean;
}

export function RangeFields({ idPrefix, value, onChange, apiError, named }: RangeFieldsProps) {
  return (
    <>
      <Field id={`${idPrefix}-range`} label="Range" error={apiError?.forField('range')}>
        <select
          name={named ? 'range' : undefined}
          value={value.range}
          onChange={(e) => {
            const range = e.currentTarget.value as RangeKind;
            onChange(isRelativeRange(range) ? { range, ...resolveRange(range, today()) } : { ...value, range });
          }}
        >
          <RangeOptions />
        </select>
      </Field>
      <Field id={`${idPrefix}-from`} label="From (day, project time zone)" error={apiError?.forField('date_from')}>
        <input
          type="date"
          name={named ? 'date_from' : undefined}
          value={value.date_from}
          onInput={(e) => onChange({ ...value, range: 'custom', date_from: e.currentTarget.value })}
        />
      </Field>
      <Field id={`${idPrefix}-to`} label="To (day, included)" error={apiError?.forField('date_to')}>
        <input
          type="date"
          name={named ? 'date_to' : undefined}
          value={value.date_to}
          onInput={(e) => onChange({ ...value, range: 'custom', date_to: e.currentTarget.value })}
        />
      </Field>
    </>
  );
}

/** RangeFields keeping their own state, in a form read with FormData (its controls named range, date_from, date_to). */
export function FormRangeFields({ idPrefix, initial, apiError }: { idPrefix: string; initial: RangeValue; apiError?: ApiError }) {
  const [value, setValue] = useState(initial);
  return <RangeFields idPrefix={idPrefix} value={value} onChange={setValue} apiError={apiError} named />;
}
