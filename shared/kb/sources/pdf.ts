import { SourceError } from '../contract.ts';

/*
 * PDF text with pdfjs-dist 4 (legacy build: Node 20; docs/knowledge-base-sources.md, "Limits"). pdfjs runs its parser
 * in-process here ("fake worker": its worker module is imported and handed over through `globalThis.pdfjsWorker`, so
 * the function bundle contains it and nothing is loaded from disk at run time). A hostile file is held by limits
 * rather than by isolation: at most MAX_PAGES pages (the document's own page count is read first, so a file claiming
 * a million pages costs nothing), a deadline for the whole read checked before every page and raced against every
 * pdfjs call, a cap on the text kept, no eval, no font loading, no images.
 */

export const PDF_LIMITS = Object.freeze({ maxPages: 1000, timeoutMs: 20_000, maxChars: 3_000_000 });

type PdfJs = typeof import('pdfjs-dist/legacy/build/pdf.mjs');
let pdfjs: Promise<PdfJs> | undefined;

async function loadPdfJs(): Promise<PdfJs> {
  pdfjs ??= (async () => {
    const worker = await import('pdfjs-dist/legacy/build/pdf.worker.mjs');
    (globalThis as { pdfjsWorker?: unknown }).pdfjsWorker = worker;
    return import('pdfjs-dist/legacy/build/pdf.mjs');
  })();
  return pdfjs;
}

interface TextItem {
  readonly str?: string;
  readonly hasEOL?: boolean;
}

/** The text of a PDF, pages separated by a blank line; throws SourceError on a broken or oversized file. */
export async function pdfText(
  bytes: Uint8Array,
  limits: { maxPages?: number; timeoutMs?: number; maxChars?: number } = {},
): Promise<string> {
  const maxPages = limits.maxPages ?? PDF_LIMITS.maxPages;
  const timeoutMs = limits.timeoutMs ?? PDF_LIMITS.timeoutMs;
  const maxChars = limits.maxChars ?? PDF_LIMITS.maxChars;
  const { getDocument, VerbosityLevel } = await loadPdfJs();
  const deadline = Date.now() + timeoutMs;
  let timer: NodeJS.Timeout | undefined;
  const expired = new Promise<never>((_, reject) => {
    timer = setTimeout(
      () => reject(new SourceError(`the PDF took longer than ${timeoutMs / 1000} s to read`)),
      timeoutMs,
    );
  });
  expired.catch(() => undefined);
  const task = getDocument({
    // pdfjs may transfer (detach) the buffer it is given: hand it a copy.
    data: new Uint8Array(bytes),
    isEvalSupported: false,
    disableFontFace: true,
    useSystemFonts: false,
    useWorkerFetch: false,
    stopAtErrors: false,
    maxImageSize: 0,
    verbosity: VerbosityLevel.ERRORS,
  });
  try {
    const document = await Promise.race([task.promise, expired]);
    if (document.numPages > maxPages) {
      throw new SourceError(`the PDF has ${document.numPages} pages; at most ${maxPages} are read`);
    }
    const pages: string[] = [];
    let chars = 0;
    for (let number = 1; number <= document.numPages; number++) {
      if (Date.now() > deadline) throw new SourceError(`the PDF took longer than ${timeoutMs / 1000} s to read`);
      const page = await Promise.race([document.getPage(number), expired]);
      const content = await Promise.race([page.getTextContent(), expired]);
      const text = (content.items as TextItem[])
        .map((item) => (item.str ?? '') + (item.hasEOL ? '\n' : ''))
        .join('')
        .trim();
      page.cleanup();
      chars += text.length;
      if (chars > maxChars)
        throw new SourceError(`the PDF holds more than ${maxChars.toLocaleString('en')} characters of text`);
      if (text) pages.push(text);
    }
    return pages.join('\n\n');
  } catch (error) {
    if (error instanceof SourceError) throw error;
    const name = (error as Error)?.name;
    if (name === 'PasswordException') throw new SourceError('the PDF is protected by a password');
    throw new SourceError('the file is not a readable PDF');
  } finally {
    clearTimeout(timer);
    await task.destroy().catch(() => undefined);
  }
}
