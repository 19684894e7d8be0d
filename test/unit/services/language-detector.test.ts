import { spawnSync } from 'node:child_process';
import { mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

import { languageModelPath, loadLanguageDetector } from '../../../src/services/analysis/language-detector';

const ROOT = join(__dirname, '..', '..', '..');

/** The visible text of every corpus and fixture page (tags, scripts and styles dropped), in pieces. */
function pageTexts(): string[] {
  const texts: string[] = [];
  const walk = (dir: string): void => {
    for (const entry of readdirSync(dir, { withFileTypes: true })) {
      const path = join(dir, entry.name);
      if (entry.isDirectory()) walk(path);
      else if (entry.name.endsWith('.html')) {
        const text = readFileSync(path, 'utf8')
          .replace(/<(script|style)[\s\S]*?<\/\1>/gi, ' ')
          .replace(/<[^>]*>/g, ' ')
          .replace(/\s+/g, ' ');
        for (let at = 0; at < text.length && at < 6000; at += 700) texts.push(text.slice(at, at + 1200));
      }
    }
  };
  walk(join(ROOT, 'test', 'corpus'));
  walk(join(ROOT, 'test', 'fixtures'));
  return texts;
}

const EDGE_TEXTS = [
  '',
  'ok',
  '   ',
  '12345 67890',
  'a b c d e f g',
  "don't won't l'homme dell’arte",
  'Ünïcödé façade Straße smörgåsbord',
  'Привет, как дела? Мы делаем роботов для фабрик.',
  'これは日本語の文章です。ロボットを作っています。',
  '我们为小型工厂制造协作机器人。',
  '우리는 작은 공장을 위한 협동 로봇을 만듭니다.',
  'नमस्ते, हम छोटे कारखानों के लिए रोबोट बनाते हैं।',
  'مرحبا، نحن نصنع الروبوتات للمصانع الصغيرة',
  'emoji 😀 text 🚀 with 𝔘𝔫𝔦𝔠𝔬𝔡𝔢 letters outside the basic plane',
  `${'x'.repeat(90)} ${'ab'.repeat(50)} a long word`,
  'Visit https://example.com or mail info@example.com 555-1234 ABC123',
  'ελληνικά κείμενα για ρομπότ',
  'ქართული ტექსტი',
];

describe('the text-language detector (eld, compact)', () => {
  it('names the language of a real text and stays undecided on too little', async () => {
    const detect = await loadLanguageDetector();
    expect(
      detect(
        'Wir entwickeln kollaborative Roboter für kleine und mittelständische Fabriken. Unsere Schweißroboter sind in einem Tag eingerichtet.',
      ),
    ).toBe('de');
    expect(
      detect(
        'Nous construisons des robots collaboratifs pour les petites usines, installés en une journée par vos équipes.',
      ),
    ).toBe('fr');
    expect(detect('ok')).toBeUndefined();
    expect(await loadLanguageDetector()).toBe(detect);
  });

  it("answers as eld's own module does on every corpus page and the edge cases", async () => {
    const detect = await loadLanguageDetector();
    // eld's own module (an ES module: import(), which Jest maps and compiles; see jest.config.js).
    const { eld } = await import('eld/small');
    const texts = [...EDGE_TEXTS, ...pageTexts()];
    expect(texts.length).toBeGreaterThan(300);
    const differing = texts.filter((text) => {
      const result = eld.detect(text);
      const expected = result.language && result.isReliable() ? result.language : undefined;
      return detect(text) !== expected;
    });
    expect(differing).toEqual([]);
    const named = new Set(texts.map((text) => detect(text)).filter(Boolean));
    expect(named.size).toBeGreaterThan(5);
  });

  it("is the installed eld's database: the generator writes the committed file byte for byte", () => {
    const dir = mkdtempSync(join(tmpdir(), 'eld-compact-'));
    try {
      const target = join(dir, 'eld-small.bin.gz');
      const run = spawnSync(process.execPath, [join(ROOT, 'scripts', 'compact-language-data.mjs'), target], {
        encoding: 'utf8',
      });
      expect(run.stderr).toBe('');
      expect(run.status).toBe(0);
      expect(readFileSync(target).equals(readFileSync(languageModelPath()))).toBe(true);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
