import { jsonSchemaOf } from '../../../src/rest-facade/json-schema';
import {
  AnalyzeRequest,
  AnalyzeV1AnswerShape,
  CrawlV1CallbackShape,
  LookupV1CallbackShape,
  toAnalyzeV1Answer,
  toCrawlV1Callback,
  toLookupV1Callback,
  type V1Outcome,
} from '../../../src/services/analysis/analysis.contract';
import { parseRequest } from '../../../src/services/platform/request-schema';

const wordpress = {
  name: 'WordPress',
  confidence: 100,
  version: '6.4.2',
  icon: 'WordPress.svg',
  website: 'https://wordpress.org',
  categories: [{ id: 1, name: 'CMS' }],
};
const found: V1Outcome = { ok: true, technologies: [wordpress] };
const failed: V1Outcome = { ok: false, errors: [{ type: 'NO_RESPONSE', message: 'connection refused' }] };

describe('published v1 shapes: one declaration for the answer, the callbacks and the OpenAPI schema', () => {
  it.each([found, failed])(
    'the Analyze v1 answer and both callbacks are built by one presenter (%#)',
    (outcome) => {
      const answer = toAnalyzeV1Answer(outcome);
      expect(AnalyzeV1AnswerShape.strict().parse(answer)).toEqual(answer);
      expect(toCrawlV1Callback('http://a.test/', outcome)).toEqual({ url: 'http://a.test/', ...answer });
      const { status: _status, ...withoutStatus } = answer;
      expect(toLookupV1Callback('http://a.test/', outcome)).toEqual({
        url: 'http://a.test/',
        ...withoutStatus,
      });
      expect(CrawlV1CallbackShape.strict().safeParse(toCrawlV1Callback('u', outcome)).success).toBe(true);
      expect(LookupV1CallbackShape.strict().safeParse(toLookupV1Callback('u', outcome)).success).toBe(true);
    },
  );

  it('writes the Application object as the spec does: text confidence, single-entry categories', () => {
    expect(toAnalyzeV1Answer(found).applications).toEqual([
      { ...wordpress, confidence: '100', categories: [{ 1: 'CMS' }] },
    ]);
    expect(toAnalyzeV1Answer(failed)).toEqual({
      status: 'error',
      applications: [],
      errors: [{ type: 'NO_RESPONSE', message: 'connection refused' }],
    });
  });

  it('derives the OpenAPI schema from the zod declaration (closed objects, enums, required fields)', () => {
    const schema = jsonSchemaOf(AnalyzeV1AnswerShape);
    expect(schema).not.toHaveProperty('$schema');
    expect(schema).toMatchObject({
      type: 'object',
      required: ['status', 'applications'],
      additionalProperties: false,
      properties: { status: { enum: ['success', 'error'] } },
    });
    expect(schema.properties!.errors.items!.properties!.type.enum).toEqual([
      'RESPONSE_NOT_OK',
      'NO_RESPONSE',
      'NO_HTML_DOCUMENT',
    ]);
    expect(schema.properties!.applications.items).toEqual(
      jsonSchemaOf(AnalyzeV1AnswerShape.shape.applications.element),
    );
  });

  it('parses a target URL once, by the request schema the resolver applies (a bare host gets http://)', () => {
    expect(parseRequest(AnalyzeRequest, { url: 'example.com' })).toEqual({ url: 'http://example.com/' });
    expect(() => parseRequest(AnalyzeRequest, { url: 'ftp://example.com' })).toThrow(
      'url must use http or https',
    );
  });
});
