/** The "Start a run" form of the runs page (its function's sample inputs fill the input). */
import { api } from './api.js';
import { h, replace } from './dom.js';
import { errorBox } from './format.js';
import { runHref, toWire } from './list.js';
import { tagParams } from './tags.js';

/** The "Start a run" form; on success it opens the new run's page. */
export function startRunForm() {
  const select = h('select', {
    id: 'start-function',
    name: 'function',
    required: true,
    dataset: { testid: 'start-function' },
  });
  const input = h('textarea', {
    id: 'start-input',
    name: 'input',
    rows: 5,
    spellcheck: 'false',
    placeholder: '{"order": 1}',
    dataset: { testid: 'start-input' },
  });
  input.value = '{}';
  /** The samples of each function, by name. */
  let samplesOf = new Map();
  const sample = h('select', {
    id: 'start-sample',
    dataset: { testid: 'start-sample' },
    onchange: () => useSample(Number(sample.value)),
  });
  const sampleField = h(
    'div',
    { class: 'field', hidden: true },
    h('label', { for: 'start-sample' }, 'Sample input'),
    sample,
  );
  /** The text last put in the input from a sample: replaced freely, unlike what the user typed. */
  let fromSample = '{}';

  function useSample(index) {
    const chosen = samplesOf.get(select.value)?.[index];
    if (!chosen) return;
    fromSample = JSON.stringify(chosen.input, null, 2);
    input.value = fromSample;
  }

  /** Offers the chosen function's samples, and puts the first in the input unless the user typed. */
  function showSamples() {
    const list = samplesOf.get(select.value) ?? [];
    replace(
      sample,
      list.map((s, i) => h('option', { value: String(i) }, s.name)),
    );
    sampleField.hidden = list.length === 0;
    const untouched = input.value.trim() === fromSample.trim() || input.value.trim() === '';
    if (list.length > 0 && untouched) useSample(0);
    else if (list.length === 0 && untouched) {
      fromSample = '{}';
      input.value = '{}';
    }
  }
  select.addEventListener('change', showSamples);
  const runKey = h('input', {
    id: 'start-run-key',
    name: 'runKey',
    autocomplete: 'off',
    dataset: { testid: 'start-run-key' },
  });
  const tags = h('input', {
    id: 'start-tags',
    name: 'tags',
    autocomplete: 'off',
    spellcheck: 'false',
    placeholder: 'customer=c-1 region=eu',
    dataset: { testid: 'start-tags' },
  });
  const submit = h('button', { type: 'submit', class: 'primary', dataset: { testid: 'start-submit' } }, 'Start');
  const message = h('div', { class: 'form-message', role: 'alert', dataset: { testid: 'start-error' } });

  async function onSubmit(event) {
    event.preventDefault();
    replace(message);
    let value;
    const text = input.value.trim();
    if (text) {
      try {
        value = JSON.parse(text);
      } catch (error) {
        replace(message, errorBox({ code: 'invalid_json', message: `input: ${error.message}` }, 'start-error-message'));
        input.focus();
        return;
      }
    }
    const tagText = tags.value.trim();
    const badPairs = tagText === '' ? [] : tagText.split(/\s+/).filter((pair) => pair.indexOf('=') <= 0);
    if (badPairs.length > 0) {
      replace(
        message,
        errorBox(
          { code: 'invalid_argument', message: 'tags: write key=value pairs, separated by spaces' },
          'start-error-message',
        ),
      );
      tags.focus();
      return;
    }
    if (!select.value) {
      replace(message, errorBox({ code: 'invalid_argument', message: 'function: choose one' }, 'start-error-message'));
      return;
    }
    submit.disabled = true;
    try {
      const run = await api.startRun({
        function: select.value,
        ...(value === undefined ? {} : { input: value }),
        ...(runKey.value.trim() ? { runKey: runKey.value.trim() } : {}),
        ...(tagText ? { tags: startTags(tagText) } : {}),
      });
      location.hash = runHref(run.runId);
    } catch (error) {
      replace(message, errorBox(toWire(error), 'start-error-message'));
    } finally {
      submit.disabled = false;
    }
  }

  const el = h(
    'section',
    { class: 'panel start', 'aria-labelledby': 'start-title' },
    h('h2', { id: 'start-title' }, 'Start a run'),
    h(
      'form',
      { dataset: { testid: 'start-form' }, onsubmit: onSubmit, novalidate: true },
      h('div', { class: 'field' }, h('label', { for: 'start-function' }, 'Function'), select),
      sampleField,
      h('div', { class: 'field grow' }, h('label', { for: 'start-input' }, 'Input (JSON)'), input),
      h('div', { class: 'field' }, h('label', { for: 'start-run-key' }, 'Run key (optional)'), runKey),
      h('div', { class: 'field' }, h('label', { for: 'start-tags' }, 'Tags (optional)'), tags),
      h('div', { class: 'field actions' }, submit),
    ),
    message,
  );

  return {
    el,
    /** `functions`: `GET /v1/functions`' list, `{ name, samples? }` each. */
    setFunctions(functions) {
      const chosen = select.value;
      const names = functions.map((f) => f.name);
      samplesOf = new Map(functions.map((f) => [f.name, f.samples ?? []]));
      replace(
        select,
        names.length === 0 ? h('option', { value: '' }, 'No functions') : null,
        names.map((n) => h('option', { value: n, selected: n === chosen }, n)),
      );
      submit.disabled = names.length === 0;
      if (select.value !== chosen || sample.options.length !== (samplesOf.get(select.value) ?? []).length)
        showSamples();
    },
  };
}

/** The start form's tags text (`key=value key=value`) as the run's tags; the API checks each. */
function startTags(text) {
  return Object.fromEntries(
    tagParams(text).map((pair) => [pair.slice(0, pair.indexOf(':')), pair.slice(pair.indexOf(':') + 1)]),
  );
}
