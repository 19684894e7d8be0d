import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { ValidationError } from '../../../src/errors';
import { MAX_EMAIL_INPUT_LENGTH, requireEmailInput } from '../../../src/verify';

describe('requireEmailInput', () => {
  it('refuses a missing, empty or oversized input naming email; anything else is an input', () => {
    for (const input of [undefined, null, 42, '', 'a'.repeat(MAX_EMAIL_INPUT_LENGTH + 1)]) {
      expect(() => requireEmailInput(input)).toThrow(ValidationError);
      expect(() => requireEmailInput(input)).toThrow(expect.objectContaining({ parameter: 'email' }));
    }
    const longest = `${'a'.repeat(64)}@${'b'.repeat(MAX_EMAIL_INPUT_LENGTH - 65)}`;
    expect(requireEmailInput(longest)).toBe(longest);
    expect(requireEmailInput('not an address')).toBe('not an address');
  });

  it('is the only place in src/ that compares an input with the 320-character limit', () => {
    const root = path.resolve(__dirname, '../../../src');
    const files = (readdirSync(root, { recursive: true }) as string[]).filter((f) => f.endsWith('.ts'));
    const comparing = files.filter((file) =>
      /length\s*>=?\s*(MAX_EMAIL_INPUT_LENGTH|320)\b|maxLength:\s*320\b/.test(
        readFileSync(path.join(root, file), 'utf8'),
      ),
    );
    expect(comparing).toEqual([path.join('verify', 'email-input.ts')]);
  });
});
