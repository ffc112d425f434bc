// The example page's script: a file of its own, as the page's Content-Security-Policy allows no inline script.
const $ = (id) => document.getElementById(id);
const log = (line) => {
  $('log').textContent = line + '\n' + $('log').textContent;
};
let tally;

$('key').value = sessionStorage.getItem('tally-example-key') || '';
$('start').onclick = async () => {
  const apiKey = $('key').value.trim();
  sessionStorage.setItem('tally-example-key', apiKey);
  tally = Tally.init({ apiKey, baseURL: location.origin, debug: true, logger: { debug: log, warn: log, error: log } });
  for (const b of document.querySelectorAll('button[disabled]')) b.disabled = false;
  log('anonymousId ' + tally.anonymousId + ': waiting for assignments…');
  await tally.ready();
  log('ready');
};
$('track').onclick = () => {
  tally.track($('event').value, { page: 'example' });
  log('tracked ' + $('event').value + ' (queued; sent within 5 s or on flush)');
};
$('flush').onclick = async () => {
  await tally.flush();
  log('flushed');
};
$('identify').onclick = async () => {
  tally.identify($('user').value);
  await tally.ready();
  log('identified as ' + tally.userId);
};
$('reset').onclick = () => {
  tally.reset({ clearAnonymousId: true });
  log('new anonymousId ' + tally.anonymousId);
};
$('variant').onclick = () => log($('experiment').value + ' → ' + tally.getVariant($('experiment').value, '(fallback)'));
