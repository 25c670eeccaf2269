/**
 * The import graph's rules (checked by test/docs/import-graph.test.ts in `npm test`): no module imports itself
 * through others. TypeScript is read with swc (`@swc/core`): typescript@7 has no JavaScript API for a parser to use.
 */
module.exports = {
  forbidden: [
    {
      name: 'no-circular',
      comment: 'A module that imports itself through others: split out what both need (docs/development.md).',
      severity: 'error',
      from: {},
      to: { circular: true },
    },
  ],
  options: {
    doNotFollow: { path: 'node_modules' },
    // Type-only imports count: a circle of types is a circle of modules a reader must hold in mind at once.
    tsPreCompilationDeps: true,
    parser: 'swc',
    tsConfig: { fileName: 'tsconfig.json' },
    enhancedResolveOptions: { exportsFields: ['exports'], conditionNames: ['import', 'require', 'node', 'default'] },
  },
};
