import { enrichSite } from '../../../src/enrichment';
import { ACME_PAGES, ACME_URL, ANALYTICS, input } from './enrichment-fixtures';

/** The whole record of a realistic company site: JSON-LD Organization, contact, imprint, team and about pages. */
describe('enrichSite on a company site', () => {
  const record = enrichSite(
    input(ACME_PAGES, {
      siteUrl: `${ACME_URL}/`,
      technologies: [ANALYTICS],
      certificate: { issuer: "Let's Encrypt", protocol: 'TLSv1.3', validTo: '2030-01-01T00:00:00.000Z' },
      addresses: [{ address: '203.0.113.7', country: 'DE', region: 'Berlin' }],
      dns: { txt: ['v=spf1 include:_spf.google.com ~all', 'google-site-verification=x'], dmarc: [] },
      trafficRank: 5_000,
    }),
  );

  it('meta: title, description, copyright, viewport and the schema.org types', () => {
    expect(record.meta).toEqual({
      title: 'Acme Robotics | Industrial robots for small factories',
      description:
        'Acme Robotics builds collaborative welding and packaging robots for small and mid-sized factories.',
      copyright: '© 2009–2024 Acme Robotics GmbH',
      copyrightYear: 2024,
      responsive: true,
      schemaOrgTypes: [
        'WebSite',
        'Organization',
        'Corporation',
        'QuantitativeValue',
        'PostalAddress',
        'Place',
        'Country',
        'Person',
      ],
    });
  });

  it('company: the Organization node, its size, founding year, industry and addresses', () => {
    expect(record.company).toEqual({
      companyName: 'Acme Robotics GmbH',
      inferredCompanyName: 'Acme Robotics GmbH',
      industry: 'Manufacturing', // NAICS 333249
      about:
        'Acme Robotics designs and builds collaborative robots for welding, palletising and packaging, made in Berlin since 2009.',
      companySize: '51-200',
      companyFounded: 2009,
      locations: ['Berlin, Germany', 'Munich, Bavaria, Germany'],
    });
    expect(record.company.companyType).toBeUndefined(); // a Corporation without a ticker says nothing more
  });

  it('phone: E.164, from tel: links, JSON-LD and the contact and imprint pages, fax and junk left out', () => {
    expect(record.phone.phone).toEqual([
      '+49301234567',
      '+4915123456789',
      '+16502530000',
      '+442079460958',
      '+33142685300',
    ]);
  });

  it('email: mailto links, JSON-LD and de-obfuscated text, placeholders and file names left out', () => {
    expect(record.email.email).toEqual([
      'sales@acme-robotics.de',
      'info@acme-robotics.de',
      'support@acme-robotics.de',
      'press@acme-robotics.de',
    ]);
    expect(record.email.verifiedEmail).toBeUndefined();
  });

  it('contact: people with their titles from JSON-LD, microdata, team cards and the imprint', () => {
    expect(record.contact.employees).toEqual([
      { name: 'Max Mustermann', title: 'CEO and Co-Founder' },
      { name: 'Priya Natarajan', title: 'Lead Robotics Engineer' },
      { name: 'Erika Musterfrau', title: 'Chief Technology Officer' },
      { name: 'Jean-Luc Dupont', title: 'Head of Sales, France' },
    ]);
  });

  it('social: profiles from sameAs and links, share links left out', () => {
    expect(record.social).toEqual({
      linkedin: ['company/acme-robotics', 'in/priya-natarajan'],
      twitter: ['AcmeRobotics'],
      facebook: ['acmerobotics'],
      github: ['acme-robotics'],
      instagram: ['acmerobotics'],
      youtube: ['@AcmeRobotics'],
      tiktok: ['@acmerobotics'],
    });
  });

  it('locale: declared languages and hreflang alternates, GeoIP country and region', () => {
    expect(record.locale).toEqual({
      language: 'en',
      languages: ['en', 'en-us', 'de'],
      ipCountry: 'DE',
      ipRegion: 'Berlin',
      ipCountries: ['DE'],
    });
  });

  it('security: certificate, https, SPF and DMARC', () => {
    expect(record.security).toEqual({
      https: true,
      certInfo: { issuer: "Let's Encrypt", protocol: 'TLSv1.3', validTo: 1893456000 },
      dns: { spf: true, dmarc: false },
    });
  });

  it('trackers, keywords, signals, and an events slot the library leaves empty', () => {
    expect(record.trackers).toEqual({ trackers: ['Google Analytics'] });
    expect(record.keywords.keywords?.slice(0, 4)).toEqual([
      'robotics',
      'welding robots',
      'cobots',
      'automation',
    ]);
    expect(record.keywords.keywords?.length).toBeLessThanOrEqual(10);
    expect(record.signals).toEqual({ technologySpend: 'Very low', trafficLevel: 'High' });
    expect(record.events).toEqual({});
  });
});

describe('enrichSite when nothing is known', () => {
  it('leaves every field absent rather than empty', () => {
    const record = enrichSite({ siteUrl: 'http://192.0.2.1/', pages: [], technologies: [] });
    expect(record).toEqual({
      meta: {},
      company: {},
      phone: {},
      email: {},
      contact: {},
      social: {},
      locale: {},
      security: { https: false },
      trackers: {},
      keywords: {},
      signals: {},
      events: {},
    });
  });
});
