import { h } from './dom.js';

/**
 * A `tools/call` result as a person reads it: text (pretty-printed when it is JSON), images and
 * audio (inline, as `data:` URLs), links to files, embedded resources, and the structured content.
 */

/** @param {any} result */
export function resultView(result) {
  const blocks = Array.isArray(result?.content) ? result.content : [];
  const isError = result?.isError === true;
  return h(
    'div',
    { class: `result${isError ? ' failed' : ''}` },
    h(
      'p',
      { class: 'result-head' },
      h('span', { class: `badge ${isError ? 'danger' : 'success'}` }, isError ? 'Error' : 'Success'),
      isError
        ? ' The tool reported an error.'
        : ` ${blocks.length} content block${blocks.length === 1 ? '' : 's'}`,
    ),
    blocks.map(blockView),
    result?.structuredContent !== undefined &&
      h(
        'details',
        { class: 'structured' },
        h('summary', {}, 'Structured content'),
        h('pre', { class: 'code' }, JSON.stringify(result.structuredContent, null, 2)),
      ),
  );
}

/** @param {any} block */
function blockView(block) {
  switch (block?.type) {
    case 'text':
      return textView(String(block.text ?? ''));
    case 'image':
      return h(
        'figure',
        { class: 'media' },
        h('img', {
          src: dataUrl(block.mimeType, block.data),
          alt: `Image returned by the tool (${block.mimeType})`,
        }),
      );
    case 'audio':
      return h('audio', { controls: true, src: dataUrl(block.mimeType, block.data) });
    case 'resource_link':
      return linkView(block);
    case 'resource':
      return resourceView(block.resource ?? {});
    default:
      return h('pre', { class: 'code' }, JSON.stringify(block, null, 2));
  }
}

/** Text that is a JSON object or array is shown as formatted JSON. @param {string} text */
function textView(text) {
  const trimmed = text.trim();
  if (trimmed.startsWith('{') || trimmed.startsWith('[')) {
    try {
      return h('pre', { class: 'code json' }, JSON.stringify(JSON.parse(trimmed), null, 2));
    } catch {
      // Not JSON after all: shown as text.
    }
  }
  return h('p', { class: 'text' }, text);
}

/** @param {{ uri?: string, name?: string, mimeType?: string, size?: number, description?: string }} link */
function linkView({ uri = '', name, mimeType, size, description }) {
  const details = [mimeType, typeof size === 'number' ? bytes(size) : undefined].filter(Boolean).join(', ');
  // Only web links open; any other scheme is shown, not followed.
  const label = name || uri;
  const target = /^https?:\/\//i.test(uri)
    ? h('a', { href: uri, target: '_blank', rel: 'noopener noreferrer' }, label)
    : h('code', {}, uri);
  return h(
    'p',
    { class: 'link' },
    h('span', { class: 'badge' }, 'Link'),
    ' ',
    target,
    details && h('span', { class: 'muted' }, ` (${details})`),
    description && h('span', { class: 'muted' }, ` — ${description}`),
  );
}

/** @param {{ uri?: string, mimeType?: string, text?: string, blob?: string }} resource */
function resourceView({ uri = '', mimeType, text, blob }) {
  if (typeof text === 'string')
    return h('div', { class: 'resource' }, h('p', { class: 'muted' }, uri), textView(text));
  const name = uri.split('/').pop() || 'file';
  return h(
    'p',
    { class: 'link' },
    h('span', { class: 'badge' }, 'File'),
    ' ',
    h('a', { href: dataUrl(mimeType, blob), download: name }, `Download ${name}`),
    mimeType && h('span', { class: 'muted' }, ` (${mimeType})`),
  );
}

/** @param {string | undefined} mimeType @param {string | undefined} data */
const dataUrl = (mimeType, data) => `data:${mimeType || 'application/octet-stream'};base64,${data ?? ''}`;

/** @param {number} size */
function bytes(size) {
  if (size < 1024) return `${size} B`;
  if (size < 1024 * 1024) return `${(size / 1024).toFixed(1)} KB`;
  return `${(size / 1024 / 1024).toFixed(1)} MB`;
}
