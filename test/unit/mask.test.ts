import { describe, expect, it } from 'vitest';
import { maskKey } from '#shared/mask';

describe('maskKey', () => {
  it('never shows a raw line break or control character: they are shown as their pictures', () => {
    const serviceAccount = '{\n  "type": "service_account",\n  "private_key": "-----BEGIN"\n}\n';

    const mask = maskKey(serviceAccount);

    expect(mask).toBe('{\u240a \u2026"\u240a}\u240a');
    expect(mask).not.toMatch(/\p{Cc}|[\u2028\u2029]/u);
  });

  it('shows DEL, C1 controls and line separators as something visible too', () => {
    expect(maskKey(`\u007f\u0085\u2028${'x'.repeat(30)}\t\r\u001b\u2029`)).toBe(
      '\u2421\ufffd\ufffd\u2026\u2409\u240d\u241b\ufffd',
    );
  });

  it('leaves an ordinary key as it was', () => {
    expect(maskKey('sk-abcdefghijklmnopqrstuvwxyz')).toBe('sk-\u2026wxyz');
  });
});
