import { z } from 'zod';
import { field } from '../platform/request-schema';

const PACK_NAME = /^[A-Za-z0-9][A-Za-z0-9._-]{0,99}$/;
const PACK_NAME_TEXT =
  'must be 1-100 letters, digits, dots, dashes or underscores, starting with a letter or digit';

/** loadFingerprintPack (operators only): a pack under FINGERPRINT_PACKS_DIR, validated, then activated. */
export const LoadFingerprintPackRequest = z.object({
  path: field.text({
    required: true,
    maxLength: 1_000,
    description:
      'The pack, relative to FINGERPRINT_PACKS_DIR: a directory in the webappanalyzer layout (technologies/ or ' +
      'technologies.json, categories.json) or a technologies.json file',
  }),
  replace: field.flag({
    default: false,
    description: 'Load it as the new base pack (replacing the built-in one) instead of an overlay',
  }),
  name: field.text({
    maxLength: 100,
    pattern: PACK_NAME,
    patternText: PACK_NAME_TEXT,
    description: "The pack's name (default: the last part of path); an overlay of that name is replaced",
  }),
});

/** unloadFingerprintPack (operators only): the set without that pack becomes active. */
export const UnloadFingerprintPackRequest = z.object({
  name: field.text({
    required: true,
    maxLength: 100,
    pattern: PACK_NAME,
    patternText: PACK_NAME_TEXT,
    description:
      'The name of an operator overlay, or of the base an operator loaded (the default base returns)',
  }),
});

/** activateFingerprints (operators only): an earlier set becomes the active one again. */
export const ActivateFingerprintsRequest = z.object({
  version: field.text({
    required: true,
    maxLength: 64,
    pattern: /^fp-[0-9a-f]{12}$/,
    patternText: 'must be a set id such as fp-0123456789ab (fingerprintPacks lists them)',
    description: 'The id of a set used before (fingerprintPacks.history)',
  }),
});

export type LoadFingerprintPackInput = z.output<typeof LoadFingerprintPackRequest>;
