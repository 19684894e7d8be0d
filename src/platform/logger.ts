import pino from 'pino';

/**
 * Structured logs. Redaction is the last line of defence: code must not log secrets in the first
 * place, but any field that could carry a key, secret or signature is censored here too.
 */
export const logger = pino({
  level: process.env.LOG_LEVEL ?? (process.env.NODE_ENV === 'test' ? 'silent' : 'info'),
  redact: {
    paths: [
      'apiKey',
      'secret',
      'signature',
      'password',
      '*.apiKey',
      '*.secret',
      '*.password',
      'req.headers["x-api-key"]',
      'headers["x-api-key"]',
      'connectionParams',
    ],
    censor: '[redacted]',
  },
});

export type Logger = typeof logger;
