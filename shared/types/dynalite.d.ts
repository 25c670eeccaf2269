declare module 'dynalite' {
  import type { Server } from 'node:http';

  interface DynaliteOptions {
    /** Directory for LevelDB persistence; in memory when omitted. */
    path?: string;
    createTableMs?: number;
    deleteTableMs?: number;
    updateTableMs?: number;
    maxItemSizeKb?: number;
    ssl?: boolean;
  }

  function dynalite(options?: DynaliteOptions): Server;
  export default dynalite;
}
