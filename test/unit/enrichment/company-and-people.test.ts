import { enrichSite } from '../../../src/enrichment';
import { acmePage, htmlPage, input } from './enrichment-fixtures';

const jsonLd = (data: unknown) => `<script type="application/ld+json">${JSON.stringify(data)}</script>`;

describe('company facts', () => {
  it('reads a microdata LocalBusiness: name, industry by type, founding year, address', () => {
    const record = enrichSite(
      input([acmePage('/', 'dentist.html')], { siteUrl: 'https://zahnarzt-weiss.de/' }),
    );
    expect(record.company).toEqual({
      companyName: 'Zahnarztpraxis Dr. Weiß',
      inferredCompanyName: 'Zahnarzt Weiss', // from the domain: a guess, and labelled so
      industry: 'Hospitals and Health Care',
      about: 'Familienzahnarzt in Hamburg-Eimsbüttel seit 1998.',
      companyFounded: 1998,
      locations: ['Hamburg, Germany'],
    });
    expect(record.meta.schemaOrgTypes).toEqual(['Dentist', 'PostalAddress']);
    expect(record.phone.phone).toEqual(['+494047110815']);
  });

  it('maps numberOfEmployees to the documented size labels and reads companyType only where schema.org says it', () => {
    const companyOf = (organization: Record<string, unknown>) =>
      enrichSite(
        input([
          htmlPage(
            'https://org.example.com/',
            '',
            jsonLd({ '@context': 'https://schema.org', ...organization }),
          ),
        ]),
      ).company;
    expect(companyOf({ '@type': 'Organization', name: 'A', numberOfEmployees: 7 }).companySize).toBe('1-10');
    expect(companyOf({ '@type': 'Organization', name: 'A', numberOfEmployees: '1,200' }).companySize).toBe(
      '1001-5000',
    );
    expect(
      companyOf({ '@type': 'Organization', name: 'A', numberOfEmployees: { value: 25000 } }).companySize,
    ).toBe('10001+');
    expect(
      companyOf({ '@type': 'Organization', name: 'A', numberOfEmployees: 'many' }).companySize,
    ).toBeUndefined();
    expect(companyOf({ '@type': 'NGO', name: 'A' })).toMatchObject({
      companyType: 'Nonprofit',
      industry: 'Non-profit Organizations',
    });
    expect(companyOf({ '@type': 'CollegeOrUniversity', name: 'U' })).toMatchObject({
      companyType: 'Educational',
      industry: 'Higher Education',
    });
    expect(companyOf({ '@type': 'Corporation', name: 'C', tickerSymbol: 'NASDAQ ACME' }).companyType).toBe(
      'Public company',
    );
    expect(
      companyOf({ '@type': 'Organization', name: 'A', industry: 'Industrial Automation' }).industry,
    ).toBe('Industrial Automation');
    expect(
      companyOf({ '@type': 'Organization', name: 'A', foundingDate: '3021' }).companyFounded,
    ).toBeUndefined();
    const plain = companyOf({ '@type': 'Organization', name: 'A' });
    expect(plain.industry).toBeUndefined();
    expect(plain.companyType).toBeUndefined();
  });

  it('guesses the company from an imprint, else the copyright holder, else the title, else the domain', () => {
    const imprint = enrichSite(
      input([acmePage('/impressum/', 'impressum.html')], { siteUrl: 'https://www.acme-robotics.de/' }),
    );
    expect(imprint.company).toEqual({ inferredCompanyName: 'Acme Robotics GmbH' });
    const titled = enrichSite(
      input([htmlPage('https://blue-fox.com/', '', '<title>Home | Blue Fox Studio</title>')]),
    );
    expect(titled.company.inferredCompanyName).toBe('Blue Fox Studio');
    expect(titled.company.companyName).toBeUndefined();
    const bare = enrichSite(input([htmlPage('https://blue-fox.com/', '<p>Hello</p>')]));
    expect(bare.company).toEqual({ inferredCompanyName: 'Blue Fox' });
  });

  it('leaves copyright signs, years and the word Copyright out of the inferred name', () => {
    const inferred = (pages: Parameters<typeof input>[0]) =>
      enrichSite(input(pages)).company.inferredCompanyName;
    // An imprint line that is the page's copyright footer.
    expect(
      inferred([
        htmlPage('https://www.acme-robotics.de/', '<p>Hello</p>'),
        htmlPage(
          'https://www.acme-robotics.de/impressum/',
          '<h1>Impressum</h1><p>© 2026 Acme Robotics GmbH</p>',
        ),
      ]),
    ).toBe('Acme Robotics GmbH');
    expect(
      inferred([
        htmlPage('https://www.acme-robotics.de/', '<p>Hello</p>'),
        htmlPage(
          'https://www.acme-robotics.de/impressum/',
          '<h1>Impressum</h1><p>Copyright (c) 2019-2026 Acme Robotics GmbH</p>',
        ),
      ]),
    ).toBe('Acme Robotics GmbH');
    // A footer that writes the sign before the word.
    expect(
      inferred([htmlPage('https://example.org/', '<footer>© Copyright 2026 Blue Fox Studio</footer>')]),
    ).toBe('Blue Fox Studio');
    // A title segment that carries the mark.
    expect(
      inferred([htmlPage('https://blue-fox.com/', '', '<title>Home | © 2026 Blue Fox Studio</title>')]),
    ).toBe('Blue Fox Studio');
    // A name without a copyright mark keeps its digits.
    expect(
      inferred([htmlPage('https://2020-solutions.com/', '', '<title>Home | 2020 Solutions</title>')]),
    ).toBe('2020 Solutions');
  });

  it('falls back to og:site_name for the company name', () => {
    const record = enrichSite(
      input([htmlPage('https://x.com/', '', '<meta property="og:site_name" content="Example Shop">')]),
    );
    expect(record.company.companyName).toBe('Example Shop');
  });
});

describe('people', () => {
  it('reads an imprint alone: managing directors with their role', () => {
    const record = enrichSite(
      input([acmePage('/impressum/', 'impressum.html')], { siteUrl: 'https://www.acme-robotics.de/' }),
    );
    expect(record.contact.employees).toEqual([
      { name: 'Dr. Max Mustermann', title: 'Legal representative' },
      { name: 'Erika Musterfrau', title: 'Geschäftsführer' },
    ]);
  });

  it('reads team cards only where a name is followed by a job title', () => {
    const record = enrichSite(
      input([acmePage('/team/', 'team.html')], { siteUrl: 'https://www.acme-robotics.de/' }),
    );
    expect(record.contact.employees?.map((employee) => employee.name)).toEqual([
      'Priya Natarajan',
      'Max Mustermann',
      'Erika Musterfrau',
      'Jean-Luc Dupont',
    ]);
  });

  it('reads JSON-LD persons and an organisation’s employees, never a name without a title', () => {
    const page = htmlPage(
      'https://org.example.com/',
      '',
      jsonLd([
        { '@type': 'Person', name: 'Jane Doe', jobTitle: 'VP Engineering' },
        { '@type': 'Person', name: 'John Roe' },
        {
          '@type': 'Organization',
          name: 'Org',
          employee: [{ name: 'Ann Lee', jobTitle: 'Designer' }],
          founder: { name: 'Bo Chen' },
        },
      ]),
    );
    expect(enrichSite(input([page])).contact.employees).toEqual([
      { name: 'Jane Doe', title: 'VP Engineering' },
      { name: 'Ann Lee', title: 'Designer' },
      { name: 'Bo Chen', title: 'Founder' },
    ]);
  });
});
