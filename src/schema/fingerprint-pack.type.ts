import { Field, Int, ObjectType } from 'type-graphql';

@ObjectType({ description: 'One pack of the active fingerprint set' })
export class FingerprintPackEntry {
  @Field(() => Int, { description: '0 for the base, then the overlays in the order they are laid' })
  position: number;

  @Field(() => String)
  name: string;

  @Field(() => String, { description: '`base` or `overlay`' })
  role: string;

  @Field(() => String, { description: 'Declared in pack.json, else `sha256:` and the content hash' })
  version: string;

  @Field(() => String, { description: 'SHA-256 of the pack files' })
  contentHash: string;

  @Field(() => Int)
  technologies: number;

  @Field(() => Int, { nullable: true, description: 'UNIX seconds (null for a default pack no one loaded)' })
  loadedAt: number | null;

  @Field(() => String, { nullable: true, description: '`account:<id>` or `cli:<user>`' })
  loadedBy: string | null;
}

@ObjectType({ description: 'The corrections pack this deployment ships' })
export class FingerprintCorrections {
  @Field(() => String)
  version: string;

  @Field(() => Boolean, { description: 'Whether the active set has it as shipped' })
  active: boolean;
}

@ObjectType({ description: 'An earlier activation: a version activateFingerprints can go back to' })
export class FingerprintActivation {
  @Field(() => String)
  version: string;

  @Field(() => Int, { description: 'UNIX seconds' })
  activatedAt: number;

  @Field(() => String)
  activatedBy: string;
}

@ObjectType({ description: 'The API process that answered: the set it runs and its last switch' })
export class FingerprintProcessState {
  @Field(() => String, { description: 'The set this process detects with' })
  version: string;

  @Field(() => Int, {
    nullable: true,
    description: 'The longest event-loop stall (ms) of its last switch (null before any)',
  })
  lastSwitchStallMs: number | null;

  @Field(() => String, { nullable: true, description: 'Why its last switch failed (the running set stayed)' })
  lastError: string | null;
}

@ObjectType({ description: 'The active fingerprint set (fingerprints:status)' })
export class FingerprintPacksStatus {
  @Field(() => String, { description: "The active set's id (fp-<12 hex>): what observations record" })
  version: string;

  @Field(() => Boolean, { description: 'false: the default set, nothing was ever loaded' })
  stored: boolean;

  @Field(() => Int, { nullable: true, description: 'UNIX seconds' })
  activatedAt: number | null;

  @Field(() => String, { nullable: true })
  activatedBy: string | null;

  @Field(() => [FingerprintPackEntry])
  packs: FingerprintPackEntry[];

  @Field(() => FingerprintCorrections, { nullable: true })
  corrections: FingerprintCorrections | null;

  @Field(() => [FingerprintActivation], { description: 'Earlier activations, newest first' })
  history: FingerprintActivation[];

  @Field(() => FingerprintProcessState)
  process: FingerprintProcessState;
}

@ObjectType({ description: 'A problem found in a pack (errors refuse it, warnings do not)' })
export class FingerprintPackProblem {
  @Field(() => String, { description: '`error` or `warning`' })
  severity: string;

  @Field(() => String, { description: "The file, relative to the pack's root" })
  file: string;

  @Field(() => String, { nullable: true })
  technology: string | null;

  @Field(() => String, { nullable: true, description: 'The field within the technology (implies[2])' })
  field: string | null;

  @Field(() => String)
  message: string;
}

@ObjectType({ description: 'The pack a load stored' })
export class LoadedFingerprintPack {
  @Field(() => String)
  name: string;

  @Field(() => String, { description: '`base` or `overlay`' })
  role: string;

  @Field(() => String)
  version: string;

  @Field(() => Int)
  technologies: number;
}

@ObjectType({ description: 'What a change of the fingerprint set did' })
export class FingerprintSetChange {
  @Field(() => String, { description: 'The set now active (every process switches to it)' })
  version: string;

  @Field(() => String, { description: 'The set active before' })
  previousVersion: string;
}

@ObjectType({ description: 'A pack loaded and its new set activated' })
export class FingerprintPackLoad {
  @Field(() => String, { description: 'The set now active (every process switches to it)' })
  version: string;

  @Field(() => String, { description: 'The set active before' })
  previousVersion: string;

  @Field(() => LoadedFingerprintPack)
  pack: LoadedFingerprintPack;

  @Field(() => [FingerprintPackProblem], { description: 'Warnings of the loaded pack' })
  warnings: FingerprintPackProblem[];
}
