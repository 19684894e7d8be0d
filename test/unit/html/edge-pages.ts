/**
 * Hand-made pages at the edges where readers differ (tokenizer corners, implied ends, raw text,
 * entities, limits), added to the corpus pages of the single-parse regression net.
 */
export const EDGE_PAGES: { name: string; url: string; html: string; headers?: Record<string, string[]> }[] = [
  ['unclosed-tag-at-end', '<html><body><p>Hi <a href="/x">x</a><a href="/never'],
  ['unclosed-attribute-at-end', '<div class="a"><img src="/i.png" alt="broken'],
  [
    'noscript-markup',
    '<head><noscript><img src="https://px.example/p.gif"><a href="/n">no js</a></noscript></head><body><noscript><p>Enable JS</p></noscript><p>t</p></body>',
  ],
  [
    'iframe-noembed-noframes',
    '<body><iframe src="/f"><a href="/inside">in</a></iframe><noembed><a href="/ne">e</a></noembed><noframes><a href="/nf">f</a></noframes></body>',
  ],
  ['plaintext', '<body><p>a</p><plaintext><a href="/p">x</a> &amp; rest'],
  [
    'svg-style-title',
    '<body><svg><title>Icon &amp; more</title><style>.a{fill:red}</style><path d="M0"/></svg><title>Real</title><h1>H</h1></body>',
  ],
  ['stray-end-tags', '<body></p><div>a</br>b</span></div></p><p>c</div>d</body></html>after'],
  [
    'implied-ends',
    '<ul><li>1<li>2</ul><dl><dt>a<dd>b</dl><table><tr><td>x<td>y<tr><td>z</table><select><option>a<option>b</select><p>p1<div>d</div><p>p2<h1>h</h1>',
  ],
  [
    'entities',
    '<title>A &amp; B &eacute;t&eacute; &#169; &#x263A; &copy &notit; &bogus;</title><p title="a&amp;b &copy=1 &lt;">x &lt;y&gt; &nbsp;z &amp</p><a href="/s?a=1&amp;b=2&copy=3&not=4">s</a>',
  ],
  [
    'script-with-markup',
    '<script>var s = "<a href=\'/no\'>" + "</scr" + "ipt>"; if (a<b) {}</script><a href="/yes">y</a><style>a>b{}</style>',
  ],
  [
    'json-ld-microdata',
    '<script type="application/ld+json">{"@type":"Organization","name":"A &amp; B"}</script><div itemscope itemtype="https://schema.org/Organization"><span itemprop="name">Acme</span><a itemprop="url" href="/about">about</a></div>',
  ],
  [
    'comments-doctype-pi',
    '<!DOCTYPE html><!-- <a href="/c"> --><?xml x?><!--> <a href="/after-empty-comment">a</a> <![CDATA[ <a href="/cd"> ]]><a href="/z">z</a><!-- unclosed <a href="/u">',
  ],
  ['less-than-text', '<p>a < b and a<3 and 1 <= 2 </ p> <a href="/lt">lt</a> <!bogus> </>text</p>'],
  [
    'attributes',
    '<a href=/unq title=x=y>u</a><a HREF="/Upper" href="/dup">d</a><img src = "/sp.png" srcset="/a.png 1x, /b.png 2x"><link rel="stylesheet alternate" href="/s.css"><link rel=alternate hreflang=fr href="/fr"><base href="https://other.example/dir/"><a href="rel">r</a><a/href="/slash">s</a>',
  ],
  [
    'meta-and-lang',
    '<html lang="de-AT"><meta property="og:locale" content="de_AT"><meta http-equiv="Content-Language" content="de, en"><meta name="Generator" content="WordPress 6.5"><meta name="description" content="D &amp; d">',
  ],
  ['deep-nesting', `${'<div>'.repeat(700)}deep${'</div>'.repeat(700)}<a href="/d">d</a>`],
  [
    'many-anchors-segments',
    Array.from(
      { length: 400 },
      (_, i) =>
        `<div><strong>Name ${i}</strong><span>Title ${i}</span><a href="/p${i}">${'x'.repeat(i)}</a></div>`,
    ).join(''),
  ],
  ['long-anchor-entities', `<a href="/l">${'word &amp; '.repeat(60)}</a><h1>${'h&eacute;'.repeat(200)}</h1>`],
  [
    'head-body-implied',
    '<html><head><title>T</title><link href="/l.css" rel=stylesheet><body><script src="/a.js"></script><p>x</body></html>',
  ],
  [
    'form-tags',
    '<form action="/f"><input name=a><select><option>1</select><textarea>t &amp; <b>x</b></textarea><button>b</button><p>after</form>',
  ],
  ['foreign-self-closing', '<svg><a href="/svg-link"/><circle/></svg><math><mi>x</mi></math><p>t</p>'],
  [
    'xmp-and-textarea',
    '<xmp><a href="/x">x</a></xmp><textarea><a href="/t">t</a></textarea><a href="/ok">ok</a>',
  ],
  ['cdata-with-gt', '<p>a<![CDATA[ x > <a href="/in-cdata">c</a> ]]><a href="/after-cdata">d</a></p>'],
  ['end-tag-quirks', '<div><p>a</p/><span>s</span/></ p><a href="/q">q</a></ >t</>u</9>v</div>'],
  ['svg-self-closing-space', '<svg><g / ><a href="/g">g</a></g></svg><p>x</p>'],
  ['eof-in-declaration', '<p>a</p><a href="/e">e</a><!DOCTYPE html'],
  ['eof-in-end-tag', '<p>a<a href="/e">e</a></p '],
  ['eof-after-lt', '<p>text &amp; more <'],
  ['textarea-entities', '<textarea>a &amp; b</textarea><title>t &amp; u</title><p>&amp;</p>'],
  ['script-end-slash', '<script>a</script/><a href="/x">x</a></script><a href="/y">y</a>'],
  [
    'simple-entities',
    `<title>A &amp; B &#39;q&#x27;</title><p title="a&amp;b &quot;c&quot; &#160;">x &lt;y&gt; &nbsp;z&amp;&#233;t&#xE9;</p><a href="/s?a=1&amp;b=2">${'w &amp; '.repeat(50)}</a><p>&#128512; &#0; &#x80; &#65;&#x42;</p>`,
  ],
].map(([name, html]) => ({ name: `edge/${name}`, url: 'https://edge.example/page', html }));
