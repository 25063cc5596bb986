/**
 * The conversation's files (agent.yml `files`): listed above the question box, kept up to date by
 * the turn's `files` events, and opened in the side panel as text. A file is never rendered: an
 * HTML file shows its source, as text, and is downloaded as a file (a blob with `download`), so
 * nothing a model wrote runs in the page. Hidden when the conversation has none, or files are off.
 */
import { h } from './dom.js';

export class FilesPanel {
  /** `open(name)` shows a file (the page knows the conversation and the side panel). */
  constructor(element, open) {
    this.element = element;
    this.open = open;
    this.files = [];
  }

  reset(files = []) {
    this.files = files;
    this.render();
  }

  handle({ event, data }) {
    if (event !== 'files') return;
    this.files = data.files ?? [];
    this.render();
  }

  render() {
    const items = this.files.map((file) =>
      h('li', {}, h('button', { type: 'button', class: 'file', title: file.description || file.name, onclick: () => this.open(file.name) }, file.name), h('span', { class: 'size' }, ` ${formatBytes(file.bytes)}`)));
    this.element.replaceChildren(...(items.length > 0 ? [h('h3', {}, 'Files'), h('ul', {}, items)] : []));
    this.element.hidden = items.length === 0;
  }
}

/** A file in the side panel: its description, its text, and a download of it. */
export function renderFile(file) {
  const download = h('a', { class: 'download', download: file.name, href: URL.createObjectURL(new Blob([file.text], { type: 'application/octet-stream' })) }, 'Download');
  return h('div', { class: 'file-view' },
    file.description ? h('p', { class: 'hint' }, file.description) : null,
    download,
    h('pre', { class: 'file-text' }, file.text));
}

const formatBytes = (bytes) => (bytes >= 1024 ? `${(bytes / 1024).toFixed(bytes >= 10_240 ? 0 : 1)} KB` : `${bytes} B`);
