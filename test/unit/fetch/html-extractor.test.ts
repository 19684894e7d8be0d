import { extractHtmlFacts } from '../../../src/fetch/html-extractor';

describe('extractHtmlFacts', () => {
  const page = 'https://www.example.com/blog/post/';

  it('resolves links against the page and <base href>, dropping fragments and non-http schemes', () => {
    const facts = extractHtmlFacts(
      `<a href="../">up</a><a href="#top">top</a><a href="mailto:a@b.c">m</a><a href="javascript:void(0)">j</a>
       <a href="https://other.org/x#frag">o</a><base href="https://cdn.example.com/base/"><a href="rel">r</a>
       <AREA HREF="/map">`,
      page,
    );
    expect(facts.links).toEqual([
      'https://www.example.com/blog/',
      'https://www.example.com/blog/post/',
      'https://other.org/x',
      'https://cdn.example.com/base/rel',
      'https://cdn.example.com/map',
    ]);
  });

  it('ignores anchors inside comments and script text', () => {
    const facts = extractHtmlFacts(
      `<!-- <a href="/commented">x</a> --><script>document.write('<a href="/scripted">')</script><a href="/real">`,
      page,
    );
    expect(facts.links).toEqual(['https://www.example.com/real']);
  });

  it('separates scripts, stylesheets and other resources', () => {
    const facts = extractHtmlFacts(
      `<script src="/js/app.js"></script><script>inline()</script>
       <link rel="preload stylesheet" href="/css/site.css"><link rel="icon" href="https://static.example.net/fav.ico">
       <img src="/a.png" srcset="https://img.example.org/a-2x.png 2x, /a-3x.png 3x"><iframe src="https://player.video.com/1"></iframe>
       <form action="https://forms.example.io/post"></form><video poster="/p.jpg"><source src="https://media.example.tv/v.mp4"></video>`,
      page,
    );
    expect(facts.scriptSrc).toEqual(['https://www.example.com/js/app.js']);
    expect(facts.stylesheets).toEqual(['https://www.example.com/css/site.css']);
    expect(facts.resources).toEqual(
      expect.arrayContaining([
        'https://static.example.net/fav.ico',
        'https://www.example.com/a.png',
        'https://img.example.org/a-2x.png',
        'https://www.example.com/a-3x.png',
        'https://player.video.com/1',
        'https://forms.example.io/post',
        'https://www.example.com/p.jpg',
        'https://media.example.tv/v.mp4',
      ]),
    );
  });

  it('reads the language declarations', () => {
    const facts = extractHtmlFacts(
      `<html lang="pt-BR"><meta property="og:locale" content="pt_BR"><meta http-equiv="content-language" content="pt, en">`,
      page,
    );
    expect(facts.htmlLang).toBe('pt-BR');
    expect(facts.metaLanguages).toEqual(['pt_BR', 'pt', ' en']);
  });

  it('decodes entities in attribute values', () => {
    expect(extractHtmlFacts('<a href="/search?a=1&amp;b=2">', page).links).toEqual([
      'https://www.example.com/search?a=1&b=2',
    ]);
  });

  it('survives broken markup', () => {
    const facts = extractHtmlFacts(
      '<div><a href="/one"><p>unclosed <a href=/two>two<a href=\'/three\'>three',
      page,
    );
    expect(facts.links).toEqual([
      'https://www.example.com/one',
      'https://www.example.com/two',
      'https://www.example.com/three',
    ]);
  });

  it('reads tags named like Object.prototype members as any other tag', () => {
    const facts = extractHtmlFacts('<constructor srcset="/a.png 2x" class="srcset"><img src="/b.png">', page);
    expect(facts.resources).toEqual(['https://www.example.com/a.png', 'https://www.example.com/b.png']);
  });
});
