/**
 * "How this was computed" for an insight, as the results page shows it: the counting rules the kind
 * lists, the data watermark, the engine, what Athena read, and the exact query with a copy button.
 */
import type { ComponentChildren } from 'preact';
import { CopyButton } from '../components/copy-button';
import { formatTime } from '../format-time';
import { formatBytes } from './insight-progress';
import type { InsightAnswer } from './insight-types';

export function InsightHowComputed({ answer, children }: { answer: InsightAnswer<unknown>; children: ComponentChildren }) {
  return (
    <section class="how-computed" aria-labelledby="how-computed-title">
      <h2 id="how-computed-title">How this was computed</h2>
      <h3>Counting</h3>
      <ul>
        {children}
        <li>
          <strong>Each event once:</strong> an event the raw files hold more than once (a resend after a crash) counts once, as the copy received first.
        </li>
        <li>
          <strong>Users:</strong> every ID is resolved to its canonical user through the identity links as they are now, so a visitor who signed in counts as
          one user under both IDs.
        </li>
        <li>
          <strong>Time zone:</strong> days, weeks and hours are those of {answer.time_zone ?? 'UTC'}, the project's time zone (set on the Projects page); the
          query converts each event's time with AT TIME ZONE and reads the UTC day partitions that cover the local days.
        </li>
        <li>
          <strong>Data through:</strong> events received by {formatTime(answer.data_through)} ({answer.data_through}) count; later ones show in a later run.
          {answer.cached ? ' This answer was computed earlier for the same query and data.' : ''}
        </li>
      </ul>
      <h3>The query</h3>
      <p>
        {answer.engine === 'athena'
          ? `Run by Athena over the raw event and identity streams${answer.bytes_scanned !== null ? `, reading ${formatBytes(answer.bytes_scanned)}` : ''}. Paste it into the Athena console (the stack’s analysts workgroup) to reproduce the numbers.`
          : 'Run locally by DuckDB over the raw event files, through views named like the Athena tables: it runs unchanged in duckdb -init <data dir>/views.sql (the file npm start writes). On AWS, Athena runs the same text over the Glue tables.'}
      </p>
      <CopyButton text={answer.sql} label="Copy query" />
      <pre class="query-text" tabIndex={0} aria-label={`Insight query (${answer.engine})`}>
        <code>{answer.sql}</code>
      </pre>
    </section>
  );
}
