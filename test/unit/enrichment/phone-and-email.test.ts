import { enrichSite } from '../../../src/enrichment';
import { acmePage, htmlPage, input } from './enrichment-fixtures';

const phonesOf = (...args: Parameters<typeof input>): string[] | undefined =>
  enrichSite(input(...args)).phone.phone;

describe('phone numbers', () => {
  it('reads a contact page in several formats and countries, normalised to E.164', () => {
    expect(
      phonesOf([acmePage('/contact/', 'contact.html')], { siteUrl: 'https://www.acme-robotics.de/' }),
    ).toEqual([
      '+49301234567', // "Tel.: 030 1234567", national, for the .de domain
      '+4915123456789', // "Mobile: 0151 23456789"
      '+16502530000', // "+1 650-253-0000"
      '+442079460958', // "T: +44 20 7946 0958"
      '+33142685300', // "Téléphone : +33 1 42 68 53 00"
    ]);
  });

  it('takes the default region from the postal address before the domain and the server', () => {
    const page = htmlPage(
      'https://example.com/kontakt/',
      '<p>Telefon: 01 234 56 78</p>',
      '<script type="application/ld+json">{"@type":"Organization","name":"X","address":{"@type":"PostalAddress","addressLocality":"Wien","addressCountry":"AT"}}</script>',
    );
    expect(phonesOf([page], { addresses: [{ address: '1.1.1.1', country: 'US' }] })).toEqual(['+4312345678']);
  });

  it('falls back to the country-code domain, then to the GeoIP country, and ignores vanity TLDs', () => {
    const page = (url: string) => htmlPage(url, '<p>Tel: 020 7946 0958</p>');
    expect(phonesOf([page('https://shop.co.uk/contact')])).toEqual(['+442079460958']);
    expect(
      phonesOf([page('https://shop.io/contact')], { addresses: [{ address: '1.1.1.1', country: 'GB' }] }),
    ).toEqual(['+442079460958']);
    // No region known: a national number cannot be read, an international one can.
    expect(phonesOf([page('https://shop.io/contact')])).toBeUndefined();
    expect(phonesOf([htmlPage('https://shop.io/contact', '<p>+44 20 7946 0958</p>')])).toEqual([
      '+442079460958',
    ]);
  });

  it('drops fax numbers, invalid numbers, unlabelled digits and numbers written for another country', () => {
    const page = htmlPage(
      'https://firma.de/kontakt/',
      `<p>Fax: 030 1234568</p><p>Telefax: +49 30 1234569</p><p>Tel: +49 123</p>
       <p>Bestellnummer 0301234567</p><p>Phone: (212) 736-5000</p><p>HRB 123456, USt-IdNr. DE123456789</p>`,
    );
    expect(phonesOf([page])).toBeUndefined();
  });

  it('reads tel: links on every page but text only on contact and imprint pages', () => {
    const home = htmlPage(
      'https://firma.de/',
      '<a href="tel:+4930%20123%204567">Call</a><p>Tel: 040 4711 0815</p>',
    );
    expect(phonesOf([home])).toEqual(['+49301234567']);
  });

  it('caps the list at ten numbers', () => {
    const lines = Array.from(
      { length: 30 },
      (_, i) => `<p>Tel: +49 30 12345${String(i).padStart(2, '0')}</p>`,
    ).join('');
    expect(phonesOf([htmlPage('https://firma.de/kontakt', lines)])).toHaveLength(10);
  });
});

describe('email addresses', () => {
  const emailsOf = (body: string, url = 'https://firma.de/impressum') =>
    enrichSite(input([htmlPage(url, body)])).email.email;

  it('reads mailto links (several addresses, query dropped), text and obfuscated forms', () => {
    expect(
      emailsOf(
        `<a href="mailto:a@firma.de,b@firma.de?subject=Hi">Mail</a>
         <p>Kontakt: info(at)firma.de, jobs [at] firma [dot] de, Presse@Firma.DE</p>`,
      ),
    ).toEqual(['a@firma.de', 'b@firma.de', 'info@firma.de', 'jobs@firma.de', 'presse@firma.de']);
  });

  it('drops placeholders, file names, scripts and non-public domains', () => {
    expect(
      emailsOf(
        `<p>you@example.com logo@2x.png user@localhost admin@intranet.local x@test</p>
         <script>var dsn = "abc@o123.ingest.sentry.io"</script><a href="mailto:nobody">?</a>`,
      ),
    ).toBeUndefined();
  });

  it('finds addresses after long runs of address characters and "@" without an address', () => {
    // A local part longer than 64 characters matches from its last 64; "@@" and "a@" alone are none.
    expect(emailsOf(`<p>@@ a@ ${'x'.repeat(100)}@firma.de und ${'@'.repeat(80)}info@firma.de</p>`)).toEqual([
      `${'x'.repeat(64)}@firma.de`,
      'info@firma.de',
    ]);
  });
});
