import assert from 'node:assert/strict';
import * as http from 'node:http';
import type { AddressInfo } from 'node:net';
import { fetchTextAction } from '../../src/core/fetchText';

/** A local server whose routes answer as real servers do; never the internet. */
function serve(routes: Record<string, (response: http.ServerResponse) => void>): Promise<{ url: string; close: () => Promise<void> }> {
  const server = http.createServer((request, response) => (routes[request.url ?? ''] ?? ((r) => r.writeHead(404).end('not here')))(response));
  return new Promise((resolve) => {
    server.listen(0, '127.0.0.1', () => {
      const { port } = server.address() as AddressInfo;
      resolve({
        url: `http://127.0.0.1:${port}`,
        close: () => new Promise<void>((done) => {
          server.closeAllConnections();
          server.close(() => done());
        }),
      });
    });
  });
}

describe('fetchTextAction', () => {
  let base: string;
  let close: () => Promise<void>;
  before(async () => {
    ({ url: base, close } = await serve({
      '/hello': (r) => r.writeHead(200, { 'content-type': 'text/plain; charset=utf-8' }).end('héllo <b>there</b>'),
      '/json': (r) => r.writeHead(200, { 'content-type': 'application/problem+json' }).end('{"a":1}'),
      '/latin1': (r) => r.writeHead(200, { 'content-type': 'text/plain; charset=iso-8859-1' }).end(Buffer.from([0x63, 0x61, 0x66, 0xe9])),
      '/big': (r) => r.writeHead(200, { 'content-type': 'text/plain' }).end('x'.repeat(2000)),
      '/moved': (r) => r.writeHead(301, { location: '/hello' }).end(),
      '/image': (r) => r.writeHead(200, { 'content-type': 'image/png' }).end(Buffer.alloc(10)),
      '/slow': (r) => setTimeout(() => r.writeHead(200).end('late'), 5000),
    }));
  });
  after(() => close());

  it('returns the status, type, size and cleaned text', async () => {
    assert.deepEqual(await fetchTextAction(`${base}/hello`), {
      ok: true,
      text: 'HTTP 200 OK · text/plain; charset=utf-8 · 19 bytes\n\nhéllo \u2039b>there\u2039/b>',
      result: { status: 200, contentType: 'text/plain; charset=utf-8', bytes: 19, truncated: false },
    });
  });

  it('takes JSON media types for text', async () => {
    assert.match((await fetchTextAction(`${base}/json`)).text, /\n\n\{"a":1\}$/);
  });

  it('decodes the declared charset', async () => {
    assert.match((await fetchTextAction(`${base}/latin1`)).text, /\n\ncafé$/);
  });

  it('stops reading at the size cap and says so', async () => {
    const done = await fetchTextAction(`${base}/big`, { maxBytes: 500 });
    assert.match(done.text, /^HTTP 200 OK · text\/plain · 500 bytes \(cut at 500 bytes\)\n\nx{500}$/);
  });

  it('does not call a body of exactly the cap cut', async () => {
    assert.match((await fetchTextAction(`${base}/big`, { maxBytes: 2000 })).text, /^HTTP 200 OK · text\/plain · 2000 bytes\n\n/);
  });

  it('does not follow a redirect, so hooks check the new URL too', async () => {
    assert.equal(
      (await fetchTextAction(`${base}/moved`)).text,
      `HTTP 301 Moved Permanently: ${base}/moved redirects to ${base}/hello. It was not followed: call garuda_fetch with that URL to fetch it, so that the hooks check it too.`,
    );
  });

  it('does not show content that is not text', async () => {
    assert.equal((await fetchTextAction(`${base}/image`)).text, `HTTP 200 OK: ${base}/image is image/png, not text: not shown.`);
  });

  it('gives up at its timeout', async () => {
    assert.deepEqual(await fetchTextAction(`${base}/slow`, { timeoutMs: 200 }), { ok: false, text: `Fetching ${base}/slow timed out after 200 ms.` });
  });

  it('stops when cancelled', async () => {
    const controller = new AbortController();
    setTimeout(() => controller.abort(), 100);
    assert.deepEqual(await fetchTextAction(`${base}/slow`, { signal: controller.signal }), { ok: false, text: `Fetching ${base}/slow was cancelled.` });
  });

  it('reports a server that is not there', async () => {
    const gone = await serve({});
    await gone.close();
    const done = await fetchTextAction(`${gone.url}/x`);
    assert.equal(done.ok, false);
    assert.match(done.text, /^Fetching http:\/\/127\.0\.0\.1:\d+\/x failed: connect ECONNREFUSED/);
  });
});
