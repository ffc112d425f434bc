/** The project's insights: one page per kind (trends first; funnels and retention add their line). */
import type { PageProps } from '../page';
import { pathOf } from '../router';
import '../insights/insights.css';

/** Each kind's page, in the order shown. */
export const INSIGHT_PAGES = [
  {
    segment: 'trends',
    title: 'Trends',
    description: 'How many events happened, or how many people did them, per hour, day or week; broken down and against the previous period.',
  },
];

export function InsightsPage({ params }: PageProps) {
  const { projectId } = params as { projectId: string };
  return (
    <>
      <h1>Insights</h1>
      <p>Answers from the project's events without writing SQL. Each page shows the exact query it ran.</p>
      <ul class="insight-kinds">
        {INSIGHT_PAGES.map((k) => (
          <li key={k.segment}>
            <a href={`#${pathOf('projects', projectId, 'insights', k.segment)}`}>{k.title}</a>: {k.description}
          </li>
        ))}
      </ul>
    </>
  );
}
