import { loadLanguageDetector } from '../../../src/services/analysis/language-detector';

describe('the text-language detector (eld)', () => {
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
});
