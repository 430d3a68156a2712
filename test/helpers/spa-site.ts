import type { Handler } from './http.js';

function script(body: string): Handler {
  return (_req, res) => {
    res.writeHead(200, { 'content-type': 'text/javascript' }).end(body);
  };
}

/**
 * A single-page app: its HTML is an empty mount point and a script, which writes the
 * title and the links. Only a crawl that runs the script finds /app/one and /app/two.
 */
export const SPA_SITE: Record<string, Handler | string> = {
  '/': `<!doctype html><html><head><title>loading</title></head><body><div id="root"></div>
<script src="/app.js"></script></body></html>`,
  '/app.js': script(`
    document.title = 'The app';
    const root = document.getElementById('root');
    for (const name of ['one', 'two']) {
      const a = document.createElement('a');
      a.href = '/app/' + name;
      a.textContent = name;
      root.appendChild(a);
    }
  `),
  '/app/one': '<!doctype html><title>one</title><p>one</p>',
  '/app/two': '<!doctype html><title>two</title><p>two</p>',
  // A page that calls alert(): the script goes on once the dialog is dismissed.
  '/alert': `<!doctype html><title>alert</title><body><script>
    alert('hello'); confirm('sure?');
    document.body.insertAdjacentHTML('beforeend', '<a href="/app/one">after the dialogs</a>');
  </script></body>`,
  // A page that never finishes loading: its script never comes, and the page keeps what
  // its other script built by the deadline.
  '/endless': `<!doctype html><title>endless</title><body><script>
    document.body.insertAdjacentHTML('beforeend', '<a href="/app/two">built before the end</a>');
  </script><script src="/never.js"></script></body>`,
  '/never.js': () => {
    // Never answered: the response is left open until the server closes.
  },
};
