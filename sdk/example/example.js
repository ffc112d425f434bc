// The example page's script, a file of its own as the page's Content-Security-Policy allows no inline script: it drives
// the script-tag build (the global `Tally`) and logs, newest first, what each call did, in the SDK's own terms.
const $ = (id) => document.getElementById(id);
const log = (line) => {
  $('log').textContent = line + '\n' + $('log').textContent;
};
let tally;
let lastReady = { ok: false, reason: 'timeout' };

/** ready()'s result in words: what getVariant() will answer from now on. */
function readyLine(result) {
  if (result.ok) return 'ready';
  switch (result.reason) {
    case 'key_refused':
      return `not ready: key refused (${result.status}); getVariant() returns the fallback. Check the key, or create one on the dashboard's Keys page.`;
    case 'unavailable':
      return `not ready: assignments not loaded (${result.status ?? 'network error'}); getVariant() uses the last stored ones, if any.`;
    case 'timeout':
      return 'not ready yet: no answer within 5 s; getVariant() returns the fallback until the assignments arrive.';
    default:
      return `not ready: ${result.reason}`;
  }
}

/** flush()'s result in words: what was delivered, and what was kept for retry. */
function flushLine(result) {
  if (result.pending === 0) return 'flushed: every queued event was delivered';
  if (result.reason === 'key_refused') {
    return `not flushed: key refused; ${result.pending} events kept in this browser for retry, sent by the next start with a working key`;
  }
  return `not flushed yet: ${result.pending} events kept for retry; the SDK sends them again after a wait`;
}

$('key').value = sessionStorage.getItem('tally-example-key') || '';
$('start').onclick = async () => {
  const apiKey = $('key').value.trim();
  sessionStorage.setItem('tally-example-key', apiKey);
  // One client per page: the previous one (another key) stops first.
  if (tally) await tally.shutdown();
  tally = Tally.init({ apiKey, baseURL: location.origin, debug: true, logger: { debug: log, warn: log, error: log } });
  for (const b of document.querySelectorAll('button[disabled]')) b.disabled = false;
  log('anonymousId ' + tally.anonymousId + ': waiting for assignments…');
  lastReady = await tally.ready();
  log(readyLine(lastReady));
};
$('track').onclick = () => {
  tally.track($('event').value, { page: 'example' });
  log('tracked ' + $('event').value + ' (queued; sent within 5 s or on flush)');
};
$('flush').onclick = async () => {
  log(flushLine(await tally.flush()));
};
$('identify').onclick = async () => {
  tally.identify($('user').value);
  lastReady = await tally.ready();
  log('identified as ' + tally.userId + (lastReady.ok ? '' : ' (' + readyLine(lastReady) + ')'));
};
$('reset').onclick = () => {
  tally.reset({ clearAnonymousId: true });
  log('new anonymousId ' + tally.anonymousId);
};
$('variant').onclick = () => {
  const name = $('experiment').value;
  const variant = tally.getVariant(name, '(fallback)');
  const why = variant !== '(fallback)' ? '' : lastReady.reason === 'key_refused' ? ' (key refused)' : ' (no assignment for this name yet)';
  log(name + ' → ' + variant + why);
};
