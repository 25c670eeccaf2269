/** pdfjs-dist's worker module ships no types; only its presence matters (shared/kb/sources/pdf.ts). */
declare module 'pdfjs-dist/legacy/build/pdf.worker.mjs' {
  export const WorkerMessageHandler: unknown;
}
