import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { gzipSync } from 'node:zlib';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ANY_HOST, parseAllowList } from '#shared/allow-list';
import { fetchLink, parseLink, readLink } from '#shared/kb/sources/link';
import { refusal } from '#test/support/source-files';

let server: http.Server;
let base: string;
let port: number;

const routes: Record<string, (req: http.IncomingMessage, res: http.ServerResponse) => void> = {
  '/page': (_req, res) => {
    res.writeHead(200, { 'content-type': 'text/html; charset=utf-8' });
    res.end(
      '<html><head><title>Returns &amp; 退货</title></head><body><h1>Policy</h1><p>Seven days.</p></body></html>',
    );
  },
  '/article': (_req, res) => {
    res.writeHead(200, { 'content-type': 'text/html' });
    res.end('<body><nav>Menu</nav><article id="main"><p>Only this.</p></article><footer>Footer</footer></body>');
  },
  '/plain': (_req, res) => {
    res.writeHead(200, { 'content-type': 'text/plain' });
    res.end('just text');
  },
  '/gbk': (_req, res) => {
    res.writeHead(200, { 'content-type': 'text/html; charset=gbk' });
    // "知识" in GBK.
    res.end(Buffer.from([0xd6, 0xaa, 0xca, 0xb6]));
  },
  '/gzip': (_req, res) => {
    res.writeHead(200, { 'content-type': 'text/html', 'content-encoding': 'gzip' });
    res.end(gzipSync('<p>compressed page</p>'));
  },
  '/bomb': (_req, res) => {
    res.writeHead(200, { 'content-type': 'text/html', 'content-encoding': 'gzip' });
    res.end(gzipSync(Buffer.alloc(4 * 1024 * 1024, 0x20)));
  },
  '/big': (_req, res) => {
    res.writeHead(200, { 'content-type': 'text/html' });
    // No content-length: the cap must cut the stream itself.
    const chunk = Buffer.alloc(64 * 1024, 0x61);
    let sent = 0;
    const send = () => {
      while (sent < 64 && res.write(chunk)) sent++;
      if (sent >= 64) res.end();
      else res.once('drain', send);
    };
    send();
  },
  '/slow': (_req, res) => {
    res.writeHead(200, { 'content-type': 'text/html' });
    res.write('<p>start');
    // Never ends: the deadline must cut it.
  },
  '/hop': (req, res) => {
    const n = Number(new URL(req.url ?? '', 'http://x').searchParams.get('n') ?? 0);
    res.writeHead(302, { location: n > 0 ? `/hop?n=${n - 1}` : '/page' });
    res.end();
  },
  '/to-metadata': (_req, res) => {
    res.writeHead(301, { location: 'http://169.254.169.254/latest/meta-data/' });
    res.end();
  },
  '/to-file': (_req, res) => {
    res.writeHead(302, { location: 'file:///etc/passwd' });
    res.end();
  },
  '/missing': (_req, res) => {
    res.writeHead(404, { 'content-type': 'text/plain' });
    res.end('nope');
  },
  '/binary': (_req, res) => {
    res.writeHead(200, { 'content-type': 'application/octet-stream' });
    res.end(Buffer.from([1, 2, 3]));
  },
};

beforeAll(async () => {
  server = http.createServer((req, res) => {
    const path = new URL(req.url ?? '/', 'http://x').pathname;
    (routes[path] ?? routes['/missing'])?.(req, res);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  port = (server.address() as AddressInfo).port;
  base = `http://127.0.0.1:${port}`;
});
afterAll(async () => {
  server.closeAllConnections();
  await new Promise((resolve) => server.close(resolve));
});

const allowLocal = { allowedHosts: parseAllowList(['127.0.0.1']) };

describe('readLink', () => {
  it('reads an HTML page to text with its title', async () => {
    const page = await readLink(`${base}/page`, allowLocal);

    expect(page.title).toBe('Returns & 退货');
    expect(page.text).toBe('Policy\n\nSeven days.');
  });

  it("keeps only the elements matching FastGPT's webPageSelector", async () => {
    expect((await readLink(`${base}/article`, { ...allowLocal, selector: '#main' })).text).toBe('Only this.');
    expect((await readLink(`${base}/article`, allowLocal)).text).toBe('Menu\n\nOnly this.\n\nFooter');
  });

  it('reads plain text, a declared charset and a compressed page', async () => {
    expect((await readLink(`${base}/plain`, allowLocal)).text).toBe('just text');
    expect((await readLink(`${base}/gbk`, allowLocal)).text).toBe('知识');
    expect((await readLink(`${base}/gzip`, allowLocal)).text).toBe('compressed page');
  });

  it('follows up to 5 redirects and refuses a sixth', async () => {
    expect((await readLink(`${base}/hop?n=4`, allowLocal)).url).toBe(`${base}/page`);
    expect(await refusal(readLink(`${base}/hop?n=5`, allowLocal))).toMatch(/redirects more than 5 times/);
  });

  it('refuses a loopback address that the allow-list does not name', async () => {
    expect(await refusal(readLink(`${base}/page`, { allowedHosts: ANY_HOST }))).toMatch(/refused address/);
  });

  it('refuses a metadata address, whatever the allow-list says', async () => {
    const everything = { allowedHosts: parseAllowList(['0.0.0.0/0', '169.254.169.254']) };

    expect(await refusal(readLink('http://169.254.169.254/latest/meta-data/', everything))).toMatch(/refused/);
    expect(await refusal(readLink('http://[::ffff:169.254.169.254]/', everything))).toMatch(/refused/);
    expect(await refusal(readLink('http://[fd00:ec2::254]/', everything))).toMatch(/refused/);
  });

  it('refuses a host name that resolves to a metadata address', async () => {
    const resolve = async () => [{ address: '169.254.170.2', family: 4 }];

    expect(await refusal(readLink('http://metadata.example/', { ...allowLocal, resolve }))).toMatch(/refused address/);
  });

  it('refuses a redirect to a metadata address or to another scheme', async () => {
    expect(await refusal(readLink(`${base}/to-metadata`, allowLocal))).toMatch(/169\.254\.169\.254.*refused/);
    expect(await refusal(readLink(`${base}/to-file`, allowLocal))).toMatch(/scheme file is not allowed/);
  });

  it('connects to the address it checked, not to a second answer of the resolver', async () => {
    let calls = 0;
    const resolve = async () => {
      calls++;
      return calls === 1 ? [{ address: '127.0.0.1', family: 4 }] : [{ address: '169.254.169.254', family: 4 }];
    };

    const page = await readLink(`http://docs.internal:${port}/plain`, {
      allowedHosts: parseAllowList(['docs.internal']),
      resolve,
    });

    expect(page.text).toBe('just text');
    expect(calls).toBe(1);
  });

  it('cuts a page over the size cap, also when it arrives compressed', async () => {
    expect(await refusal(fetchLink(`${base}/big`, { ...allowLocal, maxBytes: 1024 * 1024 }))).toMatch(
      /larger than 1 MB/,
    );
    expect(await refusal(fetchLink(`${base}/bomb`, { ...allowLocal, maxBytes: 1024 * 1024 }))).toMatch(
      /larger than 1 MB/,
    );
  });

  it('cuts a slow page at the deadline', async () => {
    const started = Date.now();

    expect(await refusal(fetchLink(`${base}/slow`, { ...allowLocal, timeoutMs: 300 }))).toMatch(/within 0\.3 s/);
    expect(Date.now() - started).toBeLessThan(3000);
  });

  it('reports an error status and a content that is not a page', async () => {
    expect(await refusal(readLink(`${base}/missing`, allowLocal))).toBe('the page answered HTTP 404');
    expect(await refusal(readLink(`${base}/binary`, allowLocal))).toMatch(/serves application\/octet-stream/);
  });
});

describe('parseLink', () => {
  it('accepts http and https only, without credentials', () => {
    expect(parseLink(' https://example.com/a ').toString()).toBe('https://example.com/a');
    expect(() => parseLink('ftp://example.com/')).toThrow(/scheme ftp/);
    expect(() => parseLink('javascript:alert(1)')).toThrow(/scheme javascript/);
    expect(() => parseLink('https://user:pw@example.com/')).toThrow(/user name or password/);
    expect(() => parseLink('not a url')).toThrow(/not a valid URL/);
  });
});
