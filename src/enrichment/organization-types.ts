/**
 * schema.org Organization types and what they say about a company. The industry names follow
 * LinkedIn's industry list (what B2B data users filter on); only types that name an industry
 * unambiguously are mapped. Types not listed are still organisations when their name ends in
 * Organization, Business, Store, Service or Agency.
 */
const INDUSTRY_OF_TYPE: Record<string, string> = {};
function map(industry: string, types: string): void {
  for (const type of types.split(/\s+/).filter(Boolean)) INDUSTRY_OF_TYPE[type] = industry;
}
map(
  'Food and Beverage Services',
  'FoodEstablishment Restaurant CafeOrCoffeeShop FastFoodRestaurant BarOrPub Bakery IceCreamShop Brewery Winery Distillery',
);
map('Hospitality', 'LodgingBusiness Hotel Motel Hostel BedAndBreakfast Resort Campground VacationRental');
map('Legal Services', 'LegalService Attorney Notary');
map('Accounting', 'AccountingService');
map('Financial Services', 'FinancialService AutomatedTeller');
map('Banking', 'BankOrCreditUnion');
map('Insurance', 'InsuranceAgency');
map(
  'Hospitals and Health Care',
  'MedicalOrganization MedicalBusiness Hospital MedicalClinic Physician Dentist Pharmacy Optician DiagnosticLab MedicalCenter',
);
map('Veterinary Services', 'VeterinaryCare');
map('Education', 'EducationalOrganization');
map('Higher Education', 'CollegeOrUniversity');
map('Primary and Secondary Education', 'School ElementarySchool HighSchool MiddleSchool Preschool');
map('Government Administration', 'GovernmentOrganization GovernmentOffice');
map('Non-profit Organizations', 'NGO');
map('Newspaper Publishing', 'NewsMediaOrganization');
map('Spectator Sports', 'SportsOrganization SportsTeam');
map('Wellness and Fitness Services', 'SportsActivityLocation ExerciseGym HealthClub');
map(
  'Retail',
  'Store OnlineStore AutoPartsStore BikeStore BookStore ClothingStore ComputerStore ConvenienceStore DepartmentStore ElectronicsStore Florist FurnitureStore GardenStore GroceryStore HardwareStore HobbyShop HomeGoodsStore JewelryStore LiquorStore MensClothingStore MobilePhoneStore MovieRentalStore MusicStore OfficeEquipmentStore OutletStore PawnShop PetStore ShoeStore SportingGoodsStore TireShop ToyStore WholesaleStore',
);
map('Motor Vehicle Manufacturing', 'AutomotiveBusiness');
map('Retail Motor Vehicles', 'AutoDealer MotorcycleDealer');
map('Vehicle Repair and Maintenance', 'AutoRepair AutoBodyShop AutoWash MotorcycleRepair');
map('Real Estate', 'RealEstateAgent');
map('Travel Arrangements', 'TravelAgency');
map(
  'Construction',
  'HomeAndConstructionBusiness GeneralContractor Electrician Plumber RoofingContractor HousePainter HVACBusiness Locksmith',
);
map('Truck Transportation', 'MovingCompany');
map('Personal Care Services', 'HealthAndBeautyBusiness BeautySalon HairSalon DaySpa NailSalon TattooParlor');
map(
  'Entertainment Providers',
  'EntertainmentBusiness MovieTheater NightClub AmusementPark Casino ComedyClub',
);
map('Museums, Historical Sites, and Zoos', 'ArtGallery');
map('Airlines and Aviation', 'Airline');
map('Staffing and Recruiting', 'EmploymentAgency');
map('Professional Services', 'ProfessionalService');
map('Libraries', 'Library');
map('Performing Arts', 'PerformingGroup MusicGroup TheaterGroup DanceGroup');
map('Research Services', 'ResearchOrganization');
map('Child Day Care Services', 'ChildCare');
map('Recreational Facilities', 'SportsClub GolfCourse SkiResort StadiumOrArena');
map('Radio and Television Broadcasting', 'RadioStation TelevisionStation');

/** NAICS 2017 sectors by their two-digit prefix (schema.org `naics`). */
const NAICS_SECTORS: Record<string, string> = {
  '11': 'Agriculture, Forestry, Fishing and Hunting',
  '21': 'Mining, Quarrying, and Oil and Gas Extraction',
  '22': 'Utilities',
  '23': 'Construction',
  '31': 'Manufacturing',
  '32': 'Manufacturing',
  '33': 'Manufacturing',
  '42': 'Wholesale Trade',
  '44': 'Retail',
  '45': 'Retail',
  '48': 'Transportation and Warehousing',
  '49': 'Transportation and Warehousing',
  '51': 'Information',
  '52': 'Finance and Insurance',
  '53': 'Real Estate',
  '54': 'Professional, Scientific, and Technical Services',
  '55': 'Management of Companies and Enterprises',
  '56': 'Administrative and Support Services',
  '61': 'Education',
  '62': 'Hospitals and Health Care',
  '71': 'Arts, Entertainment, and Recreation',
  '72': 'Accommodation and Food Services',
  '81': 'Other Services',
  '92': 'Government Administration',
};

const ORGANIZATION_TYPES = new Set([
  'Organization',
  'Corporation',
  'LocalBusiness',
  'OnlineBusiness',
  'NGO',
  'Consortium',
  'Cooperative',
  'FundingScheme',
  'WorkersUnion',
  'LibrarySystem',
  'Project',
  ...Object.keys(INDUSTRY_OF_TYPE),
]);

export function isOrganizationType(type: string): boolean {
  return ORGANIZATION_TYPES.has(type) || /(?:Organization|Business|Store|Service|Agency)$/.test(type);
}

export function industryOfType(type: string): string | undefined {
  return INDUSTRY_OF_TYPE[type];
}

export function industryOfNaics(code: string): string | undefined {
  const digits = /^\s*(\d{2})\d{0,4}\s*$/.exec(code)?.[1];
  return digits ? NAICS_SECTORS[digits] : undefined;
}

/** companyType from the types and properties: only what schema.org says outright. */
export function companyTypeOf(types: readonly string[], props: Record<string, unknown>): string | undefined {
  if (types.includes('NGO') || (typeof props.nonprofitStatus === 'string' && props.nonprofitStatus !== ''))
    return 'Nonprofit';
  if (
    types.some((type) =>
      /^(EducationalOrganization|CollegeOrUniversity|School|ElementarySchool|HighSchool|MiddleSchool|Preschool)$/.test(
        type,
      ),
    )
  )
    return 'Educational';
  if (types.some((type) => /^(GovernmentOrganization|GovernmentOffice)$/.test(type)))
    return 'Government agency';
  if (typeof props.tickerSymbol === 'string' && props.tickerSymbol.trim() !== '') return 'Public company';
  return undefined;
}

/** The documented size labels, each with its upper bound of employees. */
export const COMPANY_SIZES: readonly (readonly [label: string, max: number])[] = [
  ['1-10', 10],
  ['11-50', 50],
  ['51-200', 200],
  ['201-500', 500],
  ['501-1000', 1000],
  ['1001-5000', 5000],
  ['5001-10000', 10_000],
  ['10001+', Number.POSITIVE_INFINITY],
];

/** The label for an employee count. */
export function companySizeOf(employees: number): string | undefined {
  if (!Number.isFinite(employees) || employees < 1) return undefined;
  return COMPANY_SIZES.find(([, max]) => employees <= max)?.[0];
}
