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
export { attributesOf, replayMarkup, type MarkupHandler } from './markup-replay';
export { parsedFor, parsePageHtml, type ParsedHtml } from './parsed-html';
