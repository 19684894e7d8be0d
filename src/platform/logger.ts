import pino from 'pino';

/**
 * Structured logs. Redaction is the last line of defence: code must not log secrets in the first
 * place, but any field that could carry a key, secret or signature is censored here too.
 */
/** pino's levels: LOG_LEVEL's allowed values (the configuration schema names the same). */
export const LOG_LEVELS = ['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'] as const;

/**
 * The level until the settings are read: LOG_LEVEL when it is a level. Any other value is left to
 * the configuration check, which names it and exits with code 2 (pino itself would throw here, at
 * import, with a stack trace).
 */
function initialLevel(): string {
  const wanted = process.env.LOG_LEVEL;
  if (wanted !== undefined && (LOG_LEVELS as readonly string[]).includes(wanted)) return wanted;
  return process.env.NODE_ENV === 'test' ? 'silent' : 'info';
}

export const logger = pino({
  level: initialLevel(),
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
