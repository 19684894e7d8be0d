/** The light document lives in src/html (one parse per page, shared with the fetcher and enrichment). */
export {
  decodeEntities,
  getAttribute,
  MAX_DEPTH,
  MAX_ELEMENTS,
  parseHtml,
  TEXT_LIMIT,
  textContent,
  type LightDocument,
  type LightElement,
  type MetaTag,
} from '../html';
