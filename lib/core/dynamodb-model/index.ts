/** The DynamoDB capacity model: docs/dynamodb-model.md. */
export * from './rules';
export * from './solve';
export * from './model';
export * from './simulate';
export * from './ycsb-keys';
export * from './plan-cell';
export * from './emulator';
export * from './client-sim';
export * from './timeline';
export * from './placement-spread';
