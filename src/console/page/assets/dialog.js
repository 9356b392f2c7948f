import { h } from './dom.js';

/**
 * Asks a person to confirm an action in a modal dialog; resolves `true` when they do. The dialog
 * traps the focus and Escape cancels it (the browser's own `<dialog>` does both).
 * @param {{ title: string, message: string, confirm: string, danger?: boolean }} question
 * @returns {Promise<boolean>}
 */
export function confirmAction({ title, message, confirm, danger = false }) {
  return new Promise((resolve) => {
    const dialog = h(
      'dialog',
      { class: 'dialog', 'aria-labelledby': 'confirm-title', 'aria-describedby': 'confirm-message' },
      h('h2', { id: 'confirm-title' }, title),
      h('p', { id: 'confirm-message' }, message),
      h(
        'div',
        { class: 'actions end' },
        h(
          'button',
          { type: 'button', class: 'secondary', autofocus: true, onclick: () => dialog.close() },
          'Cancel',
        ),
        h(
          'button',
          { type: 'button', class: danger ? 'danger' : 'primary', onclick: () => dialog.close('confirm') },
          confirm,
        ),
      ),
    );
    dialog.addEventListener('close', () => {
      resolve(dialog.returnValue === 'confirm');
      dialog.remove();
    });
    document.body.append(dialog);
    dialog.showModal();
  });
}

/**
 * Opens a modal dialog around `content`; `close()` closes it.
 * @param {string} title
 * @param {(close: () => void) => Node} content
 */
export function openDialog(title, content) {
  const titleId = `dialog-title-${Date.now()}`;
  const dialog = h('dialog', { class: 'dialog wide', 'aria-labelledby': titleId });
  const close = () => dialog.close();
  dialog.append(h('h2', { id: titleId }, title), content(close));
  dialog.addEventListener('close', () => dialog.remove());
  document.body.append(dialog);
  dialog.showModal();
  return close;
}
