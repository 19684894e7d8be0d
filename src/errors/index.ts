export * from './app-error';
export * from './http-status';
