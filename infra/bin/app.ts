import { buildApp } from '../app.ts';

// The CLI sets CDK_OUTDIR, so the App synthesizes itself when the process exits.
buildApp();
