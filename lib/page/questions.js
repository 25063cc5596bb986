/**
 * A question an MCP server asked during a call (an elicitation the turn paused on:
 * `pendingElicitations`, docs/mcp.md), as a row of the turn's waiting section. URL mode: the
 * server's message, a link that opens its page in a new tab (only an http: or https: address is
 * ever a link) with the address written out, and Done or Decline. Form mode: a form built from the
 * flat `requestedSchema` (strings, numbers, integers, booleans, single and multiple choices), sent
 * with Submit, or Decline or Cancel. Everything the server wrote goes in as text (dom.js).
 */
import { h, httpUrl } from './dom.js';

/**
 * The row for one question. `answer(result)` is called once, with MCP's elicitation result
 * ({action, content?}); `linkOpened()` each time the user opens the page of a URL-mode question.
 * Returns the row and `give(result)`, which answers for the user (false when already answered).
 */
export function questionRow(question, { answer, linkOpened }) {
  const row = h('div', { class: `pending-call question${question.mode === 'url' ? ' visit' : ''}`, 'data-call-id': question.toolCallId },
    h('div', { class: 'tool-head' }, h('span', { class: 'tool-name' }, question.name), h('span', { class: 'status' }, question.server ? `asked by ${question.server}` : '')),
    h('p', { class: 'question-message' }, question.message));
  let answered = false;
  const give = (given) => {
    if (answered) return false;
    answered = true;
    row.classList.add(given.action === 'accept' ? 'approved' : 'declined');
    for (const control of row.querySelectorAll('button, input, select, textarea')) control.disabled = true;
    answer(given);
    return true;
  };
  const on = (given) => () => void give(given);
  if (question.mode === 'url') {
    row.append(visitOf(question, linkOpened), h('div', { class: 'actions' },
      h('button', { type: 'button', class: 'approve', onclick: on({ action: 'accept' }) }, 'Done'),
      h('button', { type: 'button', class: 'decline', onclick: on({ action: 'decline' }) }, 'Decline')));
  } else {
    row.append(formOf(question.requestedSchema ?? {}, (content) => give({ action: 'accept', content }), on({ action: 'decline' }), on({ action: 'cancel' })));
  }
  return { element: row, give };
}

/** The page to open: a link in a new tab when it is an http(s) address, and the address as text either way. */
function visitOf(question, linkOpened) {
  const href = httpUrl(question.url);
  if (!href) {
    return h('p', { class: 'visit-address unsafe' }, 'The server names a page that is not an http or https address, so it is not a link: ', h('code', { class: 'url' }, String(question.url ?? '')));
  }
  const opened = () => linkOpened();
  return h('p', { class: 'visit-address' },
    h('a', { class: 'visit-link', href, target: '_blank', rel: 'noopener noreferrer', onclick: opened, onauxclick: opened }, 'Open the page'),
    ' ', h('code', { class: 'url' }, href));
}

/**
 * A form for a flat requestedSchema. The browser checks required fields, numbers and formats
 * before Submit; an empty optional field is left out of the answer; a boolean is always sent.
 */
function formOf(schema, submit, decline, cancel) {
  const properties = Object.entries(schema.properties ?? {});
  const required = new Set(Array.isArray(schema.required) ? schema.required : []);
  const fields = properties.map(([name, property]) => fieldOf(name, property ?? {}, required.has(name)));
  const form = h('form', { class: 'question-form' },
    fields.map((field) => field.element),
    h('div', { class: 'actions' },
      h('button', { type: 'submit', class: 'approve' }, 'Submit'),
      h('button', { type: 'button', class: 'decline', onclick: decline }, 'Decline'),
      h('button', { type: 'button', class: 'cancel', onclick: cancel }, 'Cancel')));
  form.addEventListener('submit', (event) => {
    event.preventDefault();
    const content = {};
    for (const field of fields) {
      const value = field.value();
      if (value !== undefined) content[field.name] = value;
    }
    submit(content);
  });
  return form;
}

/** The choices of a single-choice field: `enum` (with legacy `enumNames`), or `oneOf`/`anyOf` of `{const, title}`. */
function choicesOf(property) {
  if (Array.isArray(property.enum)) return property.enum.map((value, index) => ({ value, title: property.enumNames?.[index] ?? String(value) }));
  const options = property.oneOf ?? property.anyOf;
  if (Array.isArray(options) && options.every((option) => option && 'const' in option)) return options.map((option) => ({ value: option.const, title: option.title ?? String(option.const) }));
  return undefined;
}

function fieldOf(name, property, required) {
  const label = (control, ...rest) => h('label', { class: `question-field${required ? ' required' : ''}` },
    h('span', { class: 'field-label' }, property.title ?? name, required ? h('span', { class: 'required-mark', title: 'required' }, ' *') : null),
    control, ...rest,
    property.description ? h('small', { class: 'hint' }, property.description) : null);
  const numeric = property.type === 'number' || property.type === 'integer';
  const typed = (text) => (numeric ? Number(text) : text);

  if (property.type === 'boolean') {
    const box = h('input', { type: 'checkbox', name, checked: property.default === true });
    return { name, element: label(box), value: () => box.checked };
  }

  const itemChoices = property.type === 'array' ? choicesOf(property.items ?? {}) : undefined;
  if (itemChoices) {
    const defaults = Array.isArray(property.default) ? property.default : [];
    const boxes = itemChoices.map((choice) => ({ choice, box: h('input', { type: 'checkbox', name, value: String(choice.value), checked: defaults.includes(choice.value) }) }));
    const group = h('span', { class: 'choices' }, boxes.map(({ choice, box }) => h('label', { class: 'choice' }, box, ` ${choice.title}`)));
    return {
      name,
      element: label(group),
      value: () => {
        const chosen = boxes.filter(({ box }) => box.checked).map(({ choice }) => choice.value);
        return chosen.length > 0 || required ? chosen : undefined;
      },
    };
  }

  const choices = choicesOf(property);
  if (choices) {
    const select = h('select', { name, required },
      h('option', { value: '' }, required ? 'Choose…' : '(none)'),
      choices.map((choice, index) => h('option', { value: String(index), selected: choice.value === property.default }, choice.title)));
    return { name, element: label(select), value: () => (select.value === '' ? undefined : choices[Number(select.value)].value) };
  }

  const input = numeric
    ? h('input', { type: 'number', name, required, step: property.type === 'integer' ? '1' : 'any', min: property.minimum, max: property.maximum, value: property.default })
    : h('input', { type: INPUT_TYPES[property.format] ?? 'text', name, required, minlength: property.minLength, maxlength: property.maxLength, value: property.default });
  return { name, element: label(input), value: () => (input.value === '' ? undefined : typed(input.value)) };
}

/** String formats the browser can check itself (date-time is left as text: its input has no time zone). */
const INPUT_TYPES = { email: 'email', uri: 'url', date: 'date' };
