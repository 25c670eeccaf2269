import { describe, expect, it } from 'vitest';
import { docxText } from '#shared/kb/sources/docx';
import { csvToMarkdown, fileKind, fileText, MAX_UPLOAD_BYTES, parseCsv } from '#shared/kb/sources/files';
import { pdfText } from '#shared/kb/sources/pdf';
import { makeDeepPdf, makeDocx, makePdf, makePdfClaimingPages, refusal } from '#test/support/source-files';

const utf8 = (text: string) => new Uint8Array(Buffer.from(text, 'utf8'));

describe('fileText: each supported type from a real file', () => {
  it('reads .txt and .md in UTF-8, UTF-8 with BOM, UTF-16 and GB 18030', async () => {
    expect(await fileText({ name: 'a.txt', bytes: utf8('知识库 knowledge') })).toBe('知识库 knowledge');
    expect(await fileText({ name: 'a.md', bytes: utf8('\uFEFF# Title\n\nBody') })).toBe('# Title\n\nBody');
    const utf16 = new Uint8Array([0xff, 0xfe, ...Buffer.from('退货', 'utf16le')]);
    expect(await fileText({ name: 'a.txt', bytes: utf16 })).toBe('退货');
    // "知识库" in GB 18030 / GBK (not valid UTF-8).
    const gbk = new Uint8Array([0xd6, 0xaa, 0xca, 0xb6, 0xbf, 0xe2]);
    expect(await fileText({ name: 'a.txt', bytes: gbk })).toBe('知识库');
  });

  it('reads .html to text, scripts left out', async () => {
    const html =
      '<html><head><title>T</title><script>secret()</script></head><body><h2>Refunds</h2><p>Within <b>5</b> days.</p></body></html>';

    expect(await fileText({ name: 'page.HTML', bytes: utf8(html), contentType: 'text/html' })).toBe(
      'Refunds\n\nWithin 5 days.',
    );
  });

  it('reads .csv as a Markdown table with its header', async () => {
    const csv = 'name,price\r\n"Widget, large",10\r\n"Say ""hi""",5\n';

    expect(await fileText({ name: 'prices.csv', bytes: utf8(csv) })).toBe(
      '| name | price |\n| --- | --- |\n| Widget, large | 10 |\n| Say "hi" | 5 |',
    );
    expect(parseCsv('a,"multi\nline"\n')).toEqual([['a', 'multi\nline']]);
    expect(csvToMarkdown('h\n"x|y"')).toBe('| h |\n| --- |\n| x\\|y |');
  });

  it('reads a .pdf page by page', async () => {
    const pdf = makePdf([['Refund policy.', 'Seven days (calendar).'], ['Second page.']]);

    expect(await fileText({ name: 'policy.pdf', bytes: pdf, contentType: 'application/pdf' })).toBe(
      'Refund policy.\nSeven days (calendar).\n\nSecond page.',
    );
  });

  it('reads a .docx with its headings and paragraphs', async () => {
    const docx = await makeDocx([{ heading: '退货政策' }, 'Seven days.', '配件齐全。']);

    expect(await fileText({ name: 'policy.docx', bytes: docx })).toBe('退货政策\n\nSeven days.\n\n配件齐全。');
  });
});

describe('fileText: refusals', () => {
  it('refuses a type it does not read', async () => {
    expect(await refusal(fileText({ name: 'sheet.xlsx', bytes: utf8('x') }))).toMatch(/\.xlsx are not supported/);
    expect(() => fileKind('README')).toThrow(/without extension/);
  });

  it('refuses a file larger than 10 MB', async () => {
    const big = new Uint8Array(MAX_UPLOAD_BYTES + 1).fill(0x61);

    expect(await refusal(fileText({ name: 'big.txt', bytes: big }))).toBe('the file is larger than 10 MB');
  });

  it('refuses a file whose content does not match its name', async () => {
    const pdf = makePdf([['x']]);
    const docx = await makeDocx(['x']);

    expect(await refusal(fileText({ name: 'notes.txt', bytes: pdf }))).toMatch(/does not match its \.txt name/);
    expect(await refusal(fileText({ name: 'report.pdf', bytes: utf8('plain text') }))).toMatch(/\.pdf name/);
    expect(await refusal(fileText({ name: 'report.docx', bytes: pdf }))).toMatch(/\.docx name/);
    expect(await refusal(fileText({ name: 'page.html', bytes: utf8('no markup at all') }))).toMatch(/\.html name/);
    expect(await refusal(fileText({ name: 'a.md', bytes: docx }))).toMatch(/\.md name/);
    expect(await refusal(fileText({ name: 'a.txt', bytes: new Uint8Array([0x41, 0, 0x42, 0]) }))).toMatch(/\.txt/);
  });

  it('refuses a declared content type that does not fit the name', async () => {
    expect(await refusal(fileText({ name: 'a.txt', bytes: utf8('x'), contentType: 'application/pdf' }))).toMatch(
      /sent as application\/pdf/,
    );
  });

  it('refuses a file with no text', async () => {
    expect(await refusal(fileText({ name: 'empty.md', bytes: utf8('  \n') }))).toBe('the file holds no text');
  });
});

describe('hostile documents stop at the limits', () => {
  it('refuses a PDF with more pages than the cap before reading any', async () => {
    const pages = Array.from({ length: 1001 }, (_, i) => [`page ${i}`]);

    expect(await refusal(pdfText(makePdf(pages)))).toBe('the PDF has 1001 pages; at most 1000 are read');
  });

  it('stops a PDF read at its deadline', async () => {
    const pages = Array.from({ length: 400 }, (_, i) => [`page ${i}`]);

    expect(await refusal(pdfText(makePdf(pages), { timeoutMs: 1 }))).toMatch(/took longer than/);
  });

  it('stops a PDF whose text exceeds the cap', async () => {
    const pages = Array.from({ length: 20 }, () => ['x'.repeat(80)]);

    expect(await refusal(pdfText(makePdf(pages), { maxChars: 500 }))).toMatch(/more than 500 characters/);
  });

  it('survives a lying page count and a deeply nested page tree', async () => {
    expect(await pdfText(makePdfClaimingPages(10_000_000))).toBe('');
    const started = Date.now();
    await pdfText(makeDeepPdf(5000)).catch(() => undefined);
    expect(Date.now() - started).toBeLessThan(10_000);
  });

  it('refuses a broken PDF', async () => {
    expect(await refusal(pdfText(utf8('%PDF-1.7 then nothing')))).toBe('the file is not a readable PDF');
  });

  it('refuses a DOCX that unpacks beyond the cap (a zip bomb) before mammoth reads it', async () => {
    const bomb = await makeDocx(['x'], { 'word/media/filler.bin': new Uint8Array(8 * 1024 * 1024) });

    expect(bomb.byteLength).toBeLessThan(64 * 1024);
    expect(await refusal(docxText(bomb, { maxUnpackedBytes: 4 * 1024 * 1024 }))).toBe(
      'the DOCX unpacks to more than 4 MB',
    );
  });

  it('refuses a damaged DOCX', async () => {
    const docx = await makeDocx(['x']);
    const damaged = docx.slice(0, docx.length - 30);

    expect(await refusal(docxText(damaged))).toBe('the file is not a readable DOCX');
  });
});
