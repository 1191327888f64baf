// Light and dark themes: follows the system until the user picks one, remembered in
// localStorage. The choice is a data-theme attribute on <html>; styles/app.css maps it
// to colour variables.

const KEY = 'logbook.theme';

class Theme {
  dark = $state(false);
  constructor() {
    const saved = localStorage.getItem(KEY);
    const mq = window.matchMedia?.('(prefers-color-scheme: dark)');
    this.dark = saved ? saved === 'dark' : !!mq?.matches;
    this.apply();
    mq?.addEventListener?.('change', (e) => {
      if (!localStorage.getItem(KEY)) {
        this.dark = e.matches;
        this.apply();
      }
    });
  }
  toggle() {
    this.dark = !this.dark;
    localStorage.setItem(KEY, this.dark ? 'dark' : 'light');
    this.apply();
  }
  private apply() {
    document.documentElement.dataset.theme = this.dark ? 'dark' : 'light';
  }
}

export const theme = new Theme();
