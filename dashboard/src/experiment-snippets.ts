/**
 * The code an experiment's page shows for using it (the SDK's getVariant, and the REST form for a
 * backend), with the experiment's name and variants filled in as JavaScript and shell literals: a name
 * is the team's own text, so it is quoted, never pasted raw. Pure: unit-tested, and the page renders
 * the texts as text.
 */
import type { Experiment } from './admin-types';

/** A JavaScript string literal of any text (JSON's quoting is valid JavaScript). */
const js = (text: string) => JSON.stringify(text);
/** A POSIX shell single-quoted word of any text. */
const sh = (text: string) => `'${text.replaceAll("'", `'\\''`)}'`;

export function sdkSnippet(experiment: Pick<Experiment, 'name' | 'variants'>): string {
  const [control, ...treatments] = experiment.variants;
  return [
    `// The control (${js(control!)}) is the fallback while assignments load or if they cannot be.`,
    `const variant = tally.getVariant(${js(experiment.name)}, ${js(control!)});`,
    ...treatments.map((t, i) => `${i === 0 ? 'if' : '} else if'} (variant === ${js(t)}) {\n  // show ${t.replace(/[\r\n]+/g, ' ')}`),
    '} else {\n  // show the control\n}',
    '// getVariant records the exposure ($experiment_exposure) that enrolls the user in the results.',
  ].join('\n');
}

export function restSnippet(experiment: Pick<Experiment, 'name'>, baseURL: string): string {
  return [
    `curl -H "Authorization: Bearer $TALLY_KEY" ${sh(`${baseURL}/v1/experiments?user_id=USER_ID`)}`,
    `# -> {"assigned_variants": {${js(experiment.name)}: "<variant>", …}}`,
    '# When the user sees the variant, send the exposure that enrolls them:',
    `curl -H "Authorization: Bearer $TALLY_KEY" -H 'Content-Type: application/json' ${sh(`${baseURL}/v1/events`)} \\`,
    `  -d ${sh(JSON.stringify({ events: [{ name: '$experiment_exposure', user_id: 'USER_ID', properties: { $experiment_name: experiment.name, $variant: '<variant>' } }] }))}`,
  ].join('\n');
}
