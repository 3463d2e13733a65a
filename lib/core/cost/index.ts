export * from './decimal';
export * from './capacity';
export * from './book';
export * from './monthly';
export * from './report';
export * from './workload-units';
export * from './capacity-check';
export * from './estimate';
