import { Field, Int, ObjectType } from 'type-graphql';
import { TechnologyCategory } from './technology.type';

@ObjectType({
  description: 'A category a technology belongs to, with its priority (1 most significant, 10 least)',
})
export class CatalogueTechnologyCategory extends TechnologyCategory {
  @Field(() => Int, { description: '1 is the most significant (CMS, Ecommerce), 10 the least' })
  priority: number;
}

@ObjectType({ description: 'A technology of the public catalogue (GET /v2/technologies/)' })
export class CatalogueTechnology {
  @Field()
  slug: string;

  @Field()
  name: string;

  @Field({ description: 'Icon file name of the fingerprints' })
  icon: string;

  @Field({ description: "The technology's website ('' when the fingerprints have none)" })
  website: string;

  @Field(() => String, { nullable: true, description: 'CPE 2.3 name, when the fingerprints have one' })
  cpe: string | null;

  @Field(() => [CatalogueTechnologyCategory])
  categories: CatalogueTechnologyCategory[];

  @Field({ description: 'Some pattern of the technology can yield a version' })
  versioned: boolean;

  @Field(() => Int, {
    description: "Sites of this service's index on which the technology was confirmed in the last 90 days",
  })
  hostnames: number;
}

@ObjectType({ description: 'A group of categories (e.g. Marketing)' })
export class CategoryGroup {
  @Field()
  name: string;

  @Field()
  slug: string;
}

@ObjectType({ description: 'A category of the public catalogue (GET /v2/categories/)' })
export class CatalogueCategory extends CatalogueTechnologyCategory {
  @Field(() => Int, { description: 'Technologies of the loaded fingerprints in this category' })
  technologiesCount: number;

  @Field(() => [CategoryGroup])
  groups: CategoryGroup[];
}
