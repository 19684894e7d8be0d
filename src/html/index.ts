import * as lightDocument from './light-document';
import * as lightEntities from './light-entities';
import * as markupEntities from './markup-entities';
import * as markupWalk from './markup-walk';
import * as parsedHtml from './parsed-html';

/*
 * The functions, constants and the MarkupWalk class are copied into this module's own exports
 * rather than re-exported: a re-export compiles to a getter, called on every use by the readers that
 * import from here (selector matching, the page document, the fetcher's facts), often in their hot
 * loops; and a getter defined over an export tsc has declared turns the whole exports object into a
 * dictionary, where every look-up of any export is a hash look-up (module-exports.test.ts).
 */
export const decodeEntities = lightEntities.decodeEntities;
export const getAttribute = lightDocument.getAttribute;
export const MAX_DEPTH = lightDocument.MAX_DEPTH;
export const MAX_ELEMENTS = lightDocument.MAX_ELEMENTS;
export const parseHtml = lightDocument.parseHtml;
export const TEXT_LIMIT = lightDocument.TEXT_LIMIT;
export const textContent = lightDocument.textContent;
export const TOKEN = lightDocument.TOKEN;
export const TOKEN_FLAG = lightDocument.TOKEN_FLAG;
export const tokenKind = lightDocument.tokenKind;
export const tokenSlot = lightDocument.tokenSlot;
export type { LightDocument, LightElement, MarkupTokens, MetaTag } from './light-document';
export const attributeOf = markupEntities.attributeOf;
export const attributesOf = markupEntities.attributesOf;
export const decodedTextPieces = markupEntities.decodedTextPieces;
export const IMPLIED = markupWalk.IMPLIED;
export const MarkupWalk = markupWalk.MarkupWalk;
export type MarkupWalk = markupWalk.MarkupWalk;
export const parsedFor = parsedHtml.parsedFor;
export const parsePageHtml = parsedHtml.parsePageHtml;
export type { ParsedHtml } from './parsed-html';
