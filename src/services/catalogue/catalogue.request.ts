import { z } from 'zod';
import { field } from '../platform/request-schema';

const slug = (what: string) =>
  field.text({ maxLength: 200, required: true, description: `The ${what}'s slug` });

export const TechnologyRequest = z.object({ slug: slug('technology') });
export const CategoryRequest = z.object({ slug: slug('category') });
