export {
  decodeEntities,
  getAttribute,
  MAX_DEPTH,
  MAX_ELEMENTS,
  parseHtml,
  TEXT_LIMIT,
  textContent,
  TOKEN,
  type LightDocument,
  type LightElement,
  type MarkupTokens,
  type MetaTag,
} from './light-document';
export { attributeOf, attributesOf, decodedTextPieces } from './markup-entities';
export { IMPLIED, MarkupWalk } from './markup-walk';
export { parsedFor, parsePageHtml, type ParsedHtml } from './parsed-html';
