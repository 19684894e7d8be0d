export * from './backoff';
export * from './job-errors';
export * from './job-handler-registry';
export * from './job-kinds';
export * from './job-queue';
export * from './job-runner';
