/**
 * The import rules `npm run lint` enforces (dependency-cruiser, https://github.com/sverweij/dependency-cruiser):
 * no import cycles, and the layers of the design — pure core (lib/core), adapters (lib/aws, lib/local),
 * build tooling (lib/build: Maven, the deploy build, assets), constructs (lib/constructs), stacks, handlers (lambdas). Type-only imports,
 * re-exports, require() and dynamic import() all count.
 */
const SDK_OR_CDK = '^node_modules/(@aws-sdk/|aws-cdk-lib/|constructs/|cdk-nag/)';
const DISK_OR_NETWORK = '^(node:)?(fs|fs/promises|os|child_process|net|http|https|dgram)$';

module.exports = {
  forbidden: [
    {
      name: 'no-circular',
      comment: 'An import cycle: move the shared type or constant into a module both sides import.',
      severity: 'error',
      from: {},
      to: { circular: true },
    },
    {
      name: 'core-no-sdk-or-cdk',
      comment:
        'lib/core is the pure domain: no AWS SDK, CDK or cdk-nag (adapters live in lib/aws, constructs in lib/constructs).',
      severity: 'error',
      from: { path: '^lib/core/' },
      to: { path: SDK_OR_CDK },
    },
    {
      name: 'core-no-disk',
      comment:
        "lib/core does not touch the disk, processes or sockets: that is the adapters' job (lib/local, lib/aws).",
      severity: 'error',
      from: { path: '^lib/core/' },
      to: { dependencyTypes: ['core'], path: DISK_OR_NETWORK },
    },
    {
      name: 'core-imports-only-core',
      comment:
        'lib/core imports nothing of this repository outside lib/core (no adapters, constructs, CLI, build tooling).',
      severity: 'error',
      from: { path: '^lib/core/' },
      to: { dependencyTypes: ['local'], pathNot: '^lib/core/' },
    },
    {
      name: 'aws-adapters-not-local-or-outer',
      comment:
        'lib/aws adapts the AWS SDK to the ports of lib/core: it never imports the local mode, the CLI, constructs, build tooling, stacks or handlers.',
      severity: 'error',
      from: { path: '^lib/aws/' },
      to: { path: '^(lib/(local|cli|constructs|build)/|stacks/|lambdas/|bin/)' },
    },
    {
      name: 'constructs-not-local-or-adapters',
      comment:
        'Constructs (lib/constructs) describe resources: they never import the local mode, the SDK adapters, the CLI, stacks or handlers; what they need built (assets) comes from lib/build.',
      severity: 'error',
      from: { path: '^lib/constructs/' },
      to: { path: '^(lib/(local|aws|cli)/|stacks/|lambdas/|bin/)' },
    },
    {
      name: 'stacks-compose-constructs',
      comment: 'Stacks compose constructs: no local mode, SDK adapters, CLI or handlers.',
      severity: 'error',
      from: { path: '^stacks/' },
      to: { path: '^(lib/(local|aws|cli)/|lambdas/|bin/)' },
    },
    {
      name: 'build-tooling-not-runtime',
      comment:
        'lib/build (Maven, the deploy build, the Cassandra asset) is used by synth and the local mode: it imports neither of them, nor the SDK adapters, the CLI or constructs.',
      severity: 'error',
      from: { path: '^lib/build/' },
      to: { path: '^(lib/(local|aws|cli|constructs)/|stacks/|lambdas/|bin/)' },
    },
    {
      name: 'handlers-thin',
      comment:
        'Lambda handlers call steps in lib/core over the adapters of lib/aws: no local mode, constructs, CLI, build tooling or stacks.',
      severity: 'error',
      from: { path: '^lambdas/' },
      to: { path: '^(lib/(local|constructs|cli|build)/|stacks/|bin/)' },
    },
    {
      name: 'no-test-code-in-product',
      comment: 'Nothing outside test/ imports test code.',
      severity: 'error',
      from: { pathNot: '^test/' },
      to: { path: '^test/' },
    },
    {
      name: 'no-unresolvable',
      comment: 'An import that resolves to nothing (a typo, or a package missing from package.json).',
      severity: 'error',
      from: {},
      to: { couldNotResolve: true },
    },
  ],
  options: {
    doNotFollow: { path: '^node_modules/' },
    // build outputs only: node_modules stays in the graph (the SDK/CDK rules match its paths), unfollowed
    exclude: { path: '(^|/)(target|cdk\\.out|\\.tmp)/' },
    tsPreCompilationDeps: true,
    tsConfig: { fileName: 'tsconfig.json' },
    // resolve packages through their `exports` (as Node and TypeScript do), both module flavours
    enhancedResolveOptions: {
      exportsFields: ['exports'],
      conditionNames: ['require', 'import', 'node', 'default', 'types'],
    },
  },
};
