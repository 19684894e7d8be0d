/**
 * The browser scripts of /docs and the GraphQL explorer. They are served as files of their own (not
 * inline), so the pages' Content-Security-Policy can keep `script-src 'self'` without hashes.
 * Kept as strings here so the compiled service (dist/) carries them without an asset-copy step.
 */

/** Swagger UI over the service's own OpenAPI document. */
export const DOCS_INIT_JS = `// The API reference at /docs: Swagger UI over the service's own OpenAPI document. "Authorize"
// takes the caller's key (x-api-key); "Try it out" sends requests to this same service.
window.ui = SwaggerUIBundle({
  url: '/openapi/v2-public.yaml',
  dom_id: '#swagger-ui',
  deepLinking: true,
  tryItOutEnabled: true,
  // No call to the public validator badge: nothing may leave the machine.
  validatorUrl: null,
  persistAuthorization: false,
  displayRequestDuration: true,
});
`;

/** GraphiQL over POST /graphql and graphql-ws on the same path. */
export const EXPLORER_INIT_JS = `// The GraphQL explorer at GET /graphql: GraphiQL with the key in the header editor. Queries and
// mutations are POSTed to /graphql with the editor's headers; subscriptions go over graphql-ws on
// the same path, with the editor's x-api-key as the connection parameter (browsers cannot set
// headers on a WebSocket). One WebSocket client per key, so changing the key reconnects.
(function () {
  'use strict';
  var httpUrl = new URL('/graphql', window.location.href).href;
  var wsUrl = httpUrl.replace(/^http/, 'ws');
  var clients = {};
  // GRAPHQL_INTROSPECTION, written on the page by the service: what the schema docs need.
  var introspection = document.body.getAttribute('data-introspection') || 'public';

  function apiKeyOf(headers) {
    for (var name in headers || {}) {
      if (name.toLowerCase() === 'x-api-key') return String(headers[name]);
    }
    return '';
  }

  function wsClientFor(key) {
    if (!clients[key]) {
      clients[key] = window.graphqlWs.createClient({
        url: wsUrl,
        connectionParams: { 'x-api-key': key },
        lazy: true,
        retryAttempts: 0,
      });
    }
    return clients[key];
  }

  // The operation GraphiQL is about to run is a subscription when its definition says so.
  function isSubscription(query, operationName) {
    var text = String(query || '')
      .replace(/#[^\\n\\r]*/g, '')
      .replace(/"""[\\s\\S]*?"""|"(?:[^"\\\\\\n]|\\\\.)*"/g, '""');
    if (operationName) {
      return new RegExp('\\\\bsubscription\\\\s+' + operationName + '\\\\b').test(text);
    }
    return /^\\s*subscription\\b/.test(text);
  }

  function fetcher(params, options) {
    var headers = (options && options.headers) || {};
    // The schema docs: say what is needed instead of asking a question the service will refuse.
    if (params.operationName === 'IntrospectionQuery' && introspection !== 'public') {
      if (introspection === 'off') {
        return Promise.resolve({ errors: [{ message: 'Introspection is turned off on this service: no schema docs.' }] });
      }
      if (!apiKeyOf(headers)) {
        return Promise.resolve({
          errors: [
            {
              message:
                'The schema docs need your API key: put it in the Headers editor below ' +
                '({"x-api-key": "..."}), then press "Re-fetch GraphQL schema" (the circling arrows).',
            },
          ],
        });
      }
    }
    if (isSubscription(params.query, params.operationName)) {
      return wsClientFor(apiKeyOf(headers)).iterate({
        query: params.query,
        variables: params.variables,
        operationName: params.operationName,
      });
    }
    var sent = { 'content-type': 'application/json', accept: 'application/json' };
    for (var name in headers) sent[name] = headers[name];
    return fetch(httpUrl, { method: 'POST', headers: sent, body: JSON.stringify(params) }).then(
      function (response) {
        return response.json();
      },
    );
  }

  var root = window.ReactDOM.createRoot(document.getElementById('graphiql'));
  root.render(
    window.React.createElement(window.GraphiQL, {
      fetcher: fetcher,
      defaultHeaders: JSON.stringify({ 'x-api-key': '' }, null, 2),
      defaultEditorToolsVisibility: 'headers',
      // The key stays in this tab only, never in the browser's storage.
      shouldPersistHeaders: false,
      defaultQuery: '# Put your key in the headers below, then run:\\n{\\n  account {\\n    plan\\n    credits\\n  }\\n}\\n',
    }),
  );
})();
`;
