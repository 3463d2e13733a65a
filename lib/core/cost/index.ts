export * from './decimal';
export * from './capacity';
export * from './book';
export * from './monthly';
export * from './report';
