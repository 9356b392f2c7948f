import { byId } from './dom.js';

/** Short confirmations ("Copied", "Saved"), read out by screen readers through a status region. */

/** @type {ReturnType<typeof setTimeout> | undefined} */
let timer;

/**
 * @param {string} message
 * @param {{ shown?: boolean }} [options] `shown: false`: read out only, for a confirmation the page
 *   shows where it happened (a toast would float over the form being edited)
 */
export function toast(message, { shown = true } = {}) {
  const region = byId('status');
  region.textContent = message;
  region.classList.toggle('shown', shown);
  clearTimeout(timer);
  timer = setTimeout(() => {
    region.classList.remove('shown');
    region.textContent = '';
  }, 4000);
}

/**
 * Copies text to the clipboard and says so; where the browser refuses, the text is selected in
 * `fallback` so a person can copy it with the keyboard.
 * @param {string} text
 * @param {HTMLInputElement | HTMLTextAreaElement} [fallback]
 */
export async function copy(text, fallback) {
  try {
    await navigator.clipboard.writeText(text);
    toast('Copied to the clipboard');
  } catch {
    fallback?.focus();
    fallback?.select();
    toast('Press Ctrl+C (⌘C on a Mac) to copy the selected text');
  }
}
